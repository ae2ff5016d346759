// A call through a const global function pointer: it was translated and
// nvcc compiled it, calling a host address on the GPU.
// expect: 13:16: error: a call through a function pointer: tilepp cannot tell which function it calls; kernels call functions by name (the file's own, and the C math library)
#include <tilepp/tile.h>

static float twice(float v) { return 2.0f * v; }
static float (*const op)(float) = twice;
#pragma tile kernel
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = op(y[i]);
}

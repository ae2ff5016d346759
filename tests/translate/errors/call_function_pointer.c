// A call through a local function pointer: tilepp cannot tell which function
// it reaches (it was translated).
// expect: 14:16: error: a call through a function pointer: tilepp cannot tell which function it calls; kernels call functions by name (the file's own, and the C math library)
#include <tilepp/tile.h>

static float twice(float v) { return 2.0f * v; }
#pragma tile kernel
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        {
        float (*op)(float) = twice;
        y[i] = op(y[i]);
    }
}

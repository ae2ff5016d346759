// A helper with a long double parameter, called from a kernel.
// expect: 5:32: error: 'long double' in a kernel: CUDA computes it as 'double', so the GPU would not compute what the C does; use double
#include <tilepp/tile.h>

static float widen(long double v) { return (float)(v / 3); }
#pragma tile kernel
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = widen(y[i]);
}

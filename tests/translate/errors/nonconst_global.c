// A kernel reading a global that is not const.
// expect: 12:23: error: kernels cannot use the global variable 'gain': the GPU does not see the CPU's globals; pass it as a parameter (or make it const, if it is a constant)
#include <tilepp/tile.h>

float gain = 2.0f;

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = x[i] * gain;
}

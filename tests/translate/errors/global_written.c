// A global variable written in a parallel body (one error: it is not read).
// expect: 12:9: error: kernels cannot use the global variable 'count': the GPU does not see the CPU's globals; pass it as a parameter (or make it const, if it is a constant)
#include <tilepp/tile.h>

int count;

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        count = (int)x[i];
}

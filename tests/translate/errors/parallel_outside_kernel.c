// parallel in a function that is not a kernel.
// expect: 7:1: error: '#pragma tile parallel' must be inside a '#pragma tile kernel' function
#include <tilepp/tile.h>

void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

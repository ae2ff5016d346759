// A loop over a float variable.
// expect: 9:16: error: the variable of a parallel loop must have an integer type
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel
    for (float v = 0.0f; v < n; v += 1.0f)
        x[(int)v] = 0.0f;
}

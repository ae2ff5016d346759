// Two '#pragma tile parallel' on one loop.
// expect-not: must be inside a '#pragma tile kernel'
// expect-prefix: 10:1: error: 
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

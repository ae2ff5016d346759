// A kernel that returns a value.
// expect-not: must be inside a '#pragma tile kernel'
// expect: 7:5: error: a kernel returns nothing: 'f' returns 'int'
#include <tilepp/tile.h>

#pragma tile kernel
int f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
    return n;
}

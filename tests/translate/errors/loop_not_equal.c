// A loop with '!=' as its condition.
// expect: 9:5: error: a loop under '#pragma tile' must have the form 'for (int v = lo; v < hi; v += step)' (also <=, >, >=, ++, --, -=)
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i != n; i++)
        x[i] = 0.0f;
}

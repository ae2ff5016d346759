// A loop whose step multiplies.
// expect: 9:5: error: a loop under '#pragma tile' must have the form 'for (int v = lo; v < hi; v += step)' (also <=, >, >=, ++, --, -=)
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 1; i < n; i *= 2)
        x[i] = 0.0f;
}

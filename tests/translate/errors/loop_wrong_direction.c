// A loop whose step goes away from its bound.
// expect: 9:5: error: the loop's step goes away from its bound: it would never end
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i--)
        x[i] = 0.0f;
}

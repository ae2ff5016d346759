// '#pragma tile fragment' on a scalar: a tile is an array.
// expect: 11:15: error: tile 'v' needs an array of constant extents with arithmetic elements
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int n, float *y)
{
#pragma tile grid
    for (int b = 0; b < n; b++) {
#pragma tile fragment
        float v;
        v = 1.0f;
        y[b] = v;
    }
}

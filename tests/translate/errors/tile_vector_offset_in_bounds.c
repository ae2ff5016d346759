// The in-bounds forms measure their vector (tile.h takes its address, so gcc
// and clang refuse `x + off` there): tilepp says so, with the two ways out.
// expect: 13:23: error: the 3-argument 'tile_load' takes a vector it can measure (tile.h takes its address, so C refuses 'x + off' here): move the window instead, 'tile_load(t, x, off + i0)', or give the extent, 'tile_load(t, x + off, i0, n)'
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int n, const float *x, float *y)
{
#pragma tile grid
    for (int i0 = 0; i0 < n; i0 += 256) {
#pragma tile shared
        float xs[256];
        tile_load(xs, x + i0, 0);
        tile_store(y, xs, i0, n);
    }
}

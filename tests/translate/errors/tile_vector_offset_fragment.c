// The offset of a vector `x + off` must have one value for the whole block:
// an element of a fragment is in each thread's own registers.
// expect: 17:32: error: the offset of argument 2 of 'tile_load' reads fragment 'm', whose elements each thread holds its own part of: the arguments of a tile operation have one value for the whole block
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int n, const float *x, float *y)
{
#pragma tile grid
    for (int i0 = 0; i0 < n; i0 += 256) {
#pragma tile shared
        float xs[256];
#pragma tile fragment
        float m[256];
        tile_load(m, x, i0, n);
        tile_store(y, m, i0, n);
        tile_load(xs, x + (int)m[0], 0, n);
        tile_store(y, xs, i0, n);
    }
}

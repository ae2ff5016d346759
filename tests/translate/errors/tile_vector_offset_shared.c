// An offset read from a shared tile: the barriers between a block's
// statements do not see reads in a tile operation's arguments.
// expect: 16:32: error: the offset of argument 2 of 'tile_load' reads shared tile 'idx': the barriers tilepp places between a block's statements do not see reads in a tile operation's arguments; read the element into a variable of the block in a statement before
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int n, const float *x, const float *starts, float *y)
{
#pragma tile grid
    for (int i0 = 0; i0 < n; i0 += 256) {
#pragma tile shared
        float xs[256];
#pragma tile shared
        float idx[256];
        tile_load(idx, starts, i0, n);
        tile_load(xs, x + (int)idx[0], 0, n);
        tile_store(y, xs, i0, n);
    }
}

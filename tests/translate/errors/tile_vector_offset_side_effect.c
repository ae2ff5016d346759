// Every thread evaluates a tile operation's arguments, once for each element
// it moves: an offset (or a coordinate) that changes a variable is refused.
// expect: 15:27: error: the offset of argument 2 of 'tile_load' changes a variable ('j++'): every thread of the block evaluates it, once for each element the operation moves; change the variable in a statement before
// expect: 16:27: error: argument 3 of 'tile_store' changes a variable ('j += 256'): every thread of the block evaluates it, once for each element the operation moves; change the variable in a statement before
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int n, const float *x, float *y)
{
#pragma tile grid
    for (int i0 = 0; i0 < n; i0 += 256) {
#pragma tile shared
        float xs[256];
        int j = i0;
        tile_load(xs, x + j++, 0, n - i0);
        tile_store(y, xs, j += 256, n);
    }
}

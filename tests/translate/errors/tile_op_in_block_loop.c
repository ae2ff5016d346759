// A tile operation in a sequential loop of a block.
// expect: 14:13: error: 'tile_load' in a sequential loop of a grid block is not implemented yet in this version of tilepp
// expect: 15:13: error: 'tile_store' in a sequential loop of a grid block is not implemented yet in this version of tilepp
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int rows, int n, const float x[rows][n], float y[rows][n])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
#pragma tile shared
        float t[256];
        for (int c0 = 0; c0 < n; c0 += 256) {
            tile_load(t, x[r], c0, n);
            tile_store(y[r], t, c0, n);
        }
    }
}

// tile_print under an if of a grid block: a print stands between the block's
// statements, where the block's threads agree on it.
// expect: 13:13: error: tile_print in a grid block must be a statement of its own, between the block's statements (not under if, in a loop or in an expression)
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, const float X[M][N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
        int r = by * 64;
        if (r > 0)
            tile_print(r);
    }
}

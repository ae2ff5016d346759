// tile_print of an element of a kernel's array in memory: refused, with the
// way round (read it into a variable of the block first).
// expect: 11:9: error: tile_print on the GPU prints a value of the block, not an element of 'X' in memory: read it into a variable of the block in a statement before and print that
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, const float X[M][N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
        tile_print(X[by][0]);
        Y[by][0] = 1.0f;
    }
}

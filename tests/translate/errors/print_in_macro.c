// tile_print written by another macro: the name it prints is its argument as
// written, which tilepp then cannot see.
// expect: 13:9: error: the argument of tile_print must be written in the file itself, not made by a macro
#include <tilepp/tile.h>

#define SHOW(v) tile_print(v)

#pragma tile kernel threads(128)
void f(int M, int N, const float X[M][N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
        SHOW(by);
#pragma tile parallel
        for (int j = 0; j < N; j++)
            Y[by][j] = X[by][j];
    }
}

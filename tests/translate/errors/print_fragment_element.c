// tile_print of a fragment's element: each thread holds its own elements, so
// the value is not the block's (print the whole fragment).
// expect: 14:9: error: the argument of 'tile_print' reads fragment 'T', whose elements each thread holds its own part of: the arguments of a tile operation have one value for the whole block
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, const float X[M][N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile fragment
        float T[64][64];
        tile_load(T, X, by * 64, 0, M, N);
        tile_print(T[0][0]);
        tile_store(Y, T, by * 64, 0, M, N);
    }
}

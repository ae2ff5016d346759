// A fragment of row values (a tile_reduce_* result) is not stored yet.
// expect: 14:9: error: 1-D fragment 'm' holds one value per row of a 2-D fragment (it is a tile_reduce_* result or read as m[i] in a loop over one); tile_clear, tile_fill and tile_reduce_* take it, this operation does not yet in this version of tilepp
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, const float X[M][N], float mx[M])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile fragment
        float T[64][64], m[64];
        tile_load(T, X, by * 64, 0, M, N);
        tile_reduce_max(T, m, 1, 1);
        tile_store(mx, m, by * 64, M);
    }
}

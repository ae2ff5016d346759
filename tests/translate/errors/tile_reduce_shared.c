// tile_reduce_* of shared tiles is not implemented on the GPU yet.
// expect: 15:9: error: 'tile_reduce_sum' on the GPU takes a 2-D fragment's rows (dim 1) into a 1-D fragment in this version of tilepp (shared tiles and dim 0 are not implemented yet)
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, const half X[M][N], half Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile shared
        half T[64][64];
#pragma tile shared
        float s[64];
        tile_load(T, X, by * 64, 0, M, N);
        tile_reduce_sum(T, s, 1, 1);
        tile_store(Y, T, by * 64, 0, M, N);
    }
}

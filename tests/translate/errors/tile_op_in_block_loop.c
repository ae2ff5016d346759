// Tile operations may stand in a sequential loop of a block; tile
// declarations and pipelined loops may not (a declaration's tile would be a
// new one each iteration, and a block has one pipeline, at its top level).
// expect: 17:1: error: '#pragma tile fragment' in a sequential loop of a grid block is not implemented yet in this version of tilepp (parallel loops, tile operations and products are): declare the block's tiles at its top level
// expect: 26:1: error: '#pragma tile pipelined' in a sequential loop of a grid block is not implemented yet in this version of tilepp (parallel loops, tile operations and products are): a block's pipelined loop stands at its top level
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile shared
        half As[64][32], Bs[32][64];
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
            tile_load(Bs, B, 0, bx * 64, K, N);
#pragma tile fragment
            float Cf[64][64];
        }
    }
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile shared
        half As[64][32], Bs[32][64];
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 64, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 64, K, N);
            }
        }
    }
}

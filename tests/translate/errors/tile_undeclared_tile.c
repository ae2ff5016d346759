// A local array without '#pragma tile shared' or 'fragment' used as a tile.
// One error, at the array; when this was written a second one followed at its
// use in tile_gemm (a cascade), and the first said 'at kernel level' of an
// array inside a grid block.
// expect-prefix: 18:18: error: array 'As'
// expect-not: must be a '#pragma tile shared' or 'fragment' array of this block
// expect-not: at kernel level
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half Bs[32][64];
            half As[64][32];
#pragma tile fragment
            float Cf[64][64];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(Bs, B, k * 32, bx * 64, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 64, bx * 64, M, N);
        }
}

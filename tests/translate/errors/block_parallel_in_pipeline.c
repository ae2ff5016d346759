// A parallel loop over the block's threads inside a pipelined loop.
// expect: 21:1: error: a parallel loop inside a pipelined loop runs over a fragment's elements (each thread its own registers); this one runs over the block's threads: put it before or after the pipelined loop
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N], float *y)
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half As[64][32], Bs[32][64];
#pragma tile fragment
            float Cf[64][64];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 64, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 64, K, N);
                tile_gemm(As, Bs, Cf);
#pragma tile parallel
                for (int i = 0; i < 64; i++)
                    y[i] = 0.0f;
            }
            tile_store(C, Cf, by * 64, bx * 64, M, N);
        }
}

// A matrix-multiply loop nest under '#pragma tile gemm' whose k loop runs
// past B's rows.
// expect: 22:17: error: '#pragma tile gemm': this is not a matrix product C[i][j] += A[i][k] * B[k][j] over whole tiles: its loops must run over the whole tiles (their extents differ from the arrays')
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
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
                #pragma tile gemm
                for (int i = 0; i < 64; i++)
                    for (int j = 0; j < 64; j++)
                        for (int kk = 0; kk < 64; kk++)
                            Cf[i][j] += As[i][kk] * Bs[kk][j];
            }
            tile_store(C, Cf, by * 64, bx * 64, M, N);
        }
}

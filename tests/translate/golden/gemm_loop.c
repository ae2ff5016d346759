/* `#pragma tile gemm` on the user's own triple loop over whole tiles: B as
 * given (C[i][j] += A[i][k] * B[k][j]) and transposed (B[j][k], written as
 * C[i][j] = C[i][j] + ..., with k outermost). */
#include <tilepp/tile.h>

enum { BM = 64, BN = 64, BK = 32 };

#pragma tile kernel threads(128)
void gemm_loop_nn(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, BM); by++)
        for (int bx = 0; bx < tile_cdiv(N, BN); bx++) {
#pragma tile shared
            half As[BM][BK], Bs[BK][BN];
#pragma tile fragment
            float Cf[BM][BN];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, BK); k++) {
                tile_load(As, A, by * BM, k * BK, M, K);
                tile_load(Bs, B, k * BK, bx * BN, K, N);
#pragma tile gemm
                for (int i = 0; i < BM; i++)
                    for (int j = 0; j < BN; j++)
                        for (int kk = 0; kk < BK; kk++)
                            Cf[i][j] += As[i][kk] * Bs[kk][j];
            }
            tile_store(C, Cf, by * BM, bx * BN, M, N);
        }
}

#pragma tile kernel threads(128)
void gemm_loop_nt(int M, int N, int K, const half A[M][K], const half B[N][K], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, BM); by++)
        for (int bx = 0; bx < tile_cdiv(N, BN); bx++) {
#pragma tile shared
            half As[BM][BK], Bs[BN][BK];
#pragma tile fragment
            float Cf[BM][BN];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, BK); k++) {
                tile_load(As, A, by * BM, k * BK, M, K);
                tile_load(Bs, B, bx * BN, k * BK, N, K);
#pragma tile gemm
                for (int kk = 0; kk < BK; kk++)
                    for (int i = 0; i < BM; i++)
                        for (int j = 0; j < BN; j++)
                            Cf[i][j] = Cf[i][j] + As[i][kk] * Bs[j][kk];
            }
            tile_store(C, Cf, by * BM, bx * BN, M, N);
        }
}

/* A matrix parameter that only a loop over fragments inside the pipelined
 * loop reads (a bias added at the first step, as attention adds a mask):
 * the kernels must declare its view (they did not: "identifier 'Bias' is
 * undefined"). */
#include <tilepp/tile.h>

enum { BM = 64, BN = 64, BK = 32 };

#pragma tile kernel threads(128)
void gemm_bias_first(int M, int N, int K, const half A[M][K], const half B[K][N], const float Bias[M][N],
                     float C[M][N])
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
                tile_gemm(As, Bs, Cf);
#pragma tile parallel
                for (int i = 0; i < BM; i++)
                    for (int j = 0; j < BN; j++)
                        if (k == 0 && by * BM + i < M && bx * BN + j < N)
                            Cf[i][j] += Bias[by * BM + i][bx * BN + j];
            }
            tile_store(C, Cf, by * BM, bx * BN, M, N);
        }
}

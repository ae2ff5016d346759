/* `#pragma tile gemm policy(row)` stacks the 4 warps along the rows of the
 * 128 x 128 accumulator (4 x 1); policy(col) puts them side by side (1 x 4).
 * Without a policy the square arrangement (2 x 2) would be chosen. */
#include <tilepp/tile.h>

enum { BM = 128, BN = 128, BK = 32 };

#pragma tile kernel threads(128)
void gemm_rows(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
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
#pragma tile gemm policy(row)
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * BM, bx * BN, M, N);
        }
}

#pragma tile kernel threads(128)
void gemm_cols(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
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
#pragma tile gemm policy(col)
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * BM, bx * BN, M, N);
        }
}

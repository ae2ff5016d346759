/* C = A^T B with A given K x M: tile_gemm_tn on bfloat16 tiles (the bf16
 * mma), float output, two stages, no swizzle. */
#include <tilepp/tile.h>

enum { BM = 128, BN = 128, BK = 32 };

#pragma tile kernel threads(128)
void gemm_tn_bf16(int M, int N, int K, const bfloat16 A[K][M], const bfloat16 B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, BM); by++)
        for (int bx = 0; bx < tile_cdiv(N, BN); bx++) {
#pragma tile shared
            bfloat16 As[BK][BM], Bs[BK][BN];
#pragma tile fragment
            float Cf[BM][BN];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, BK); k++) {
                tile_load(As, A, k * BK, by * BM, K, M);
                tile_load(Bs, B, k * BK, bx * BN, K, N);
                tile_gemm_tn(As, Bs, Cf);
            }
            tile_store(C, Cf, by * BM, bx * BN, M, N);
        }
}

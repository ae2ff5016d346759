/* C = A B^T with B given N x K (a linear layer's weights): tile_gemm_nt on
 * shared tiles Bs[BN][BK], half in, half out, three stages. */
#include <tilepp/tile.h>

enum { BM = 128, BN = 128, BK = 32 };

#pragma tile kernel threads(128)
void gemm_nt(int M, int N, int K, const half A[M][K], const half B[N][K], half C[M][N])
{
#pragma tile grid swizzle(8)
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
                tile_gemm_nt(As, Bs, Cf);
            }
            tile_store(C, Cf, by * BM, bx * BN, M, N);
        }
}

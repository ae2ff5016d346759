/* Grid and pipelined loops in the `i0 += BM` form: the loop variables are
 * element offsets, not block indices. */
#include <tilepp/tile.h>

enum { BM = 64, BN = 128, BK = 32 };

#pragma tile kernel threads(128)
void gemm_stride(int M, int N, int K, const half A[M][K], const half B[K][N], half C[M][N])
{
#pragma tile grid swizzle(2)
    for (int i0 = 0; i0 < M; i0 += BM)
        for (int j0 = 0; j0 < N; j0 += BN) {
#pragma tile shared
            half As[BM][BK], Bs[BK][BN];
#pragma tile fragment
            float Cf[BM][BN];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k0 = 0; k0 < K; k0 += BK) {
                tile_load(As, A, i0, k0, M, K);
                tile_load(Bs, B, k0, j0, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, i0, j0, M, N);
        }
}

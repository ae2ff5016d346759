// tile_print of a GEMM's accumulator after its pipelined loop: the grid has
// no warp-specialized sm_90a variant (the sm_80 kernel prints, on Hopper too).
#include <tilepp/tile.h>

enum { BM = 128, BN = 128, BK = 32 };

#pragma tile kernel threads(128)
void gemm_print(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid swizzle(8)
    for (int by = 0; by < tile_cdiv(M, BM); by++)
        for (int bx = 0; bx < tile_cdiv(N, BN); bx++) {
#pragma tile shared
            half As[BM][BK], Bs[BK][BN];
#pragma tile fragment
            float Cf[BM][BN];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, BK); k++) {
                tile_load(As, A, by * BM, k * BK, M, K);
                tile_load(Bs, B, k * BK, bx * BN, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_print(Cf);
            tile_store(C, Cf, by * BM, bx * BN, M, N);
        }
}

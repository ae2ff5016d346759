/* A GEMM with a SiLU epilogue over 128 x 128 blocks of 256 threads: one
 * consumer warpgroup holds a whole accumulator, so the sm_90a kernel gives
 * the two consumers every other block each (ping-pong: the turn barriers,
 * each warpgroup stepping over the other's stages, a staging pair each),
 * and one's epilogue runs under the other's products. */
#include <math.h>
#include <tilepp/tile.h>

enum { BM = 128, BN = 128, BK = 64 };

#pragma tile kernel threads(256)
void gemm_silu(int M, int N, int K, const half A[M][K], const half B[K][N], const float bias[N], half C[M][N])
{
#pragma tile grid swizzle(8)
    for (int by = 0; by < tile_cdiv(M, BM); by++)
        for (int bx = 0; bx < tile_cdiv(N, BN); bx++) {
#pragma tile shared
            half As[BM][BK], Bs[BK][BN];
#pragma tile fragment
            float Cf[BM][BN];
            tile_clear(Cf);
#pragma tile pipelined stages(4)
            for (int k = 0; k < tile_cdiv(K, BK); k++) {
                tile_load(As, A, by * BM, k * BK, M, K);
                tile_load(Bs, B, k * BK, bx * BN, K, N);
                tile_gemm(As, Bs, Cf);
            }
#pragma tile parallel
            for (int i = 0; i < BM; i++)
                for (int j = 0; j < BN; j++) {
                    float v = Cf[i][j] + (bx * BN + j < N ? bias[bx * BN + j] : 0.0f);
                    Cf[i][j] = v / (1.0f + expf(-v));
                }
            tile_store(C, Cf, by * BM, bx * BN, M, N);
        }
}

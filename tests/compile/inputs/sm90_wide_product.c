/* One consumer warpgroup whose products are m64n256 (128 accumulators a
 * thread) in blocks small enough for two a multiprocessor: lowering asked
 * for two blocks (__launch_bounds__(256, 2), 128 registers) and ptxas then
 * failed on the wgmma, which needs 154 (C7602). It must compile. */
#include <math.h>
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void wide_rows(int M, int N, int K, const half A[M][K], const half B[K][N], half P[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile shared
        half As[64][32], Bs[32][256];
#pragma tile fragment
        float S[64][256], top[64];
        tile_clear(S);
#pragma tile pipelined stages(4)
        for (int k = 0; k < tile_cdiv(K, 32); k++) {
            tile_load(As, A, by * 64, k * 32, M, K);
            tile_load(Bs, B, k * 32, 0, K, N);
            tile_gemm(As, Bs, S);
        }
        tile_reduce_max(S, top, 1, 1);
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 256; j++)
                S[i][j] = expf(S[i][j] - top[i]);
        tile_store(P, S, by * 64, 0, M, N);
    }
}

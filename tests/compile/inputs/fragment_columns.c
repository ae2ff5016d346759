/* Column reductions of fragments (tile_reduce_* along dim 0): shuffles
 * among the lanes that share a column, then shared memory across the warps
 * stacked over the rows, behind barriers: on sm_90a the named barrier of
 * the consumer warpgroups that share a tile (tile90::CONSUMERS_BARRIER),
 * never barrier 0, which the producer warpgroup does not reach. No
 * spills, no local memory. */
#include <tilepp/tile.h>

/* two consumer warpgroups share each 256 x 128 tile on sm_90a */
#pragma tile kernel threads(256)
void col_absmax_gemm(int M, int N, int K, const bfloat16 A[M][K], const bfloat16 B[K][N], bfloat16 C[M][N],
                     float scale[tile_cdiv(M, 256)][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 256); by++)
        for (int bx = 0; bx < tile_cdiv(N, 128); bx++) {
#pragma tile shared
            bfloat16 As[256][32], Bs[32][128];
#pragma tile fragment
            float Cf[256][128];
#pragma tile fragment
            float amax[128];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 256, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 128, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_reduce_absmax(Cf, amax, 0, 1);
#pragma tile parallel
            for (int j = 0; j < 128; j++)
                amax[j] = amax[j] > 0.0f ? amax[j] / 448.0f : 1.0f;
#pragma tile parallel
            for (int i = 0; i < 256; i++)
                for (int j = 0; j < 128; j++)
                    Cf[i][j] /= amax[j];
            tile_store(C, Cf, by * 256, bx * 128, M, N);
            tile_store(scale[by], amax, bx * 128, N);
        }
}

/* strips: column means of 64-row slabs */
#pragma tile kernel threads(256)
void col_means(int M, int N, const half X[M][N], float mean[tile_cdiv(M, 64)][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 256); bx++) {
#pragma tile fragment
            float T[64][256];
#pragma tile fragment
            float s[256];
            tile_load(T, X, by * 64, bx * 256, M, N);
            tile_reduce_sum(T, s, 0, 1);
#pragma tile parallel
            for (int j = 0; j < 256; j++)
                s[j] *= 1.0f / 64.0f;
            tile_store(mean[by], s, bx * 256, N);
        }
}

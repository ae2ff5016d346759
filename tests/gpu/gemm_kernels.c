/* gemm_kernels.c — matrix products through the tile language, one kernel per
 * transposition, element type, output type and schedule; gemm_test.c checks
 * each against its CPU reference (this file, compiled by the C compiler) and
 * against cuBLAS. */
#include <tilepp/tile.h>

enum { BM = 128, BN = 128, BK = 32 };

/* C = A B: A is M x K, B is K x N. */
#pragma tile kernel threads(128)
void gemm_nn(int M, int N, int K, const half A[M][K], const half B[K][N], half C[M][N])
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
            tile_store(C, Cf, by * BM, bx * BN, M, N);
        }
}

/* C = A B^T: B is given as N x K (the layout of a linear layer's weights). */
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

/* C = A^T B: A is given as K x M. bfloat16 in, float out. */
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

/* C = A^T B^T, bfloat16 in and out, 64 x 64 tiles, no overlap (stages(1)),
 * warps stacked along the rows. */
#pragma tile kernel threads(128)
void gemm_tt_bf16(int M, int N, int K, const bfloat16 A[K][M], const bfloat16 B[N][K], bfloat16 C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            bfloat16 As[BK][64], Bs[64][BK];
#pragma tile fragment
            float Cf[64][64];
            tile_clear(Cf);
#pragma tile pipelined stages(1)
            for (int k = 0; k < tile_cdiv(K, BK); k++) {
                tile_load(As, A, k * BK, by * 64, K, M);
                tile_load(Bs, B, bx * 64, k * BK, N, K);
#pragma tile gemm policy(row)
                tile_gemm_tt(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 64, bx * 64, M, N);
        }
}

/* A larger block: 128 x 256 x 64 over 8 warps, 3 stages (144 KB of shared
 * memory), float output. */
#pragma tile kernel threads(256)
void gemm_nn_wide(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid swizzle(4)
    for (int by = 0; by < tile_cdiv(M, 128); by++)
        for (int bx = 0; bx < tile_cdiv(N, 256); bx++) {
#pragma tile shared
            half As[128][64], Bs[64][256];
#pragma tile fragment
            float Cf[128][256];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, 64); k++) {
                tile_load(As, A, by * 128, k * 64, M, K);
                tile_load(Bs, B, k * 64, bx * 256, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 128, bx * 256, M, N);
        }
}

/* A tall block: 192 x 128 x 64 over 12 warps, B given N x K, 4 stages: on
 * Hopper three consumer warpgroups, a 64-row slice of the accumulator
 * each, and the producer's registers given up to them as lowering
 * decides. */
#pragma tile kernel threads(384)
void gemm_nt_tall(int M, int N, int K, const half A[M][K], const half B[N][K], half C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 192); by++)
        for (int bx = 0; bx < tile_cdiv(N, 128); bx++) {
#pragma tile shared
            half As[192][64], Bs[128][64];
#pragma tile fragment
            float Cf[192][128];
            tile_clear(Cf);
#pragma tile pipelined stages(4)
            for (int k = 0; k < tile_cdiv(K, 64); k++) {
                tile_load(As, A, by * 192, k * 64, M, K);
                tile_load(Bs, B, bx * 128, k * 64, N, K);
                tile_gemm_nt(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 192, bx * 128, M, N);
        }
}

/* Batched: a 3-D grid over batches of slices A[b], B[b], C[b]. */
#pragma tile kernel threads(128)
void gemm_batched(int batch, int M, int N, int K, const half A[batch][M][K], const half B[batch][K][N],
                  half C[batch][M][N])
{
#pragma tile grid swizzle(8)
    for (int b = 0; b < batch; b++)
        for (int by = 0; by < tile_cdiv(M, 64); by++)
            for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
                half As[64][BK], Bs[BK][64];
#pragma tile fragment
                float Cf[64][64];
                tile_clear(Cf);
#pragma tile pipelined stages(4)
                for (int k = 0; k < tile_cdiv(K, BK); k++) {
                    tile_load(As, A[b], by * 64, k * BK, M, K);
                    tile_load(Bs, B[b], k * BK, bx * 64, K, N);
                    tile_gemm(As, Bs, Cf);
                }
                tile_store(C[b], Cf, by * 64, bx * 64, M, N);
            }
}

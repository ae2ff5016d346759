/* gemm_bf16.c — the schedules of samples/gemm_schedules.c in bfloat16 (in and
 * out, float accumulation), for bench_gemm.c: C = A B, A M x K, B K x N,
 * C M x N, row-major. Kernel gemm_bf16_<BM>x<BN>x<BK>_s<stages>_t<threads>
 * has the schedule of gemm_<...> there; gemm_bf16_128x128x32_s3_t128 is the
 * schedule of samples/gemm.c. */
#include <tilepp/tile.h>

/* Small blocks, many of them: 4 warps of 32 x 32, double buffered.
 * Shared memory 2 x 8 KB = 16 KB; 32 accumulators per thread. */
#pragma tile kernel threads(128)
void gemm_bf16_64x64x32_s2_t128(int M, int N, int K, const bfloat16 A[M][K], const bfloat16 B[K][N], bfloat16 C[M][N])
{
#pragma tile grid swizzle(8)
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            bfloat16 As[64][32], Bs[32][64];
#pragma tile fragment
            float Cf[64][64];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 64, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 64, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 64, bx * 64, M, N);
        }
}

/* The schedule of gemm.c: 4 warps of 64 x 64, 3 stages.
 * Shared memory 3 x 16 KB = 48 KB; 128 accumulators per thread. */
#pragma tile kernel threads(128)
void gemm_bf16_128x128x32_s3_t128(int M, int N, int K, const bfloat16 A[M][K], const bfloat16 B[K][N], bfloat16 C[M][N])
{
#pragma tile grid swizzle(8)
    for (int by = 0; by < tile_cdiv(M, 128); by++)
        for (int bx = 0; bx < tile_cdiv(N, 128); bx++) {
#pragma tile shared
            bfloat16 As[128][32], Bs[32][128];
#pragma tile fragment
            float Cf[128][128];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 128, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 128, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 128, bx * 128, M, N);
        }
}

/* The same without L2 swizzle (blocks in row-major order).
 * Shared memory 3 x 16 KB = 48 KB; 128 accumulators per thread. */
#pragma tile kernel threads(128)
void gemm_bf16_128x128x32_s3_t128_nosw(int M, int N, int K, const bfloat16 A[M][K], const bfloat16 B[K][N],
                                       bfloat16 C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 128); by++)
        for (int bx = 0; bx < tile_cdiv(N, 128); bx++) {
#pragma tile shared
            bfloat16 As[128][32], Bs[32][128];
#pragma tile fragment
            float Cf[128][128];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 128, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 128, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 128, bx * 128, M, N);
        }
}

/* 8 warps of 64 x 32, 4 stages.
 * Shared memory 4 x 16 KB = 64 KB; 64 accumulators per thread. */
#pragma tile kernel threads(256)
void gemm_bf16_128x128x32_s4_t256(int M, int N, int K, const bfloat16 A[M][K], const bfloat16 B[K][N], bfloat16 C[M][N])
{
#pragma tile grid swizzle(8)
    for (int by = 0; by < tile_cdiv(M, 128); by++)
        for (int bx = 0; bx < tile_cdiv(N, 128); bx++) {
#pragma tile shared
            bfloat16 As[128][32], Bs[32][128];
#pragma tile fragment
            float Cf[128][128];
            tile_clear(Cf);
#pragma tile pipelined stages(4)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 128, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 128, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 128, bx * 128, M, N);
        }
}

/* A deeper k-tile: 4 warps of 64 x 64, 3 stages; two blocks share an SM.
 * Shared memory 3 x 32 KB = 96 KB; 128 accumulators per thread. */
#pragma tile kernel threads(128)
void gemm_bf16_128x128x64_s3_t128(int M, int N, int K, const bfloat16 A[M][K], const bfloat16 B[K][N], bfloat16 C[M][N])
{
#pragma tile grid swizzle(8)
    for (int by = 0; by < tile_cdiv(M, 128); by++)
        for (int bx = 0; bx < tile_cdiv(N, 128); bx++) {
#pragma tile shared
            bfloat16 As[128][64], Bs[64][128];
#pragma tile fragment
            float Cf[128][128];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, 64); k++) {
                tile_load(As, A, by * 128, k * 64, M, K);
                tile_load(Bs, B, k * 64, bx * 128, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 128, bx * 128, M, N);
        }
}

/* A wide block: 8 warps of 64 x 64, 3 stages.
 * Shared memory 3 x 24 KB = 72 KB; 128 accumulators per thread. */
#pragma tile kernel threads(256)
void gemm_bf16_128x256x32_s3_t256(int M, int N, int K, const bfloat16 A[M][K], const bfloat16 B[K][N], bfloat16 C[M][N])
{
#pragma tile grid swizzle(4)
    for (int by = 0; by < tile_cdiv(M, 128); by++)
        for (int bx = 0; bx < tile_cdiv(N, 256); bx++) {
#pragma tile shared
            bfloat16 As[128][32], Bs[32][256];
#pragma tile fragment
            float Cf[128][256];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 128, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 256, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 128, bx * 256, M, N);
        }
}

/* A tall block: 8 warps of 64 x 64, 3 stages.
 * Shared memory 3 x 24 KB = 72 KB; 128 accumulators per thread. */
#pragma tile kernel threads(256)
void gemm_bf16_256x128x32_s3_t256(int M, int N, int K, const bfloat16 A[M][K], const bfloat16 B[K][N], bfloat16 C[M][N])
{
#pragma tile grid swizzle(4)
    for (int by = 0; by < tile_cdiv(M, 256); by++)
        for (int bx = 0; bx < tile_cdiv(N, 128); bx++) {
#pragma tile shared
            bfloat16 As[256][32], Bs[32][128];
#pragma tile fragment
            float Cf[256][128];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 256, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 128, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 256, bx * 128, M, N);
        }
}

/* Wide and deep: 3 stages of 48 KB (144 KB, under sm_80's 163 KB).
 * Shared memory 3 x 48 KB = 144 KB; 128 accumulators per thread. */
#pragma tile kernel threads(256)
void gemm_bf16_128x256x64_s3_t256(int M, int N, int K, const bfloat16 A[M][K], const bfloat16 B[K][N], bfloat16 C[M][N])
{
#pragma tile grid swizzle(4)
    for (int by = 0; by < tile_cdiv(M, 128); by++)
        for (int bx = 0; bx < tile_cdiv(N, 256); bx++) {
#pragma tile shared
            bfloat16 As[128][64], Bs[64][256];
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

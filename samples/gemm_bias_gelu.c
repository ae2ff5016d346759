/* gemm_bias_gelu.c — a fused GEMM epilogue: C = gelu(A * B + bias), the
 * bias and the GELU applied to the accumulator in registers, one store of
 * C; nothing between the product and the activation touches memory.
 *
 * The epilogue is a parallel loop over the accumulator fragment's indices:
 * each thread visits the elements its registers hold (on Hopper, inside the
 * consumer warpgroups of the warp-specialized kernel, before its TMA
 * stores). The bounds test on the bias is the user's, and only where it
 * is needed: the last column of tiles of a ragged N reads no bias past its
 * end, the others (an `if` every thread of the block evaluates alike) read
 * it without a test, each column's once for the rows a thread holds. Two
 * forms of GELU: the tanh approximation of GPT-2 and BERT, and the exact
 * one with erf. Compiled as C, these functions are the CPU reference.
 * Built with nvcc's --use_fast_math, tanhf is the hardware's tanh.approx
 * (bench_epilogue_fast, bench/RESULTS.md). */
#include <math.h>
#include <tilepp/tile.h>

enum { BM = 128, BN = 256, BK = 64, STAGES = 3 };
/* The L2 swizzle panel follows the block, as in gemm_schedules.c: 8 rows of
 * blocks up to 128 x 128, 4 for larger ones (each tuned point's translation
 * gets its own value), so that the fused kernel and the plain GEMM of the
 * same block walk their tiles alike. */
enum { SWIZZLE = BM * BN > 128 * 128 ? 4 : 8 };

static inline float gelu_tanh(float v)
{
    const float k = 0.7978845608028654f; /* sqrt(2 / pi) */
    return 0.5f * v * (1.0f + tanhf(k * (v + 0.044715f * v * v * v)));
}

static inline float gelu_erf(float v) { return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f)); }

/* The block's width, depth and pipeline are tuned on the GPU at hand. With
 * 128 x 128 blocks the two consumer warpgroups of the sm_90a kernel take
 * turns on whole blocks (ping-pong): one's GELU runs under the other's
 * products. With 128 x 256 blocks they share each block, and the tensor
 * cores wait for the epilogue. On Hopper the two cost about the same:
 * beyond the first few instructions an element, each instruction of the
 * epilogue costs the kernel about a cycle even under the other's products
 * (bench/RESULTS.md, session 27). GELU with the exact tanhf is about 24 an
 * element, some 8% of a product 4096 deep. */
#pragma tile kernel threads(256)
#pragma tile tune BN(128, 256) BK(32, 64) STAGES(3, 4)
void gemm_bias_gelu(int M, int N, int K, const half A[M][K], const half B[K][N], const float bias[N], half C[M][N])
{
#pragma tile grid swizzle(SWIZZLE)
    for (int by = 0; by < tile_cdiv(M, BM); by++)
        for (int bx = 0; bx < tile_cdiv(N, BN); bx++) {
#pragma tile shared
            half As[BM][BK], Bs[BK][BN];
#pragma tile fragment
            float Cf[BM][BN];
            tile_clear(Cf);
#pragma tile pipelined stages(STAGES)
            for (int k = 0; k < tile_cdiv(K, BK); k++) {
                tile_load(As, A, by * BM, k * BK, M, K);
                tile_load(Bs, B, k * BK, bx * BN, K, N);
                tile_gemm(As, Bs, Cf);
            }
            if (bx * BN + BN <= N) { /* a whole tile: no bounds test */
#pragma tile parallel
                for (int i = 0; i < BM; i++)
                    for (int j = 0; j < BN; j++)
                        Cf[i][j] = gelu_tanh(Cf[i][j] + bias[bx * BN + j]);
            } else {
#pragma tile parallel
                for (int i = 0; i < BM; i++)
                    for (int j = 0; j < BN; j++) {
                        int c = bx * BN + j;
                        Cf[i][j] = gelu_tanh(Cf[i][j] + (c < N ? bias[c] : 0.0f));
                    }
            }
            tile_store(C, Cf, by * BM, bx * BN, M, N);
        }
}

#pragma tile kernel threads(256)
#pragma tile tune BN(128, 256) BK(32, 64) STAGES(3, 4)
void gemm_bias_gelu_erf(int M, int N, int K, const half A[M][K], const half B[K][N], const float bias[N], half C[M][N])
{
#pragma tile grid swizzle(SWIZZLE)
    for (int by = 0; by < tile_cdiv(M, BM); by++)
        for (int bx = 0; bx < tile_cdiv(N, BN); bx++) {
#pragma tile shared
            half As[BM][BK], Bs[BK][BN];
#pragma tile fragment
            float Cf[BM][BN];
            tile_clear(Cf);
#pragma tile pipelined stages(STAGES)
            for (int k = 0; k < tile_cdiv(K, BK); k++) {
                tile_load(As, A, by * BM, k * BK, M, K);
                tile_load(Bs, B, k * BK, bx * BN, K, N);
                tile_gemm(As, Bs, Cf);
            }
            if (bx * BN + BN <= N) { /* a whole tile: no bounds test */
#pragma tile parallel
                for (int i = 0; i < BM; i++)
                    for (int j = 0; j < BN; j++)
                        Cf[i][j] = gelu_erf(Cf[i][j] + bias[bx * BN + j]);
            } else {
#pragma tile parallel
                for (int i = 0; i < BM; i++)
                    for (int j = 0; j < BN; j++) {
                        int c = bx * BN + j;
                        Cf[i][j] = gelu_erf(Cf[i][j] + (c < N ? bias[c] : 0.0f));
                    }
            }
            tile_store(C, Cf, by * BM, bx * BN, M, N);
        }
}

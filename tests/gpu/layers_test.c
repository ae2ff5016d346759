/* layers_test.c — layers_kernels.c (pieces of a transformer block as a user
 * writes them) against their CPU run on random inputs in [-1, 1], at shapes
 * that are no multiple of the tiles: one element, a ragged last block and
 * tile, rows whose bytes are no multiple of 16 (no tensor maps: the sm_80
 * kernel on Hopper too), and sizes of many blocks.
 *
 * Tolerances: the products add in a different order on each side (about
 * 1e-5 relative for these depths); bfloat16 outputs round to 8 bits (1e-2
 * with the activations' device math), half ones to 11 (2e-3); the column
 * absmax is exact up to the products' order.
 *
 * Prints one line per case and "N passed, N failed"; exits 0 when all
 * passed, 1 otherwise, 77 (SKIPPED) without a CUDA device. */
#include "gpu_check.h"

#include "layers_kernels.tile.h"

/* The CPU references, compiled by the C compiler. */
void batched_linear_silu(int batch, int M, int N, int K, const bfloat16 X[batch][M][K], const bfloat16 W[N][K],
                         const float bias[N], bfloat16 Y[batch][M][N]);
void causal_scores(int M, int N, int K, float temperature, const half Q[M][K], const half Kt[K][N], float P[M][N]);
void scaled_gemm_tn(int M, int N, int K, const half At[K][M], const half B[K][N], const float scale[N], half C[M][N],
                    float colmax[tile_cdiv(M, 128)][N]);
void gemm_residual_rmsnorm(int M, int N, int K, float eps, const half A[M][K], const half B[K][N], const half R[M][N],
                           const float g[N], half Y[M][N]);
void gemm_row_l2norm(int M, int N, int K, const half A[M][K], const half B[K][N], half C[M][N]);
enum { D_MODEL = 128 }; /* layers_kernels.c's */
void mlp_block(int M, int hidden, const bfloat16 X[M][D_MODEL], const bfloat16 W1[D_MODEL][hidden],
               const float b1[hidden], const bfloat16 W2[hidden][D_MODEL], float Y[M][D_MODEL]);

#define TOL_F32 1e-4
#define TOL_HALF 2e-3
#define TOL_BF16 1e-2

static void test_linear_silu(int batch, int M, int N, int K)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_BF16, (size_t)batch * M * K, 0), *w = gc_in(&c, GC_BF16, (size_t)N * K, 0);
    gc_buf *bias = gc_in(&c, GC_F32, N, 0), *y = gc_out(&c, GC_BF16, (size_t)batch * M * N, 0, TOL_BF16);
    batched_linear_silu(batch, M, N, K, x->host, w->host, bias->host, y->host);
    gc_finish(&c, batched_linear_silu_gpu(batch, M, N, K, x->dev, w->dev, bias->dev, y->dev),
              "batched_linear_silu %dx%dx%dx%d", batch, M, N, K);
}

static void test_causal_scores(int M, int N, int K, float temperature)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *q = gc_in(&c, GC_F16, (size_t)M * K, 0), *k = gc_in(&c, GC_F16, (size_t)K * N, 0);
    gc_buf *p = gc_out(&c, GC_F32, (size_t)M * N, 0, TOL_F32);
    causal_scores(M, N, K, temperature, q->host, k->host, p->host);
    gc_finish(&c, causal_scores_gpu(M, N, K, temperature, q->dev, k->dev, p->dev), "causal_scores %dx%dx%d T=%g", M, N,
              K, temperature);
}

static void test_scaled_gemm_tn(int M, int N, int K)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *at = gc_in(&c, GC_F16, (size_t)K * M, 0), *b = gc_in(&c, GC_F16, (size_t)K * N, 0);
    gc_buf *scale = gc_in(&c, GC_F32, N, 0), *out = gc_out(&c, GC_F16, (size_t)M * N, 0, TOL_HALF);
    gc_buf *colmax = gc_out(&c, GC_F32, (size_t)tile_cdiv(M, 128) * N, 0, TOL_F32);
    scaled_gemm_tn(M, N, K, at->host, b->host, scale->host, out->host, colmax->host);
    gc_finish(&c, scaled_gemm_tn_gpu(M, N, K, at->dev, b->dev, scale->dev, out->dev, colmax->dev),
              "scaled_gemm_tn %dx%dx%d", M, N, K);
}

static void test_residual_rmsnorm(int M, int N, int K, float eps)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *a = gc_in(&c, GC_F16, (size_t)M * K, 0), *b = gc_in(&c, GC_F16, (size_t)K * N, 0);
    gc_buf *r = gc_in(&c, GC_F16, (size_t)M * N, 0), *g = gc_in(&c, GC_F32, N, 0);
    gc_buf *y = gc_out(&c, GC_F16, (size_t)M * N, 0, TOL_HALF);
    gemm_residual_rmsnorm(M, N, K, eps, a->host, b->host, r->host, g->host, y->host);
    gc_finish(&c, gemm_residual_rmsnorm_gpu(M, N, K, eps, a->dev, b->dev, r->dev, g->dev, y->dev),
              "gemm_residual_rmsnorm %dx%dx%d", M, N, K);
}

static void test_row_l2norm(int M, int N, int K)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *a = gc_in(&c, GC_F16, (size_t)M * K, 0), *b = gc_in(&c, GC_F16, (size_t)K * N, 0);
    gc_buf *y = gc_out(&c, GC_F16, (size_t)M * N, 0, TOL_HALF);
    gemm_row_l2norm(M, N, K, a->host, b->host, y->host);
    gc_finish(&c, gemm_row_l2norm_gpu(M, N, K, a->dev, b->dev, y->dev), "gemm_row_l2norm %dx%dx%d", M, N, K);
}

static void test_mlp_block(int M, int hidden)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_BF16, (size_t)M * D_MODEL, 0), *w1 = gc_in(&c, GC_BF16, (size_t)D_MODEL * hidden, 0);
    gc_buf *b1 = gc_in(&c, GC_F32, hidden, 0), *w2 = gc_in(&c, GC_BF16, (size_t)hidden * D_MODEL, 0);
    gc_buf *y = gc_out(&c, GC_F32, (size_t)M * D_MODEL, 0, TOL_BF16);
    mlp_block(M, hidden, x->host, w1->host, b1->host, w2->host, y->host);
    gc_finish(&c, mlp_block_gpu(M, hidden, x->dev, w1->dev, b1->dev, w2->dev, y->dev), "mlp_block %dx%d", M, hidden);
}

int main(void)
{
    gc_require_gpu();
    /* one element; rows of 136 and 328 values (tensor maps on Hopper) and of
     * 130 (272 bytes: none); a ragged last tile in M and N; many blocks */
    static const int linear[][4] = {
        {1, 1, 8, 8}, {3, 300, 200, 328}, {2, 129, 257, 136}, {1, 64, 100, 130}, {2, 1024, 1024, 2048}};
    for (size_t i = 0; i < sizeof linear / sizeof *linear; i++)
        test_linear_silu(linear[i][0], linear[i][1], linear[i][2], linear[i][3]);
    static const int scores[][3] = {{1, 1, 8}, {200, 100, 72}, {64, 128, 64}, {333, 17, 40}, {4096, 128, 256}};
    static const float temperatures[] = {1.0f, 0.7f, 2.0f, 0.05f, 1.0f};
    for (size_t i = 0; i < sizeof scores / sizeof *scores; i++)
        test_causal_scores(scores[i][0], scores[i][1], scores[i][2], temperatures[i]);
    static const int tn[][3] = {{1, 8, 8}, {260, 150, 96}, {128, 64, 32}, {1000, 700, 520}, {2048, 2048, 1024}};
    for (size_t i = 0; i < sizeof tn / sizeof *tn; i++)
        test_scaled_gemm_tn(tn[i][0], tn[i][1], tn[i][2]);
    static const int rms[][3] = {{1, 8, 8}, {190, 200, 136}, {64, 256, 64}, {1000, 96, 512}, {8192, 256, 1024}};
    for (size_t i = 0; i < sizeof rms / sizeof *rms; i++)
        test_residual_rmsnorm(rms[i][0], rms[i][1], rms[i][2], i % 2 ? 1e-6f : 1e-5f);
    static const int l2[][3] = {{1, 8, 8}, {100, 256, 64}, {333, 130, 200}, {4096, 256, 2048}};
    for (size_t i = 0; i < sizeof l2 / sizeof *l2; i++)
        test_row_l2norm(l2[i][0], l2[i][1], l2[i][2]);
    /* one hidden tile, a ragged last one, many */
    static const int mlp[][2] = {{1, 8}, {200, 64}, {300, 200}, {4096, 1024}};
    for (size_t i = 0; i < sizeof mlp / sizeof *mlp; i++)
        test_mlp_block(mlp[i][0], mlp[i][1]);
    return gc_summary();
}

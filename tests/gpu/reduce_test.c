/* reduce_test.c — parallel loops inside grid blocks and reductions
 * (samples/softmax.c, layernorm.c, normalize.c and reduce_kernels.c)
 * against their CPU reference on random inputs in [-1, 1] and on hard
 * ones: rows of -inf but one element, large magnitudes, columns no multiple
 * of the vector width, one row and many rows, a block that is the only one.
 *
 * Tolerances follow the floating-point order (pragmas/README.md,
 * "Reductions"): the CPU adds a row left to right, the GPU each thread's
 * share left to right and then the shares in a fixed tree, so sums differ
 * by rounding: a few units of 2^-24 times the square root of the count, far
 * below 1e-5 relative for the row lengths here and 1e-4 for the vectors of
 * millions. max, min, counts, logical and bitwise reductions are exact.
 * Half outputs: one half ulp, ~1e-3, after float math that may differ in
 * the last bits (the device expf): 1e-2, as the other half tests.
 *
 * Prints one line per case and "N passed, N failed"; exits 0 when all
 * passed, 1 otherwise, 77 (SKIPPED) without a CUDA device. */
#include "gpu_check.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "gemm_softmax.tile.h"
#include "layernorm.tile.h"
#include "normalize.tile.h"
#include "reduce_kernels.tile.h"
#include "softmax.tile.h"

/* The CPU references, compiled by the C compiler. */
void softmax_f32(int rows, int cols, int valid, const float x[rows][cols], float y[rows][cols]);
void softmax_f16(int rows, int cols, int valid, const half x[rows][cols], half y[rows][cols]);
void softmax_tile_f16(int rows, int cols, int valid, const half x[rows][cols], half y[rows][cols]);
void layernorm(int rows, int cols, const float x[rows][cols], const float weight[cols], const float bias[cols],
               float y[rows][cols], float mean[rows], float rstd[rows]);
void normalize(int n, const float *x, float *y);
void row_stats(int rows, int cols, float offset, const float x[rows][cols], float lo[rows], float hi[rows],
               float total[rows]);
void online_softmax(int rows, int cols, const float x[rows][cols], float y[rows][cols]);
void shared_row(int rows, int cols, const half x[rows][cols], float y[rows][cols]);
void write_then_read(int rows, int cols, const float x[rows][cols], float t[rows][cols], float y[rows][cols]);
void slice_normalize(int batches, int m, int n, const float x[batches][m][n], float y[batches][m][n]);
void vector_facts(int n, float floor_value, const float *x, float facts[4], float sums[2]);
void scaled_gemm(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N]);
void gemm_bias_relu(int M, int N, int K, const half A[M][K], const half B[K][N], const float bias[N], float C[M][N]);
void gemm_col_center_tall(int M, int N, int K, const bfloat16 A[M][K], const bfloat16 B[K][N], float C[M][N],
                          float sums[tile_cdiv(M, 192)][N], float row_max[tile_cdiv(N, 128)][M]);
void gemm_residual(int M, int N, int K, float alpha, const half A[M][K], const half B[K][N], const float R[M][N],
                   float D[M][N], float S[M][N]);
void half_fragment_scale(int M, int N, float s, const half X[M][N], half Y[M][N]);
void half_slices(int M, int N, const float X[M][N], float rsum[M], float rscaled[M], float csum[tile_cdiv(M, 16)][N]);
void fragment_softmax(int M, int N, const float X[M][N], float Y[M][N]);
void row_scale_shift(int M, int N, float floor_value, const float X[M][N], float Y[M][N]);
void wide_rows(int M, int N, const half X[M][N], half Y[M][N]);
void gemm_softmax_64(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N]);
void gemm_softmax(int M, int N, int K, const half A[M][K], const half B[K][N], half P[M][N]);
void row_max_store(int M, int N, float shift, const float X[M][N], float mx[M], float shifted[M]);
void chain_gemm_bf16(int M, int K, int N1, int N2, const bfloat16 A[M][K], const bfloat16 B[K][N1],
                     const bfloat16 D[N2][N1], float C[M][N2]);
enum { MLP_IN = 64, MLP_OUT = 128 }; /* reduce_kernels.c's */
void fused_mlp(int M, int hidden, const half X[M][MLP_IN], const half W1[MLP_IN][hidden], const float b1[hidden],
               const half W2[hidden][MLP_OUT], float Y[M][MLP_OUT]);
void decayed_attention(int n, float decay, const half Q[n][64], const half K[n][64], const half V[n][64],
                       float O[n][64]);
void column_stats(int M, int N, const half X[M][N], float col_absmax[N], float col_min[N]);
void gemm_col_scale(int M, int N, int K, const half A[M][K], const half B[K][N], half C[M][N],
                    float amax[tile_cdiv(M, 128)][N]);
void gemm_col_center(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N],
                     float sums[tile_cdiv(M, 256)][N], float row_max[tile_cdiv(N, 128)][M]);
void frag_into_shared(int M, int N, const float X[M][N], float rmax[tile_cdiv(N, 128)][M],
                      half csum[tile_cdiv(M, 32)][N]);
void gemm_into_shared(int M, int N, int K, const half A[M][K], const half B[K][N], float rabs[tile_cdiv(N, 64)][M],
                      float cmin[tile_cdiv(M, 64)][N]);
void column_stats_frag(int M, int N, const float X[M][N], float Y[M][N], float cmax[tile_cdiv(M, 64)][N],
                       float csum[tile_cdiv(M, 64)][N], float cmin[tile_cdiv(M, 64)][N]);
void row_sums_shared(int M, int N, const bfloat16 X[M][N], half sums[M]);
void rmsnorm_f16(int rows, int cols, const half x[rows][cols], const float weight[cols], half y[rows][cols],
                 float inv_rms[rows]);
void guarded_gemm(int M, int N, int K, int twice, const half A[M][K], const half B[K][N], const float bias[N],
                  float C[M][N]);
void guarded_rows(int M, int N, int split, const float X[M][N], float Y[M][N], float mx[M]);
void chunked_layernorm(int rows, int cols, float eps, const half x[rows][cols], const float g[cols],
                       half y[rows][cols]);
void column_walk(int rows, int cols, const float x[rows][cols], float cmax[cols], float csum[cols]);
void gemm_plain_loop(int M, int N, int K, const half A[M][K], const half B[K][N], half C[M][N],
                     float sums[tile_cdiv(N, 64)][M]);
void column_walk_shared(int rows, int cols, const bfloat16 x[rows][cols], float amax[cols], float asum[cols]);
void softmax_chunks(int rows, int cols, const half x[rows][cols], half y[rows][cols]);

#define TOL_ROW 1e-5
#define TOL_LONG 1e-4
#define TOL_EXACT 1e-7
#define TOL_HALF 1e-2

/* --small (for the sanitizers, which run kernels far slower): only the
 * cases of at most 2^20 elements. */
static int small_only;
#define TOO_BIG(n) (small_only && (double)(n) > (double)(1 << 20))

typedef enum { DATA_RANDOM, DATA_NEG_INF, DATA_LARGE } data_kind;
static const char *data_names[] = {"random", "-inf rows", "large"};

/* Makes the input hard: each row -inf but one element (at a column that
 * moves from row to row), or values up to +-`large`. */
static void shape_input(gc_buf *x, int rows, int cols, int valid, data_kind kind)
{
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            size_t i = (size_t)r * cols + c;
            float v = x->type == GC_F32 ? ((float *)x->host)[i] : (float)((half *)x->host)[i];
            if (kind == DATA_NEG_INF && c != (r * 7919) % valid)
                v = -INFINITY;
            else if (kind == DATA_LARGE)
                v *= x->type == GC_F32 ? 3e4f : 6e4f;
            if (x->type == GC_F32)
                ((float *)x->host)[i] = v;
            else
                ((half *)x->host)[i] = (half)v;
        }
    SU_CHECK(cudaMemcpy(x->dev, x->host, x->n * gc_size(x->type), cudaMemcpyHostToDevice));
}

static void test_softmax(gc_type t, int rows, int cols, int valid, data_kind kind)
{
    if (TOO_BIG((double)rows * cols))
        return;
    gc_case c;
    gc_begin(&c);
    size_t n = (size_t)rows * cols;
    gc_buf *x = gc_in(&c, t, n, 0), *y = gc_out(&c, t, n, 0, t == GC_F32 ? TOL_ROW : TOL_HALF);
    shape_input(x, rows, cols, valid, kind);
    cudaError_t err;
    if (t == GC_F32) {
        softmax_f32(rows, cols, valid, x->host, y->host);
        err = softmax_f32_gpu(rows, cols, valid, x->dev, y->dev);
    } else {
        softmax_f16(rows, cols, valid, x->host, y->host);
        err = softmax_f16_gpu(rows, cols, valid, x->dev, y->dev);
    }
    gc_finish(&c, err, "softmax_%s %dx%d valid %d %s", t == GC_F32 ? "f32" : "f16", rows, cols, valid,
              data_names[kind]);
}

/* samples/softmax.c's tile form (rows of at most 1024 columns, 16 to a
 * block, the 8 warps side by side over them: the row reductions combine
 * across warps in shared memory). */
static void test_softmax_tile(int rows, int cols, int valid, data_kind kind)
{
    gc_case c;
    gc_begin(&c);
    size_t n = (size_t)rows * cols;
    gc_buf *x = gc_in(&c, GC_F16, n, 0), *y = gc_out(&c, GC_F16, n, 0, TOL_HALF);
    shape_input(x, rows, cols, valid, kind);
    softmax_tile_f16(rows, cols, valid, x->host, y->host);
    gc_finish(&c, softmax_tile_f16_gpu(rows, cols, valid, x->dev, y->dev), "softmax_tile_f16 %dx%d valid %d %s", rows,
              cols, valid, data_names[kind]);
}

static void test_rmsnorm(int rows, int cols)
{
    if (TOO_BIG((double)rows * cols))
        return;
    gc_case c;
    gc_begin(&c);
    size_t n = (size_t)rows * cols;
    gc_buf *x = gc_in(&c, GC_F16, n, 0), *w = gc_in(&c, GC_F32, cols, 0);
    gc_buf *y = gc_out(&c, GC_F16, n, 0, TOL_HALF), *inv = gc_out(&c, GC_F32, rows, 0, TOL_ROW);
    rmsnorm_f16(rows, cols, x->host, w->host, y->host, inv->host);
    gc_finish(&c, rmsnorm_f16_gpu(rows, cols, x->dev, w->dev, y->dev, inv->dev), "rmsnorm_f16 %dx%d", rows, cols);
}

static void test_gemm_bias_relu(int M, int N, int K)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *a = gc_in(&c, GC_F16, (size_t)M * K, 0), *b = gc_in(&c, GC_F16, (size_t)K * N, 0);
    gc_buf *bias = gc_in(&c, GC_F32, N, 0), *out = gc_out(&c, GC_F32, (size_t)M * N, 0, TOL_LONG);
    gemm_bias_relu(M, N, K, a->host, b->host, bias->host, out->host);
    gc_finish(&c, gemm_bias_relu_gpu(M, N, K, a->dev, b->dev, bias->dev, out->dev), "gemm_bias_relu %dx%dx%d", M, N, K);
}

static void test_gemm_residual(int M, int N, int K)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *a = gc_in(&c, GC_F16, (size_t)M * K, 0), *b = gc_in(&c, GC_F16, (size_t)K * N, 0);
    gc_buf *r = gc_in(&c, GC_F32, (size_t)M * N, 0);
    gc_buf *d = gc_out(&c, GC_F32, (size_t)M * N, 0, TOL_LONG), *s = gc_out(&c, GC_F32, (size_t)M * N, 0, TOL_LONG);
    gemm_residual(M, N, K, 0.75f, a->host, b->host, r->host, d->host, s->host);
    gc_finish(&c, gemm_residual_gpu(M, N, K, 0.75f, a->dev, b->dev, r->dev, d->dev, s->dev), "gemm_residual %dx%dx%d",
              M, N, K);
}

static void test_gemm_col_center_tall(int M, int N, int K)
{
    gc_case c;
    gc_begin(&c);
    int mb = (M + 191) / 192;
    gc_buf *a = gc_in(&c, GC_BF16, (size_t)M * K, 0), *b = gc_in(&c, GC_BF16, (size_t)K * N, 0);
    gc_buf *out = gc_out(&c, GC_F32, (size_t)M * N, 0, TOL_LONG);
    gc_buf *sums = gc_out(&c, GC_F32, (size_t)mb * N, 0, TOL_LONG);
    gc_buf *row_max = gc_out(&c, GC_F32, (size_t)((N + 127) / 128) * M, 0, TOL_LONG);
    gemm_col_center_tall(M, N, K, a->host, b->host, out->host, sums->host, row_max->host);
    gc_finish(&c, gemm_col_center_tall_gpu(M, N, K, a->dev, b->dev, out->dev, sums->dev, row_max->dev),
              "gemm_col_center_tall %dx%dx%d", M, N, K);
}

static void test_guarded_gemm(int M, int N, int K, int twice)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *a = gc_in(&c, GC_F16, (size_t)M * K, 0), *b = gc_in(&c, GC_F16, (size_t)K * N, 0);
    gc_buf *bias = gc_in(&c, GC_F32, N, 0), *out = gc_out(&c, GC_F32, (size_t)M * N, 0, TOL_LONG);
    guarded_gemm(M, N, K, twice, a->host, b->host, bias->host, out->host);
    gc_finish(&c, guarded_gemm_gpu(M, N, K, twice, a->dev, b->dev, bias->dev, out->dev),
              "guarded_gemm %dx%dx%d twice=%d", M, N, K, twice);
}

static void test_guarded_rows(int M, int N, int split, data_kind kind)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, (size_t)M * N, 0), *y = gc_out(&c, GC_F32, (size_t)M * N, 0, TOL_ROW);
    gc_buf *mx = gc_out(&c, GC_F32, M, 0, TOL_EXACT);
    shape_input(x, M, N, N, kind);
    guarded_rows(M, N, split, x->host, y->host, mx->host);
    gc_finish(&c, guarded_rows_gpu(M, N, split, x->dev, y->dev, mx->dev), "guarded_rows %dx%d split %d %s", M, N, split,
              data_names[kind]);
}

static void test_half_fragment_scale(int M, int N)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F16, (size_t)M * N, 0), *y = gc_out(&c, GC_F16, (size_t)M * N, 0, TOL_EXACT);
    half_fragment_scale(M, N, 1.7f, x->host, y->host);
    gc_finish(&c, half_fragment_scale_gpu(M, N, 1.7f, x->dev, y->dev), "half_fragment_scale %dx%d", M, N);
}

/* Inputs in multiples of 1/8 in [-4, 4): float sums of them are exact in
 * any order, so the half results must agree bit for bit. */
static void test_half_slices(int M, int N)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, (size_t)M * N, 0);
    gc_buf *rsum = gc_out(&c, GC_F32, (size_t)M, 0, TOL_EXACT), *rscaled = gc_out(&c, GC_F32, (size_t)M, 0, TOL_EXACT);
    gc_buf *csum = gc_out(&c, GC_F32, (size_t)((M + 15) / 16) * N, 0, TOL_EXACT);
    float *xv = x->host;
    for (size_t i = 0; i < x->n; i++)
        xv[i] = floorf(xv[i] * 32.0f) / 8.0f; /* random in [-1, 1]: steps of 1/8 in [-4, 4] */
    SU_CHECK(cudaMemcpy(x->dev, x->host, x->n * sizeof(float), cudaMemcpyHostToDevice));
    half_slices(M, N, x->host, rsum->host, rscaled->host, csum->host);
    gc_finish(&c, half_slices_gpu(M, N, x->dev, rsum->dev, rscaled->dev, csum->dev), "half_slices %dx%d", M, N);
}

static void test_fragment_softmax(int M, int N, data_kind kind)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, (size_t)M * N, 0), *y = gc_out(&c, GC_F32, (size_t)M * N, 0, TOL_ROW);
    shape_input(x, M, N, N, kind);
    fragment_softmax(M, N, x->host, y->host);
    gc_finish(&c, fragment_softmax_gpu(M, N, x->dev, y->dev), "fragment_softmax %dx%d %s", M, N, data_names[kind]);
}

static void test_row_scale_shift(int M, int N)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, (size_t)M * N, 0), *y = gc_out(&c, GC_F32, (size_t)M * N, 0, TOL_ROW);
    row_scale_shift(M, N, 0.25f, x->host, y->host);
    gc_finish(&c, row_scale_shift_gpu(M, N, 0.25f, x->dev, y->dev), "row_scale_shift %dx%d", M, N);
}

static void test_wide_rows(int M, int N, data_kind kind)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F16, (size_t)M * N, 0), *y = gc_out(&c, GC_F16, (size_t)M * N, 0, TOL_HALF);
    shape_input(x, M, N, N, kind);
    wide_rows(M, N, x->host, y->host);
    gc_finish(&c, wide_rows_gpu(M, N, x->dev, y->dev), "wide_rows %dx%d %s", M, N, data_names[kind]);
}

static void test_gemm_softmax(int M, int N, int K)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *a = gc_in(&c, GC_F16, (size_t)M * K, 0), *b = gc_in(&c, GC_F16, (size_t)K * N, 0);
    gc_buf *out = gc_out(&c, GC_F32, (size_t)M * N, 0, TOL_LONG);
    gemm_softmax_64(M, N, K, a->host, b->host, out->host);
    gc_finish(&c, gemm_softmax_64_gpu(M, N, K, a->dev, b->dev, out->dev), "gemm_softmax_64 %dx%dx%d", M, N, K);
}

/* samples/gemm_softmax.c: 128 x 256 tiles, half out. */
static void test_gemm_softmax_sample(int M, int N, int K)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *a = gc_in(&c, GC_F16, (size_t)M * K, 0), *b = gc_in(&c, GC_F16, (size_t)K * N, 0);
    gc_buf *out = gc_out(&c, GC_F16, (size_t)M * N, 0, TOL_HALF);
    gemm_softmax(M, N, K, a->host, b->host, out->host);
    gc_finish(&c, gemm_softmax_gpu(M, N, K, a->dev, b->dev, out->dev), "gemm_softmax (sample) %dx%dx%d", M, N, K);
}

static void test_row_max_store(int M, int N, data_kind kind)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, (size_t)M * N, 0);
    shape_input(x, M, N, N, kind);
    gc_buf *mx = gc_out(&c, GC_F32, (size_t)M, 0, TOL_EXACT), *sh = gc_out(&c, GC_F32, (size_t)M, 0, TOL_EXACT);
    row_max_store(M, N, 0.75f, x->host, mx->host, sh->host);
    gc_finish(&c, row_max_store_gpu(M, N, 0.75f, x->dev, mx->dev, sh->dev), "row_max_store %dx%d %s", M, N,
              data_names[kind]);
}

/* bf16 inputs, S rounded to bf16 on both sides before the second product;
 * fp32 sums in different orders can round S differently (one bf16 ulp,
 * 2^-8 relative) for a few elements. */
static void test_chain_gemm(int M, int K, int N1, int N2)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *a = gc_in(&c, GC_BF16, (size_t)M * K, 0), *b = gc_in(&c, GC_BF16, (size_t)K * N1, 0);
    gc_buf *d = gc_in(&c, GC_BF16, (size_t)N2 * N1, 0);
    gc_buf *out = gc_out(&c, GC_F32, (size_t)M * N2, 0, TOL_HALF);
    chain_gemm_bf16(M, K, N1, N2, a->host, b->host, d->host, out->host);
    gc_finish(&c, chain_gemm_bf16_gpu(M, K, N1, N2, a->dev, b->dev, d->dev, out->dev), "chain_gemm_bf16 %dx%dx%dx%d", M,
              K, N1, N2);
}

/* The hidden activations are rounded to half on both sides before the
 * second product; fp32 sums in different orders can round a few of them
 * differently (one half ulp, 2^-11 relative). */
static void test_fused_mlp(int M, int hidden)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F16, (size_t)M * MLP_IN, 0), *w1 = gc_in(&c, GC_F16, (size_t)MLP_IN * hidden, 0);
    gc_buf *b1 = gc_in(&c, GC_F32, (size_t)hidden, 0), *w2 = gc_in(&c, GC_F16, (size_t)hidden * MLP_OUT, 0);
    gc_buf *y = gc_out(&c, GC_F32, (size_t)M * MLP_OUT, 0, TOL_HALF);
    fused_mlp(M, hidden, x->host, w1->host, b1->host, w2->host, y->host);
    gc_finish(&c, fused_mlp_gpu(M, hidden, x->dev, w1->dev, b1->dev, w2->dev, y->dev), "fused_mlp %dx%d", M, hidden);
}

/* P rounded to half on both sides, as in test_fused_mlp. */
static void test_decayed_attention(int n, float decay)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *q = gc_in(&c, GC_F16, (size_t)n * 64, 0), *k = gc_in(&c, GC_F16, (size_t)n * 64, 0);
    gc_buf *v = gc_in(&c, GC_F16, (size_t)n * 64, 0), *o = gc_out(&c, GC_F32, (size_t)n * 64, 0, TOL_HALF);
    decayed_attention(n, decay, q->host, k->host, v->host, o->host);
    gc_finish(&c, decayed_attention_gpu(n, decay, q->dev, k->dev, v->dev, o->dev), "decayed_attention n=%d decay=%g", n,
              decay);
}

/* Shared-tile reductions take each line in index order, as the CPU does:
 * the same operations in the same order, so exact (half sums too: both
 * round once per call). */
static void test_column_stats(int M, int N, data_kind kind)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F16, (size_t)M * N, 0);
    shape_input(x, M, N, N, kind);
    gc_buf *amax = gc_out(&c, GC_F32, (size_t)N, 0, TOL_EXACT), *cmin = gc_out(&c, GC_F32, (size_t)N, 0, TOL_EXACT);
    column_stats(M, N, x->host, amax->host, cmin->host);
    gc_finish(&c, column_stats_gpu(M, N, x->dev, amax->dev, cmin->dev), "column_stats %dx%d %s", M, N,
              data_names[kind]);
}

/* Column reductions of fragments (dim 0): in a warp by shuffles, across
 * the warps stacked over the rows through shared memory; sums in a tree
 * order, max and absmax exact. */
static void test_gemm_col_scale(int M, int N, int K)
{
    gc_case c;
    gc_begin(&c);
    int mb = (M + 127) / 128;
    gc_buf *a = gc_in(&c, GC_F16, (size_t)M * K, 0), *b = gc_in(&c, GC_F16, (size_t)K * N, 0);
    gc_buf *out = gc_out(&c, GC_F16, (size_t)M * N, 0, TOL_HALF);
    gc_buf *amax = gc_out(&c, GC_F32, (size_t)mb * N, 0, TOL_LONG);
    gemm_col_scale(M, N, K, a->host, b->host, out->host, amax->host);
    gc_finish(&c, gemm_col_scale_gpu(M, N, K, a->dev, b->dev, out->dev, amax->dev), "gemm_col_scale %dx%dx%d", M, N, K);
}

static void test_gemm_col_center(int M, int N, int K)
{
    gc_case c;
    gc_begin(&c);
    int mb = (M + 255) / 256;
    gc_buf *a = gc_in(&c, GC_F16, (size_t)M * K, 0), *b = gc_in(&c, GC_F16, (size_t)K * N, 0);
    gc_buf *out = gc_out(&c, GC_F32, (size_t)M * N, 0, TOL_LONG);
    gc_buf *sums = gc_out(&c, GC_F32, (size_t)mb * N, 0, TOL_LONG);
    gc_buf *row_max = gc_out(&c, GC_F32, (size_t)((N + 127) / 128) * M, 0, TOL_LONG);
    gemm_col_center(M, N, K, a->host, b->host, out->host, sums->host, row_max->host);
    gc_finish(&c, gemm_col_center_gpu(M, N, K, a->dev, b->dev, out->dev, sums->dev, row_max->dev),
              "gemm_col_center %dx%dx%d", M, N, K);
}

static void test_column_stats_frag(int M, int N, data_kind kind)
{
    if (TOO_BIG((double)M * N))
        return;
    gc_case c;
    gc_begin(&c);
    int mb = (M + 63) / 64;
    gc_buf *x = gc_in(&c, GC_F32, (size_t)M * N, 0);
    shape_input(x, M, N, N, kind);
    gc_buf *y = gc_out(&c, GC_F32, (size_t)M * N, 0, TOL_EXACT);
    gc_buf *mx = gc_out(&c, GC_F32, (size_t)mb * N, 0, TOL_EXACT), *sm = gc_out(&c, GC_F32, (size_t)mb * N, 0, TOL_ROW);
    gc_buf *mn = gc_out(&c, GC_F32, (size_t)mb * N, 0, TOL_EXACT);
    column_stats_frag(M, N, x->host, y->host, mx->host, sm->host, mn->host);
    gc_finish(&c, column_stats_frag_gpu(M, N, x->dev, y->dev, mx->dev, sm->dev, mn->dev), "column_stats_frag %dx%d %s",
              M, N, data_names[kind]);
}

static void test_frag_into_shared(int M, int N)
{
    gc_case c;
    gc_begin(&c);
    int mb = (M + 31) / 32, nb = (N + 127) / 128;
    gc_buf *x = gc_in(&c, GC_F32, (size_t)M * N, 0);
    gc_buf *rmax = gc_out(&c, GC_F32, (size_t)nb * M, 0, TOL_EXACT),
           *csum = gc_out(&c, GC_F16, (size_t)mb * N, 0, 1e-3);
    frag_into_shared(M, N, x->host, rmax->host, csum->host);
    gc_finish(&c, frag_into_shared_gpu(M, N, x->dev, rmax->dev, csum->dev), "frag_into_shared %dx%d", M, N);
}

static void test_gemm_into_shared(int M, int N, int K)
{
    gc_case c;
    gc_begin(&c);
    int mb = (M + 63) / 64, nb = (N + 63) / 64;
    gc_buf *a = gc_in(&c, GC_F16, (size_t)M * K, 0), *b = gc_in(&c, GC_F16, (size_t)K * N, 0);
    gc_buf *rabs = gc_out(&c, GC_F32, (size_t)nb * M, 0, TOL_LONG),
           *cmin = gc_out(&c, GC_F32, (size_t)mb * N, 0, TOL_LONG);
    gemm_into_shared(M, N, K, a->host, b->host, rabs->host, cmin->host);
    gc_finish(&c, gemm_into_shared_gpu(M, N, K, a->dev, b->dev, rabs->dev, cmin->dev), "gemm_into_shared %dx%dx%d", M,
              N, K);
}

static void test_row_sums_shared(int M, int N)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_BF16, (size_t)M * N, 0), *sums = gc_out(&c, GC_F16, (size_t)M, 0, TOL_EXACT);
    row_sums_shared(M, N, x->host, sums->host);
    gc_finish(&c, row_sums_shared_gpu(M, N, x->dev, sums->dev), "row_sums_shared %dx%d", M, N);
}

static void test_layernorm(int rows, int cols)
{
    if (TOO_BIG((double)rows * cols))
        return;
    gc_case c;
    gc_begin(&c);
    size_t n = (size_t)rows * cols;
    gc_buf *x = gc_in(&c, GC_F32, n, 0), *w = gc_in(&c, GC_F32, cols, 0), *b = gc_in(&c, GC_F32, cols, 0);
    gc_buf *y = gc_out(&c, GC_F32, n, 0, TOL_ROW), *mean = gc_out(&c, GC_F32, rows, 0, TOL_ROW);
    gc_buf *rstd = gc_out(&c, GC_F32, rows, 0, TOL_ROW);
    layernorm(rows, cols, x->host, w->host, b->host, y->host, mean->host, rstd->host);
    gc_finish(&c, layernorm_gpu(rows, cols, x->dev, w->dev, b->dev, y->dev, mean->dev, rstd->dev), "layernorm %dx%d",
              rows, cols);
}

/* Millions of squares: the C run's left-to-right float sum drifts from the
 * exact one by ~1e-3 relative (each addition rounds at the growing sum's
 * ulp; the GPU's tree of short sums stays within ~1e-6), so from 2^20
 * elements on the reference is the same function in double precision. */
static void normalize_exact(int n, const float *x, float *y)
{
    double ss = 0.0;
    for (int i = 0; i < n; i++)
        ss += (double)x[i] * x[i];
    double inv = ss > 0.0 ? 1.0 / sqrt(ss) : 0.0;
    for (int i = 0; i < n; i++)
        y[i] = (float)(x[i] * inv);
}

static void test_normalize(int n)
{
    if (TOO_BIG(n))
        return;
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, n, 0), *y = gc_out(&c, GC_F32, n, 0, n > 100000 ? TOL_LONG : TOL_ROW);
    bool exact = n >= (1 << 20);
    (exact ? normalize_exact : normalize)(n, x->host, y->host);
    gc_finish(&c, normalize_gpu(n, x->dev, y->dev), "normalize n=%d%s", n, exact ? " (double reference)" : "");
}

static void test_row_stats(int rows, int cols)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, (size_t)rows * cols, 0);
    gc_buf *lo = gc_out(&c, GC_F32, rows, 0, TOL_EXACT), *hi = gc_out(&c, GC_F32, rows, 0, TOL_EXACT);
    gc_buf *total = gc_out(&c, GC_F32, rows, 0, TOL_ROW);
    const float offset = 1000.0f; /* would show if it took part once per thread or per block */
    row_stats(rows, cols, offset, x->host, lo->host, hi->host, total->host);
    gc_finish(&c, row_stats_gpu(rows, cols, offset, x->dev, lo->dev, hi->dev, total->dev), "row_stats %dx%d", rows,
              cols);
}

static void test_online_softmax(int rows, int cols, data_kind kind)
{
    gc_case c;
    gc_begin(&c);
    size_t n = (size_t)rows * cols;
    gc_buf *x = gc_in(&c, GC_F32, n, 0), *y = gc_out(&c, GC_F32, n, 0, TOL_ROW);
    shape_input(x, rows, cols, cols, kind);
    online_softmax(rows, cols, x->host, y->host);
    gc_finish(&c, online_softmax_gpu(rows, cols, x->dev, y->dev), "online_softmax %dx%d %s", rows, cols,
              data_names[kind]);
}

static void test_shared_row(int rows, int cols)
{
    gc_case c;
    gc_begin(&c);
    size_t n = (size_t)rows * cols;
    gc_buf *x = gc_in(&c, GC_F16, n, 0), *y = gc_out(&c, GC_F32, n, 0, TOL_ROW);
    shared_row(rows, cols, x->host, y->host);
    gc_finish(&c, shared_row_gpu(rows, cols, x->dev, y->dev), "shared_row %dx%d", rows, cols);
}

static void test_write_then_read(int rows, int cols)
{
    gc_case c;
    gc_begin(&c);
    size_t n = (size_t)rows * cols;
    gc_buf *x = gc_in(&c, GC_F32, n, 0);
    gc_buf *t = gc_out(&c, GC_F32, n, 0, TOL_EXACT), *y = gc_out(&c, GC_F32, n, 0, TOL_EXACT);
    write_then_read(rows, cols, x->host, t->host, y->host);
    gc_finish(&c, write_then_read_gpu(rows, cols, x->dev, t->dev, y->dev), "write_then_read %dx%d", rows, cols);
}

static void test_slice_normalize(int batches, int m, int n)
{
    if (TOO_BIG((double)batches * m * n))
        return;
    gc_case c;
    gc_begin(&c);
    size_t count = (size_t)batches * m * n;
    gc_buf *x = gc_in(&c, GC_F32, count, 0), *y = gc_out(&c, GC_F32, count, 0, TOL_ROW);
    slice_normalize(batches, m, n, x->host, y->host);
    gc_finish(&c, slice_normalize_gpu(batches, m, n, x->dev, y->dev), "slice_normalize %dx%dx%d", batches, m, n);
}

static void test_vector_facts(int n)
{
    if (TOO_BIG(n))
        return;
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, n, 0);
    gc_buf *facts = gc_out(&c, GC_F32, 4, 0, TOL_EXACT), *sums = gc_out(&c, GC_F32, 2, 0, TOL_LONG);
    const float floor_value = 0.5f;
    vector_facts(n, floor_value, x->host, facts->host, sums->host);
    gc_finish(&c, vector_facts_gpu(n, floor_value, x->dev, facts->dev, sums->dev), "vector_facts n=%d", n);
}

/* fp32 sums of half products in another order than the CPU's: 2^-12, as
 * gemm_test.c. */
static void test_scaled_gemm(int M, int N, int K)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *a = gc_in(&c, GC_F16, (size_t)M * K, 0), *b = gc_in(&c, GC_F16, (size_t)K * N, 0);
    gc_buf *out = gc_out(&c, GC_F32, (size_t)M * N, 0, 0x1p-12);
    scaled_gemm(M, N, K, a->host, b->host, out->host);
    gc_finish(&c, scaled_gemm_gpu(M, N, K, a->dev, b->dev, out->dev), "scaled_gemm %dx%dx%d", M, N, K);
}

/* Tile operations in plain sequential loops of a block. Sums in another
 * order than the CPU's (TOL_LONG); maxima exact; half outputs TOL_HALF. */
static void test_chunked_layernorm(int rows, int cols)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F16, (size_t)rows * cols, 0), *g = gc_in(&c, GC_F32, cols, 0);
    gc_buf *y = gc_out(&c, GC_F16, (size_t)rows * cols, 0, TOL_HALF);
    chunked_layernorm(rows, cols, 1e-5f, x->host, g->host, y->host);
    gc_finish(&c, chunked_layernorm_gpu(rows, cols, 1e-5f, x->dev, g->dev, y->dev), "chunked_layernorm %dx%d", rows,
              cols);
}

static void test_column_walk(int rows, int cols, data_kind kind)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, (size_t)rows * cols, 0);
    if (kind == DATA_LARGE)
        shape_input(x, rows, cols, cols, kind);
    gc_buf *mx = gc_out(&c, GC_F32, cols, 0, TOL_EXACT), *sum = gc_out(&c, GC_F32, cols, 0, TOL_LONG);
    column_walk(rows, cols, x->host, mx->host, sum->host);
    gc_finish(&c, column_walk_gpu(rows, cols, x->dev, mx->dev, sum->dev), "column_walk %dx%d %s", rows, cols,
              data_names[kind]);
}

static void test_gemm_plain_loop(int M, int N, int K)
{
    gc_case c;
    gc_begin(&c);
    int nb = (N + 63) / 64;
    gc_buf *a = gc_in(&c, GC_F16, (size_t)M * K, 0), *b = gc_in(&c, GC_F16, (size_t)K * N, 0);
    gc_buf *out = gc_out(&c, GC_F16, (size_t)M * N, 0, TOL_HALF);
    gc_buf *sums = gc_out(&c, GC_F32, (size_t)nb * M, 0, TOL_LONG);
    gemm_plain_loop(M, N, K, a->host, b->host, out->host, sums->host);
    gc_finish(&c, gemm_plain_loop_gpu(M, N, K, a->dev, b->dev, out->dev, sums->dev), "gemm_plain_loop %dx%dx%d", M, N,
              K);
}

static void test_softmax_chunks(int rows, int cols, data_kind kind)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F16, (size_t)rows * cols, 0), *y = gc_out(&c, GC_F16, (size_t)rows * cols, 0, TOL_HALF);
    shape_input(x, rows, cols, cols, kind);
    softmax_chunks(rows, cols, x->host, y->host);
    gc_finish(&c, softmax_chunks_gpu(rows, cols, x->dev, y->dev), "softmax_chunks %dx%d %s", rows, cols,
              data_names[kind]);
}

static void test_column_walk_shared(int rows, int cols)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_BF16, (size_t)rows * cols, 0);
    gc_buf *mx = gc_out(&c, GC_F32, cols, 0, TOL_EXACT), *sum = gc_out(&c, GC_F32, cols, 0, TOL_LONG);
    column_walk_shared(rows, cols, x->host, mx->host, sum->host);
    gc_finish(&c, column_walk_shared_gpu(rows, cols, x->dev, mx->dev, sum->dev), "column_walk_shared %dx%d", rows,
              cols);
}

int main(int argc, char **argv)
{
    small_only = argc > 1 && strcmp(argv[1], "--small") == 0;
    gc_require_gpu();

    static const int softmax_shapes[][3] = {
        {1, 1, 1},
        {3, 7, 7},
        {5, 33, 30},
        {1, 4096, 4096},
        {97, 1000, 1000},
        {7, 65536, 65000},
        {20000, 32, 32},
        {64, 50304, 50257},
        {2, 8, 3},
        /* rows of 2, 4 and 8 warps (teams of a block, the last block part
         * empty), and the longest a block holds in registers */
        {37, 2000, 1999},
        {11, 3000, 3000},
        {9, 8192, 8191},
    };
    for (size_t i = 0; i < sizeof softmax_shapes / sizeof *softmax_shapes; i++)
        for (int t = 0; t < 2; t++) {
            const int *s = softmax_shapes[i];
            test_softmax(t ? GC_F16 : GC_F32, s[0], s[1], s[2], DATA_RANDOM);
        }
    for (int t = 0; t < 2; t++) {
        test_softmax(t ? GC_F16 : GC_F32, 13, 5001, 4999, DATA_NEG_INF);
        test_softmax(t ? GC_F16 : GC_F32, 13, 5001, 4999, DATA_LARGE);
        test_softmax(t ? GC_F16 : GC_F32, 1, 77, 77, DATA_NEG_INF);
    }
    static const int tile_shapes[][3] = {{1, 1, 1},    {16, 1024, 1024},   {17, 1000, 999}, {300, 256, 256},
                                         {33, 777, 1}, {5000, 1024, 1000}, {64, 8, 0}};
    for (size_t i = 0; i < sizeof tile_shapes / sizeof *tile_shapes; i++)
        test_softmax_tile(tile_shapes[i][0], tile_shapes[i][1], tile_shapes[i][2], DATA_RANDOM);
    test_softmax_tile(45, 1024, 1021, DATA_NEG_INF);
    test_softmax_tile(45, 1024, 1024, DATA_LARGE);

    static const int ln_shapes[][2] = {{1, 1}, {3, 769}, {64, 768}, {8, 4096}, {1000, 33}, {29, 1500}, {5, 9000}};
    for (size_t i = 0; i < sizeof ln_shapes / sizeof *ln_shapes; i++)
        test_layernorm(ln_shapes[i][0], ln_shapes[i][1]);
    /* one warp, two, four (the block), and past what the block holds */
    static const int rms_shapes[][2] = {{1, 8}, {45, 200}, {13, 513}, {6, 1024}, {7, 1030}, {3, 4000}, {2, 20000}};
    for (size_t i = 0; i < sizeof rms_shapes / sizeof *rms_shapes; i++)
        test_rmsnorm(rms_shapes[i][0], rms_shapes[i][1]);

    static const int lengths[] = {1, 7, 1023, 262147, (1 << 22) + 3};
    for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++) {
        test_normalize(lengths[i]);
        test_vector_facts(lengths[i]);
    }

    static const int rows_cols[][2] = {{1, 1}, {1, 129}, {17, 1023}, {300, 1025}, {4, 5000}};
    for (size_t i = 0; i < sizeof rows_cols / sizeof *rows_cols; i++) {
        int r = rows_cols[i][0], cols = rows_cols[i][1];
        test_row_stats(r, cols);
        test_online_softmax(r, cols, DATA_RANDOM);
        test_shared_row(r, cols);
        test_write_then_read(r, cols);
    }
    test_shared_row(5, 2048);
    test_shared_row(3, 3001); /* wider than the shared row: the rest is 0 */
    test_online_softmax(3, 3000, DATA_LARGE);
    test_online_softmax(3, 3000, DATA_NEG_INF);
    test_slice_normalize(1, 1, 1);
    test_slice_normalize(3, 17, 33);
    test_slice_normalize(40, 64, 64);
    test_scaled_gemm(1, 1, 16);
    test_scaled_gemm(200, 130, 96);
    test_scaled_gemm(256, 384, 512);
    /* GEMM epilogues over the accumulator: on Hopper the TMA-aligned shapes
     * (N and K multiples of 8) run the sm_90a variant, the others the sm_80
     * kernel; device_run.sh runs everything again with TILEPP_PATH=sm80. */
    static const int epilogue_shapes[][3] = {{1, 1, 8}, {64, 64, 32}, {100, 77, 40}, {300, 200, 136}, {512, 384, 256}};
    for (size_t i = 0; i < sizeof epilogue_shapes / sizeof *epilogue_shapes; i++) {
        const int *e = epilogue_shapes[i];
        test_gemm_bias_relu(e[0], e[1], e[2]);
        test_gemm_residual(e[0], e[1], e[2]);
    }
    static const int frag_rows[][2] = {{1, 1}, {64, 64}, {100, 50}, {1000, 33}, {129, 64}};
    for (size_t i = 0; i < sizeof frag_rows / sizeof *frag_rows; i++) {
        test_fragment_softmax(frag_rows[i][0], frag_rows[i][1], DATA_RANDOM);
        test_row_scale_shift(frag_rows[i][0], frag_rows[i][1] * 3);
    }
    test_fragment_softmax(77, 40, DATA_NEG_INF);
    test_fragment_softmax(77, 40, DATA_LARGE);
    /* strips across warps; rows of a multiple of 8 halves move in 16-byte strips, the others element by element */
    static const int wide_shapes[][2] = {{1, 1}, {16, 1024}, {100, 1000}, {50, 777}, {33, 8}};
    for (size_t i = 0; i < sizeof wide_shapes / sizeof *wide_shapes; i++)
        test_wide_rows(wide_shapes[i][0], wide_shapes[i][1], DATA_RANDOM);
    test_wide_rows(40, 1024, DATA_LARGE);
    static const int gs_shapes[][3] = {{1, 1, 8}, {64, 64, 32}, {200, 50, 136}, {512, 64, 256}, {300, 64, 40}};
    for (size_t i = 0; i < sizeof gs_shapes / sizeof *gs_shapes; i++)
        test_gemm_softmax(gs_shapes[i][0], gs_shapes[i][1], gs_shapes[i][2]);
    static const int sample_shapes[][3] = {{1, 1, 8}, {128, 256, 64}, {300, 200, 136}, {1000, 256, 512}, {257, 64, 40}};
    for (size_t i = 0; i < sizeof sample_shapes / sizeof *sample_shapes; i++)
        test_gemm_softmax_sample(sample_shapes[i][0], sample_shapes[i][1], sample_shapes[i][2]);
    test_half_fragment_scale(1, 1);
    test_half_fragment_scale(100, 77);
    test_half_fragment_scale(256, 96);
    test_half_slices(16, 256);
    test_half_slices(37, 200);
    test_half_slices(300, 256);
    /* Row fragments stored, and combined with clear = 0 (N past 64: the
     * second block of columns; N below: it reads zeros past the matrix). */
    static const int store_shapes[][2] = {{1, 1}, {64, 128}, {100, 70}, {777, 100}, {130, 40}};
    for (size_t i = 0; i < sizeof store_shapes / sizeof *store_shapes; i++)
        test_row_max_store(store_shapes[i][0], store_shapes[i][1], DATA_RANDOM);
    test_row_max_store(90, 128, DATA_NEG_INF);
    test_row_max_store(90, 128, DATA_LARGE);
    static const int shared_shapes[][2] = {{1, 1}, {64, 64}, {100, 70}, {1000, 130}, {33, 300}};
    for (size_t i = 0; i < sizeof shared_shapes / sizeof *shared_shapes; i++) {
        test_column_stats(shared_shapes[i][0], shared_shapes[i][1], DATA_RANDOM);
        test_row_sums_shared(shared_shapes[i][0], shared_shapes[i][1]);
    }
    test_column_stats(200, 100, DATA_LARGE);
    /* Fragment columns: one warpgroup a tile (ping-pong) and two sharing one
     * on sm_90a; warps stacked over rows on sm_80; strips. */
    static const int col_gemm[][3] = {{1, 1, 8}, {128, 128, 64}, {300, 200, 136}, {513, 384, 256}, {100, 77, 40}};
    for (size_t i = 0; i < sizeof col_gemm / sizeof *col_gemm; i++) {
        test_gemm_col_scale(col_gemm[i][0], col_gemm[i][1], col_gemm[i][2]);
        test_gemm_col_center(col_gemm[i][0], col_gemm[i][1], col_gemm[i][2]);
        test_gemm_col_center_tall(col_gemm[i][0], col_gemm[i][1], col_gemm[i][2]);
    }
    static const int col_frag[][2] = {{1, 1}, {64, 128}, {100, 70}, {1000, 300}, {33, 129}};
    for (size_t i = 0; i < sizeof col_frag / sizeof *col_frag; i++)
        test_column_stats_frag(col_frag[i][0], col_frag[i][1], DATA_RANDOM);
    test_column_stats_frag(130, 256, DATA_LARGE);
    for (size_t i = 0; i < sizeof col_frag / sizeof *col_frag; i++)
        test_frag_into_shared(col_frag[i][0], col_frag[i][1]);
    for (size_t i = 0; i < sizeof col_gemm / sizeof *col_gemm; i++)
        test_gemm_into_shared(col_gemm[i][0], col_gemm[i][1], col_gemm[i][2]);
    /* ifs around parallel loops: K chunks of both signs, ragged and whole
     * blocks, the flag both ways; rows split inside a block, at its edge,
     * before every row and after every row */
    for (size_t i = 0; i < sizeof epilogue_shapes / sizeof *epilogue_shapes; i++)
        for (int twice = 0; twice < 2; twice++)
            test_guarded_gemm(epilogue_shapes[i][0], epilogue_shapes[i][1], epilogue_shapes[i][2], twice);
    static const int split_rows[][3] = {{1, 1, 0}, {100, 50, 45}, {100, 64, 64}, {257, 33, 0}, {200, 64, 300}};
    for (size_t i = 0; i < sizeof split_rows / sizeof *split_rows; i++)
        test_guarded_rows(split_rows[i][0], split_rows[i][1], split_rows[i][2], DATA_RANDOM);
    test_guarded_rows(90, 64, 40, DATA_LARGE);
    static const int chain_shapes[][4] = {{1, 8, 8, 1}, {64, 32, 64, 64}, {100, 72, 40, 130}, {300, 256, 64, 200}};
    for (size_t i = 0; i < sizeof chain_shapes / sizeof *chain_shapes; i++) {
        const int *e = chain_shapes[i];
        test_chain_gemm(e[0], e[1], e[2], e[3]);
    }
    /* one hidden tile and many, a ragged last one, one block and many, a ragged last block */
    static const int mlp_shapes[][2] = {{1, 1}, {128, 64}, {200, 100}, {1000, 1000}, {4100, 3072}};
    for (size_t i = 0; i < sizeof mlp_shapes / sizeof *mlp_shapes; i++)
        test_fused_mlp(mlp_shapes[i][0], mlp_shapes[i][1]);
    /* one key tile, a ragged last one, many; decay 1 (plain sums) and below */
    static const int decay_lengths[] = {1, 100, 1000, 4097};
    for (size_t i = 0; i < sizeof decay_lengths / sizeof *decay_lengths; i++)
        for (int d = 0; d < 2; d++)
            test_decayed_attention(decay_lengths[i], d ? 0.875f : 1.0f);

    /* tile operations in plain loops of a block: one chunk, several, a ragged last one */
    static const int walk_shapes[][2] = {{1, 1}, {3, 256}, {40, 1000}, {17, 4097}, {300, 130}};
    for (size_t i = 0; i < sizeof walk_shapes / sizeof *walk_shapes; i++) {
        test_chunked_layernorm(walk_shapes[i][0], walk_shapes[i][1]);
        test_column_walk(walk_shapes[i][1], walk_shapes[i][0], DATA_RANDOM);
        test_column_walk_shared(walk_shapes[i][1], walk_shapes[i][0]);
    }
    test_column_walk(1000, 200, DATA_LARGE);
    static const int chunk_rows[][2] = {{1, 1}, {8, 512}, {13, 1500}, {20, 33000}, {3, 100000}};
    for (size_t i = 0; i < sizeof chunk_rows / sizeof *chunk_rows; i++)
        test_softmax_chunks(chunk_rows[i][0], chunk_rows[i][1], DATA_RANDOM);
    test_softmax_chunks(9, 5000, DATA_NEG_INF);
    test_softmax_chunks(9, 5000, DATA_LARGE);
    for (size_t i = 0; i < sizeof epilogue_shapes / sizeof *epilogue_shapes; i++)
        test_gemm_plain_loop(epilogue_shapes[i][0], epilogue_shapes[i][1], epilogue_shapes[i][2]);

    return gc_summary();
}

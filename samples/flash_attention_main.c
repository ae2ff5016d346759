/* flash_attention_main.c — runs the FlashAttention sample
 * (flash_attention.c: O = softmax(scale Q K^T) V in one kernel, the scores
 * never in memory; Q, K, V, O half, [batch][heads][seq][HEAD_DIM]), causal
 * and non-causal, in two parts:
 *
 *   1. correctness, at small shapes whose sequence no tile (128 query rows,
 *      64 keys) divides, on fresh random inputs (uniform in [-1, 1], never
 *      0), scale 1/sqrt(HEAD_DIM): the launcher against
 *        - the CPU run of the same function (the file compiled by the C
 *          compiler), and
 *        - an independent reference: naive attention in double, a plain
 *          loop (every score, the softmax, the product with V);
 *      the file's second kernel, flash_attention_gqa (the [batch][seq]
 *      [heads][HEAD_DIM] layout, several query heads per K/V head), against
 *      its CPU run. GPU outputs start poisoned (NaN), with poisoned guard
 *      zones on both sides, so an element not written, or one written
 *      outside O, shows;
 *   2. speed, at 4 x 32 x 4096 x 128 (batch x heads x seq x head dim),
 *      causal and non-causal: each result first checked (every element
 *      written; 96 query rows against the double-precision loop; the
 *      non-causal one also against the unfused attention below), then timed;
 *      TFLOP/s from 4 B H N^2 D FLOPs, halved for causal (as
 *      bench/bench_attention.py counts). The non-causal time is set next to
 *      the natural unfused attention, timed in turns with it: cuBLAS
 *      S = scale Q K^T (batched, fp32 accumulation, half out), samples/
 *      softmax.c's softmax_f16 over S's rows, cuBLAS O = P V; S and P go
 *      through memory (2 x B H N^2 halves), which is what FlashAttention
 *      avoids. (softmax_f16 has no causal mask, so causal has no such
 *      reference here; bench/bench_attention.py compares both with PyTorch.)
 *
 * The kernels are built with nvcc -ftz=true, as bench/ builds them (see
 * samples/CMakeLists.txt).
 *
 * Exit status: 0 when every check passed, 1 on a wrong result or a CUDA
 * error; without a CUDA device the CPU part runs, then "SKIPPED: ..." and
 * 77. */
#include <stdio.h>

#include <tilepp/bench.h>

#include "cublas_ref.h"
#include "flash_attention.tile.h"
#include "sample_check.h"
#include "softmax.tile.h"

/* The head dimension the sample was built with (its default). */
#ifndef HEAD_DIM
#define HEAD_DIM 128
#endif
enum { D = HEAD_DIM };

/* The CPU references, compiled from flash_attention.c by the C compiler. */
void flash_attention(int batch, int heads, int seq, int causal, float scale, const half Q[batch][heads][seq][HEAD_DIM],
                     const half K[batch][heads][seq][HEAD_DIM], const half V[batch][heads][seq][HEAD_DIM],
                     half O[batch][heads][seq][HEAD_DIM]);
void flash_attention_gqa(int batch, int heads, int kv_heads, int seq, int causal, float scale,
                         const half Q[batch][seq][heads * HEAD_DIM], const half K[batch][seq][kv_heads * HEAD_DIM],
                         const half V[batch][seq][kv_heads * HEAD_DIM], half O[batch][seq][heads * HEAD_DIM]);

/* The correctness shapes (batch, heads, seq): three query blocks, the last
 * ragged, and six key tiles, the last ragged; one partial block and tile. */
static const int shapes[2][3] = {{2, 3, 333}, {1, 2, 50}};
/* flash_attention_gqa: batch, query heads, K/V heads, seq. */
static const int gqa_shape[4] = {2, 8, 2, 200};
/* The timed shape (one of bench/bench_attention.py's). */
enum { TB = 4, TH = 32, TN = 4096, SPOT_HEADS = 8, SPOT_ROWS = 12 };

/* Tolerances (relative error ||GPU - ref|| / ||ref||).
 * Against the CPU run: both sides round the probabilities P to half
 * before P V, and O to half at the end; they differ by exp2f's last bits
 * (device and libm), which can move a P by one half ulp, and by the order
 * of the sums. tests/gpu/attention_test measures 1e-5 to 6e-5 on an H200;
 * a wrong mask, tile or row gives 1e-2 and more.
 * Against the double-precision loop: P rounded to half (2^-11 relative,
 * errors that average out over a row) and O's rounding: ~4e-4 (the bench
 * measures 3.8e-4 against PyTorch).
 * Against the unfused attention: that one rounds S, P and O to half: ~5e-4. */
#define TOL_CPU 1e-3
#define TOL_EXACT 2e-3
#define TOL_UNFUSED 3e-3
/* Elementwise, against the CPU run: 4 half ulps (2^-8) relative, or 2^-7
 * of the output's rms absolute near 0: in the first rows of a causal head a
 * probability of ~0.5 that rounds the other way moves an output that sums
 * to ~0 by up to 2^-12, a few times 2^-10 of the rms. */
#define RTOL_CPU 0x1p-8
#define ATOL_RMS 0x1p-7

/* An array's shape, to name an element: dims[0..4) with the layout's
 * names, the last one the head dimension. */
typedef struct {
    int dims[4];
    const char *names[4];
} layout;

static layout bhnd(int batch, int heads, int seq)
{
    layout l = {{batch, heads, seq, D}, {"batch", "head", "query", "d"}};
    return l;
}

/* Element i of the layout *ctx, named ("batch 0, head 2, query 17, d 5");
 * a sample_where_fn, for the messages of sample_check.h. */
static void describe(const void *ctx, size_t i, char *buf, size_t len)
{
    const layout *l = ctx;
    size_t idx[4];
    for (int k = 3; k >= 0; k--)
        idx[k] = i % (size_t)l->dims[k], i /= (size_t)l->dims[k];
    snprintf(buf, len, "%s %zu, %s %zu, %s %zu, %s %zu", l->names[0], idx[0], l->names[1], idx[1], l->names[2], idx[2],
             l->names[3], idx[3]);
}

static sample_where where_in(const layout *l)
{
    sample_where w = {describe, l};
    return w;
}

/* The verdict of a whole output: the guards, every element written, the
 * norm-wise relative error against ref (of the same shape) below tol and,
 * with rtol > 0, every element close (sample_check_elements). Prints one
 * line, and on FAIL why. Returns 1 on PASS. */
static int verdict(const char *label, const layout *l, const half *out, const half *ref, double tol, double rtol,
                   const char *damage)
{
    size_t n = (size_t)l->dims[0] * l->dims[1] * l->dims[2] * l->dims[3];
    sample_cmp c = sample_compare(out, ref, n, rtol, ATOL_RMS, where_in(l));
    int ok = !damage && c.unwritten == 0 && c.err < tol && c.close_ok;
    printf("  %-55s %s  relative error %.2e (tolerance %.0e)\n", label, ok ? "PASS" : "FAIL", c.err, tol);
    sample_print_failures(&c, damage, where_in(l));
    if (!(c.err < tol)) /* (not for the guards alone) */
        sample_print_worst(out, ref, n, where_in(l));
    fflush(stdout);
    return ok;
}

/* ---- the independent reference: naive attention in double -------------------- */

/* Head (b, h) of a BHND array as floats (exact copies of the halves). */
static float *head_of(const half *X, int heads, int seq, int b, int h)
{
    const half *src = X + ((size_t)b * heads + h) * (size_t)seq * D;
    float *f = tile_check_xmalloc((size_t)seq * D * sizeof(float));
    for (size_t i = 0; i < (size_t)seq * D; i++)
        f[i] = (float)src[i];
    return f;
}

/* O's row s of one head, in double: p_j = exp(scale q.k_j - max) over the
 * keys j the query sees (j <= s when causal), o = sum_j p_j v_j / sum_j p_j.
 * e: scratch of seq doubles. */
static void naive_row(const float *q, const float *k, const float *v, int seq, int causal, double scale, int s,
                      double *e, double o[D])
{
    int keys = causal ? s + 1 : seq;
    double max = -INFINITY, sum = 0.0;
    for (int j = 0; j < keys; j++) {
        double dot = 0.0;
        for (int d = 0; d < D; d++)
            dot += (double)q[(size_t)s * D + d] * k[(size_t)j * D + d];
        e[j] = scale * dot;
        max = fmax(max, e[j]);
    }
    for (int d = 0; d < D; d++)
        o[d] = 0.0;
    for (int j = 0; j < keys; j++) {
        e[j] = exp(e[j] - max);
        sum += e[j];
        for (int d = 0; d < D; d++)
            o[d] += e[j] * v[(size_t)j * D + d];
    }
    for (int d = 0; d < D; d++)
        o[d] /= sum;
}

/* The GPU's O (BHND) against the double-precision loop, on the query rows
 * rows[0..nrows) of the heads heads_at[0..nheads) (pairs b, h). Prints one
 * line, and on FAIL the element that differs most. Returns 1 on PASS. */
static int check_exact(const char *label, const half *Q, const half *K, const half *V, const half *out, int batch,
                       int heads, int seq, int causal, float scale, const int (*heads_at)[2], int nheads,
                       const int *rows, int nrows)
{
    double diff2 = 0.0, ref2 = 0.0, worst_d = -1.0, worst_gpu = 0.0, worst_ref = 0.0, o[D];
    size_t worst = 0;
    int nan_seen = 0; /* the first NaN is the worst element */
    double *e = tile_check_xmalloc((size_t)seq * sizeof(double));
    for (int hi = 0; hi < nheads; hi++) {
        int b = heads_at[hi][0], h = heads_at[hi][1];
        float *q = head_of(Q, heads, seq, b, h), *k = head_of(K, heads, seq, b, h), *v = head_of(V, heads, seq, b, h);
        for (int r = 0; r < nrows; r++) {
            int s = rows[r];
            naive_row(q, k, v, seq, causal, scale, s, e, o);
            size_t at = (((size_t)b * heads + h) * seq + s) * D;
            for (int d = 0; d < D; d++) {
                double g = (double)out[at + d], dd = fabs(g - o[d]);
                diff2 += (g - o[d]) * (g - o[d]);
                ref2 += o[d] * o[d];
                if (isnan(dd) ? !nan_seen : !nan_seen && dd > worst_d)
                    nan_seen = isnan(dd), worst_d = dd, worst = at + d, worst_gpu = g, worst_ref = o[d];
            }
        }
        free(q), free(k), free(v);
    }
    free(e);
    double err = sqrt(diff2 / ref2);
    int ok = err < TOL_EXACT;
    printf("  %-55s %s  relative error %.2e (tolerance %.0e)\n", label, ok ? "PASS" : "FAIL", err, TOL_EXACT);
    if (!ok) {
        char where[128];
        layout l = bhnd(batch, heads, seq);
        describe(&l, worst, where, sizeof where);
        printf("      largest difference at %s: GPU %.6g, double-precision loop %.6g\n", where, worst_gpu, worst_ref);
    }
    fflush(stdout);
    return ok;
}

/* ---- part 1: small shapes, against the CPU run and the double loop ------------ */

typedef struct {
    int batch, heads, seq;
    half *Q, *K, *V, *ref[2]; /* ref[causal]: the CPU run's O */
} small_case;

static void small_cpu(small_case *c, int batch, int heads, int seq, uint64_t seed)
{
    size_t n = (size_t)batch * heads * seq * D;
    const float scale = 1.0f / sqrtf((float)D);
    c->batch = batch, c->heads = heads, c->seq = seq;
    c->Q = tile_check_xmalloc(n * sizeof(half));
    c->K = tile_check_xmalloc(n * sizeof(half));
    c->V = tile_check_xmalloc(n * sizeof(half));
    tile_check_rng rng = tile_check_rng_seed(seed);
    tile_check_fill(TILE_CHECK_F16, c->Q, n, &rng);
    tile_check_fill(TILE_CHECK_F16, c->K, n, &rng);
    tile_check_fill(TILE_CHECK_F16, c->V, n, &rng);
    for (int causal = 0; causal < 2; causal++) {
        c->ref[causal] = tile_check_xmalloc(n * sizeof(half));
        tile_check_poison_host(c->ref[causal], n * sizeof(half));
        double t0 = sample_seconds();
        flash_attention(batch, heads, seq, causal, scale, (const half(*)[heads][seq][D])c->Q,
                        (const half(*)[heads][seq][D])c->K, (const half(*)[heads][seq][D])c->V,
                        (half(*)[heads][seq][D])c->ref[causal]);
        printf("  flash_attention      %d x %d x %3d x %d  %-10s  %6.3f s   O[0][0][0][0] = %.4g\n", batch, heads, seq,
               D, causal ? "causal" : "non-causal", sample_seconds() - t0, (double)c->ref[causal][0]);
    }
}

static int small_gpu(const small_case *c)
{
    int batch = c->batch, heads = c->heads, seq = c->seq, ok = 1;
    size_t n = (size_t)batch * heads * seq * D, bytes = n * sizeof(half);
    const float scale = 1.0f / sqrtf((float)D);
    half *dQ = tile_check_to_device(c->Q, bytes), *dK = tile_check_to_device(c->K, bytes);
    half *dV = tile_check_to_device(c->V, bytes);
    layout l = bhnd(batch, heads, seq);
    /* every query row of every head against the double loop */
    int(*heads_at)[2] = tile_check_xmalloc((size_t)batch * heads * sizeof *heads_at);
    int *rows = tile_check_xmalloc((size_t)seq * sizeof *rows);
    for (int i = 0; i < batch * heads; i++)
        heads_at[i][0] = i / heads, heads_at[i][1] = i % heads;
    for (int s = 0; s < seq; s++)
        rows[s] = s;
    for (int causal = 0; causal < 2; causal++) {
        half *dO = sample_output_alloc(bytes);
        const char *damage;
        TILE_CHECK_CUDA(flash_attention_gpu(batch, heads, seq, causal, scale, dQ, dK, dV, dO));
        half *out = sample_output_fetch(dO, bytes, &damage);
        char label[96];
        snprintf(label, sizeof label, "%d x %d x %3d %-10s vs CPU run", batch, heads, seq,
                 causal ? "causal" : "non-causal");
        ok &= verdict(label, &l, out, c->ref[causal], TOL_CPU, RTOL_CPU, damage);
        /* also when the line above failed: it tells which side is wrong */
        snprintf(label, sizeof label, "%d x %d x %3d %-10s vs double-precision loop", batch, heads, seq,
                 causal ? "causal" : "non-causal");
        ok &= check_exact(label, c->Q, c->K, c->V, out, batch, heads, seq, causal, scale, (const int(*)[2])heads_at,
                          batch * heads, rows, seq);
        free(out);
        sample_output_free(dO);
    }
    free(heads_at), free(rows);
    TILE_CHECK_CUDA(cudaFree(dQ));
    TILE_CHECK_CUDA(cudaFree(dK));
    TILE_CHECK_CUDA(cudaFree(dV));
    return ok;
}

/* flash_attention_gqa against its CPU run, causal and not. */
static int gqa_check(void)
{
    const int batch = gqa_shape[0], heads = gqa_shape[1], kv_heads = gqa_shape[2], seq = gqa_shape[3];
    const float scale = 1.0f / sqrtf((float)D);
    size_t nq = (size_t)batch * seq * heads * D, nkv = (size_t)batch * seq * kv_heads * D;
    half *Q = tile_check_xmalloc(nq * sizeof(half)), *K = tile_check_xmalloc(nkv * sizeof(half));
    half *V = tile_check_xmalloc(nkv * sizeof(half)), *ref = tile_check_xmalloc(nq * sizeof(half));
    tile_check_rng rng = tile_check_rng_seed(303);
    tile_check_fill(TILE_CHECK_F16, Q, nq, &rng);
    tile_check_fill(TILE_CHECK_F16, K, nkv, &rng);
    tile_check_fill(TILE_CHECK_F16, V, nkv, &rng);
    half *dQ = tile_check_to_device(Q, nq * sizeof(half)), *dK = tile_check_to_device(K, nkv * sizeof(half));
    half *dV = tile_check_to_device(V, nkv * sizeof(half));
    layout l = {{batch, seq, heads, D}, {"batch", "query", "head", "d"}};
    int ok = 1;
    for (int causal = 0; causal < 2; causal++) {
        tile_check_poison_host(ref, nq * sizeof(half));
        flash_attention_gqa(batch, heads, kv_heads, seq, causal, scale, (const half(*)[seq][heads * D])Q,
                            (const half(*)[seq][kv_heads * D])K, (const half(*)[seq][kv_heads * D])V,
                            (half(*)[seq][heads * D])ref);
        half *dO = sample_output_alloc(nq * sizeof(half));
        const char *damage;
        TILE_CHECK_CUDA(flash_attention_gqa_gpu(batch, heads, kv_heads, seq, causal, scale, dQ, dK, dV, dO));
        half *out = sample_output_fetch(dO, nq * sizeof(half), &damage);
        char label[96];
        snprintf(label, sizeof label, "gqa %d x %d/%d x %d %-10s vs CPU run", batch, heads, kv_heads, seq,
                 causal ? "causal" : "non-causal");
        ok &= verdict(label, &l, out, ref, TOL_CPU, RTOL_CPU, damage);
        free(out);
        sample_output_free(dO);
    }
    TILE_CHECK_CUDA(cudaFree(dQ));
    TILE_CHECK_CUDA(cudaFree(dK));
    TILE_CHECK_CUDA(cudaFree(dV));
    free(Q), free(K), free(V), free(ref);
    return ok;
}

/* ---- part 2: timed ------------------------------------------------------------ */

static cublasHandle_t blas;

/* The timed problem. A buffer set: Q | K | V | O, O the guarded output;
 * the unfused attention's S and P (one pair for every set) and its output
 * U. */
typedef struct {
    int batch, heads, seq;
    float scale;
    size_t qkv_bytes; /* one of Q, K, V, O */
    sample_sets sets;
    half *S, *P, *U;
} problem;

enum { PART_Q, PART_K, PART_V, PART_O, NPARTS };

static half *part(const problem *p, int set, int which) { return sample_sets_part(&p->sets, set, which); }

static cudaError_t run_tilepp(const problem *p, int set, int causal)
{
    return flash_attention_gpu(p->batch, p->heads, p->seq, causal, p->scale, part(p, set, PART_Q),
                               part(p, set, PART_K), part(p, set, PART_V), part(p, set, PART_O));
}

static cudaError_t run_noncausal(void *ctx, int set) { return run_tilepp(ctx, set, 0); }
static cudaError_t run_causal(void *ctx, int set) { return run_tilepp(ctx, set, 1); }

/* The unfused attention into U: S = scale Q K^T, P = softmax(S) by rows,
 * U = P V, head by head as cuBLAS batches (row-major as column-major: S^T =
 * K Q^T, U^T = V^T P^T; see common/cublas_ref.h). */
static cudaError_t run_unfused(void *ctx, int set)
{
    const problem *p = ctx;
    const int n = p->seq, heads = p->batch * p->heads;
    const long long nd = (long long)n * D, nn = (long long)n * n;
    const float one = 1.0f, zero = 0.0f;
    cudaError_t err = cr_to_cuda(
        cublasGemmStridedBatchedEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, n, n, D, &p->scale, part(p, set, PART_K),
                                   CUDA_R_16F, D, nd, part(p, set, PART_Q), CUDA_R_16F, D, nd, &zero, p->S,
                                   CUDA_R_16F, n, nn, heads, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "cublasGemmStridedBatchedEx (S = Q K^T)");
    /* the softmax in launches of at most 2^30 elements */
    long long rows = (long long)heads * n, chunk = (1LL << 30) / n > 0 ? (1LL << 30) / n : 1;
    for (long long r = 0; r < rows && err == cudaSuccess; r += chunk) {
        int m = (int)(rows - r < chunk ? rows - r : chunk);
        err = softmax_f16_gpu(m, n, n, p->S + r * n, p->P + r * n);
    }
    if (err == cudaSuccess)
        err = cr_to_cuda(cublasGemmStridedBatchedEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, D, n, n, &one,
                                                    part(p, set, PART_V), CUDA_R_16F, D, nd, p->P, CUDA_R_16F, n,
                                                    nn, &zero, p->U, CUDA_R_16F, D, nd, heads, CUBLAS_COMPUTE_32F,
                                                    CUBLAS_GEMM_DEFAULT),
                         "cublasGemmStridedBatchedEx (O = P V)");
    return err;
}

/* The tilepp result of set 0 (sample_sets_result). */
static half *tilepp_result(problem *p, int causal, const char **damage)
{
    return sample_sets_result(&p->sets, PART_O, p->qkv_bytes, causal ? run_causal : run_noncausal, p, damage);
}

static int timed(int batch, int heads, int seq)
{
    problem p = {.batch = batch, .heads = heads, .seq = seq, .scale = 1.0f / sqrtf((float)D)};
    const size_t n = (size_t)batch * heads * seq * D;
    p.qkv_bytes = n * sizeof(half);
    const size_t bytes[NPARTS] = {p.qkv_bytes, p.qkv_bytes, p.qkv_bytes, p.qkv_bytes};
    sample_sets_layout(&p.sets, bytes, NPARTS, PART_O);
    const int nsets = p.sets.nsets;
    const double flop = 4.0 * batch * heads * (double)seq * seq * D;
    printf("\n2. speed at %d x %d x %d x %d (batch x heads x seq x head dim), fp16, scale 1/sqrt(%d);\n"
           "   %d buffer set(s) rotating over %dx the L2 cache\n",
           batch, heads, seq, D, D, nsets, TILE_BENCH_L2_FACTOR);

    /* fresh inputs (all that comes before O), the same in every set */
    double t0 = sample_seconds();
    const size_t *off = p.sets.off;
    char *host = tile_check_xmalloc(off[PART_O]);
    half *Q = (half *)(host + off[PART_Q]), *K = (half *)(host + off[PART_K]), *V = (half *)(host + off[PART_V]);
    tile_check_rng rng = tile_check_rng_seed(0xfa5u + (uint64_t)seq);
    tile_check_fill(TILE_CHECK_F16, Q, n, &rng);
    tile_check_fill(TILE_CHECK_F16, K, n, &rng);
    tile_check_fill(TILE_CHECK_F16, V, n, &rng);
    sample_sets_upload(&p.sets, host, off[PART_O]);
    printf("   (random inputs made in %.1f s)\n", sample_seconds() - t0);

    /* the unfused attention's S, P and output, where the memory allows */
    size_t free_bytes = 0, total_bytes = 0, sp_bytes = (size_t)batch * heads * (size_t)seq * seq * sizeof(half);
    TILE_CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    int unfused = 2 * sp_bytes + p.qkv_bytes + ((size_t)1 << 30) <= free_bytes;
    if (unfused) {
        TILE_CHECK_CUDA(cudaMalloc((void **)&p.S, sp_bytes));
        TILE_CHECK_CUDA(cudaMalloc((void **)&p.P, sp_bytes));
        TILE_CHECK_CUDA(cudaMalloc((void **)&p.U, p.qkv_bytes));
    } else {
        printf("   (no unfused reference: its S and P need %.1f GB, %.1f GB of device memory free)\n",
               2.0 * sp_bytes / 1e9, free_bytes / 1e9);
    }

    /* The checks: rows of SPOT_HEADS heads against the double loop: the
     * first and last rows, either side of block and tile edges, and random
     * ones. */
    int heads_at[SPOT_HEADS][2], rows[SPOT_ROWS] = {0, 1, 63, 64, 127, 128, seq / 2, seq - 129, seq - 2, seq - 1};
    tile_check_rng pick = tile_check_rng_seed(17);
    for (int i = 0; i < SPOT_HEADS; i++) {
        int which = i == 0 ? 0 : i == 1 ? batch * heads - 1 : (int)(tile_check_rng_next(&pick) % (uint64_t)(batch * heads));
        heads_at[i][0] = which / heads, heads_at[i][1] = which % heads;
    }
    for (int i = 10; i < SPOT_ROWS; i++)
        rows[i] = (int)(tile_check_rng_next(&pick) % (uint64_t)seq);
    layout l = bhnd(batch, heads, seq);
    int ok = 1;
    for (int causal = 0; causal < 2; causal++) {
        const char *damage;
        half *out = tilepp_result(&p, causal, &damage);
        sample_cmp written = sample_written(out, n);
        int pass = !damage && !written.unwritten;
        char label[96];
        snprintf(label, sizeof label, "%-10s every element written, none outside O", causal ? "causal" : "non-causal");
        printf("  %-55s %s\n", label, pass ? "PASS" : "FAIL");
        sample_print_failures(&written, damage, where_in(&l));
        snprintf(label, sizeof label, "%-10s %d rows x %d heads vs double-precision loop",
                 causal ? "causal" : "non-causal", SPOT_ROWS, SPOT_HEADS);
        if (pass)
            pass = check_exact(label, Q, K, V, out, batch, heads, seq, causal, p.scale, (const int(*)[2])heads_at,
                               SPOT_HEADS, rows, SPOT_ROWS);
        if (pass && !causal && unfused) {
            TILE_CHECK_CUDA(tile_check_poison(p.U, p.qkv_bytes));
            TILE_CHECK_CUDA(run_unfused(&p, 0));
            TILE_CHECK_CUDA(cudaDeviceSynchronize());
            half *u = tile_check_xmalloc(p.qkv_bytes);
            TILE_CHECK_CUDA(cudaMemcpy(u, p.U, p.qkv_bytes, cudaMemcpyDeviceToHost));
            pass = verdict("non-causal vs the unfused attention (all of O)", &l, out, u, TOL_UNFUSED, 0.0, NULL);
            sample_note_broken_reference(u, n, NULL, "O");
            free(u);
        }
        ok &= pass;
        free(out);
    }
    free(host);

    if (!ok) {
        printf("  not timed: a result is wrong at this shape\n");
    } else {
        tile_bench_result nc, ref, c;
        if (unfused)
            tile_bench_pair(run_noncausal, &p, run_unfused, &p, nsets, &nc, &ref);
        else
            nc = tile_bench_time(run_noncausal, &p, nsets);
        c = tile_bench_time(run_causal, &p, nsets);
        printf("\n  %-11s %9s %8s   %-46s %8s %8s %8s\n", "attention", "tilepp ms", "TFLOP/s", "reference",
               "ref ms", "TFLOP/s", "ref/tile");
        if (unfused)
            printf("  %-11s %9.3f %8.1f   %-46s %8.3f %8.1f %8.2f\n", "non-causal", nc.median_ms,
                   tile_bench_tflops(flop, nc.median_ms), "unfused: cuBLAS QK^T, softmax_f16, cuBLAS PV",
                   ref.median_ms, tile_bench_tflops(flop, ref.median_ms), ref.median_ms / nc.median_ms);
        else
            printf("  %-11s %9.3f %8.1f   %-46s\n", "non-causal", nc.median_ms, tile_bench_tflops(flop, nc.median_ms),
                   "(none: not enough device memory)");
        printf("  %-11s %9.3f %8.1f   %-46s\n", "causal", c.median_ms, tile_bench_tflops(flop / 2.0, c.median_ms),
               "(none: softmax_f16 has no causal mask)");
        printf("\n  ms: median per call of %d timed batches (the unfused attention timed in turns with the\n"
               "  non-causal kernel); TFLOP/s = 4 B H N^2 D / ms, halved for causal, the unfused attention's\n"
               "  from the same count; ref/tile: the reference's time over tilepp's (above 1: FlashAttention\n"
               "  is faster). bench/bench_attention.py compares both with PyTorch's SDPA.\n",
               TILE_BENCH_REPS);
    }
    sample_sets_free(&p.sets);
    if (unfused) {
        TILE_CHECK_CUDA(cudaFree(p.S));
        TILE_CHECK_CUDA(cudaFree(p.P));
        TILE_CHECK_CUDA(cudaFree(p.U));
    }
    return ok;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* line by line, also into a pipe (the tour shows progress) */
    printf("flash_attention: O = softmax(scale Q K^T) V in one kernel, causal and non-causal\n"
           "(samples/flash_attention.c; Q, K, V, O half, [batch][heads][seq][%d], scale 1/sqrt(%d);\n"
           "blocks of 128 query rows, key tiles of 64; the scores never touch memory)\n\n",
           D, D);

    printf("CPU reference (the same function compiled by the C compiler), random inputs in [-1, 1]:\n");
    small_case cases[2];
    for (int s = 0; s < 2; s++)
        small_cpu(&cases[s], shapes[s][0], shapes[s][1], shapes[s][2], 301 + (uint64_t)s);

    tile_check_require_gpu(); /* without a device: "SKIPPED: ..." and exit 77 */
    tile_check_print_device(stdout);
    CR_CHECK(cublasCreate(&blas));

    printf("\n1. correctness: the launchers against the CPU run and a double-precision loop, the same\n"
           "   inputs; outputs poisoned (NaN) with guard zones on both sides\n");
    int ok = 1;
    for (int s = 0; s < 2; s++)
        ok &= small_gpu(&cases[s]);
    ok &= gqa_check();
    for (int s = 0; s < 2; s++)
        free(cases[s].Q), free(cases[s].K), free(cases[s].V), free(cases[s].ref[0]), free(cases[s].ref[1]);

    if (ok)
        ok &= timed(TB, TH, TN);
    else
        printf("\n2. speed: not measured (a kernel is wrong; see the FAIL lines above)\n");

    CR_CHECK(cublasDestroy(blas));
    printf("\nflash_attention: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

/* gemm_softmax_main.c — runs the GEMM + row softmax sample (gemm_softmax.c:
 * P = softmax(A B) along each row, the softmax on the accumulator in
 * registers; A, B, P half, float accumulation; rows of N <= 256 columns, one
 * tile) in two parts:
 *
 *   1. correctness: the launcher against the CPU run of the same function
 *      (the file compiled by the C compiler) on fresh random inputs (uniform
 *      in [-1, 1], never 0) at three shapes that the 128 x 256 x 64 tiles do
 *      not divide (a ragged N is masked to -inf inside the tile); the GPU
 *      output starts poisoned (NaN), with poisoned guard zones on both
 *      sides, so an element not written, or one written outside P, shows.
 *      Each row of the GPU's P must also sum to 1;
 *   2. speed, at two shapes of long columns: the fused kernel against the
 *      natural unfused pair, cuBLAS (cublasGemmEx, fp32 accumulation, half
 *      out) into a temporary and then samples/softmax.c's softmax_f16
 *      kernel, and against cuBLAS's GEMM alone (the product with no
 *      softmax). The fused result is checked against the unfused pair's
 *      first. Times are medians of CUDA-event batches, each pair timed in
 *      turns (<tilepp/bench.h>, as bench/bench_gemm_softmax.c does); TFLOP/s
 *      count the product's 2MNK only.
 *
 * Exit status: 0 when every check passed, 1 on a wrong result or a CUDA
 * error; without a CUDA device the CPU part runs, then "SKIPPED: ..." and
 * 77. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <tilepp/bench.h>

#include "cublas_ref.h"
#include "gemm_softmax.tile.h"
#include "softmax.tile.h"

/* The CPU reference, compiled from gemm_softmax.c by the C compiler. */
void gemm_softmax(int M, int N, int K, const half A[M][K], const half B[K][N], half P[M][N]);

/* The correctness shapes (M x N x K): M and K ragged against the 128 x 64
 * tiles everywhere; N below the 256-column tile (masked columns), far below
 * it, and exactly one tile. K = 1000 gives logits of ~10 (a sharp softmax:
 * the maximum matters), K = 72 soft ones. */
static const int shapes[3][3] = {{333, 200, 250}, {129, 77, 1000}, {200, 256, 72}};
/* The timed shapes: many rows of one tile, as attention scores of a short
 * sequence or a classifier over a small vocabulary (bench/bench_gemm_softmax
 * has these and two more). */
static const int timed_shapes[2][3] = {{16384, 256, 4096}, {65536, 256, 1024}};

/* Tolerances (relative error ||GPU - ref|| / ||ref||).
 * Against the CPU run: both sides add the same float products in another
 * order (far below 1e-6 relative), take the device's or libm's expf (a few
 * ulp apart) and round P once to half: a few elements move by one half
 * ulp (2^-11 relative), the norm far less; an indexing mistake, a wrong
 * mask or a row reduced over the wrong lanes gives 1e-2 to 1.
 * Against the unfused pair: cuBLAS rounds the logits to half before the
 * exponential; a logit of ~20 (K = 4096) is then off by up to 0.008, and
 * its probability by up to 0.8%: bench/RESULTS.md measures 1e-3 to 2e-3.
 * Row sums: each of the row's probabilities rounds to half (2^-11 relative
 * of a sum of 1, plus 2^-25 for each that is subnormal). */
#define TOL_CPU 1e-3
#define TOL_UNFUSED 1e-2
#define TOL_ROW_SUM 2e-3
/* Elementwise, against the CPU run: 4 half ulps (2^-8) relative, or 2^-10
 * of the output's rms absolute (the probabilities that round to half's
 * subnormals, spaced 6e-8). */
#define RTOL_CPU 0x1p-8
#define ATOL_RMS 0x1p-10

static double seconds_now(void)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- outputs on the device: poisoned, between two guard zones ------------ */

enum { GUARD = 256 }; /* bytes of poison on each side of an output */

static void *output_alloc(size_t bytes)
{
    char *p = NULL;
    TILE_CHECK_CUDA(cudaMalloc((void **)&p, bytes + 2 * GUARD));
    TILE_CHECK_CUDA(tile_check_poison(p, bytes + 2 * GUARD)); /* 0xFF bytes: NaN in half */
    return p + GUARD;
}

static void output_free(void *d) { TILE_CHECK_CUDA(cudaFree((char *)d - GUARD)); }

/* Waits for the device, copies the output back; *damage: NULL, or what
 * happened to the guard zones. */
static half *output_fetch(const void *d, size_t bytes, const char **damage)
{
    unsigned char *all = tile_check_xmalloc(bytes + 2 * GUARD);
    TILE_CHECK_CUDA(cudaDeviceSynchronize());
    TILE_CHECK_CUDA(cudaMemcpy(all, (const char *)d - GUARD, bytes + 2 * GUARD, cudaMemcpyDeviceToHost));
    *damage = !tile_check_is_poisoned(all, GUARD)                 ? "written before its first element"
              : !tile_check_is_poisoned(all + GUARD + bytes, GUARD) ? "written past its last element"
                                                                    : NULL;
    half *out = tile_check_xmalloc(bytes);
    memcpy(out, all + GUARD, bytes);
    free(all);
    return out;
}

/* Elementwise, against the CPU run (rtol > 0): every element within rtol
 * of the reference, or within ATOL_RMS of the reference's rms (for the
 * elements near 0): a single wrong element shows, which the norm-wise
 * relative error of a large output can hide. Returns 1 when all are;
 * otherwise 0, with why in why[0..len). */
static int check_elements(const half *out, const half *ref, size_t n, int cols, double rtol, char *why, size_t len)
{
    double sum2 = 0.0;
    for (size_t i = 0; i < n; i++)
        sum2 += (double)ref[i] * (double)ref[i];
    double atol = ATOL_RMS * sqrt(sum2 / (double)(n ? n : 1));
    tile_check_close close;
    if (tile_check_allclose(TILE_CHECK_F16, out, TILE_CHECK_F16, ref, n, rtol, atol, 0, &close))
        return 1;
    snprintf(why, len,
             "%zu of %zu elements differ by more than %.1e x |reference| + %.1e, the first at\n"
             "            [%zu][%zu]: GPU %.6g, reference %.6g (largest difference %.3g)",
             close.mismatches, n, rtol, atol, close.first / (size_t)cols, close.first % (size_t)cols, close.first_out,
             close.first_ref, close.max_abs_err);
    return 0;
}

/* Compares the GPU's rows x cols halves with a reference: the norm-wise
 * relative error below tol and, with rtol > 0, every element close (see
 * check_elements); then checks that each row of the GPU's P sums to 1.
 * Prints PASS or FAIL with the relative error, and on FAIL why: the guard
 * zones, the elements not written, the elements not close, the row sums,
 * the element that differs most. Returns 1 on PASS. */
static int verdict(const char *label, const half *out, const half *ref, int rows, int cols, double tol, double rtol,
                   const char *damage)
{
    size_t n = (size_t)rows * (size_t)cols, first;
    size_t unwritten = tile_check_count_nan(TILE_CHECK_F16, out, n, &first);
    double err = tile_check_rel_err(TILE_CHECK_F16, out, TILE_CHECK_F16, ref, n);
    /* the row sums, in double */
    double worst_sum = 0.0, worst_off = 0.0; /* the largest |sum - 1|, and that sum - 1 */
    int worst_row = 0;
    for (int r = 0; r < rows && !unwritten; r++) {
        double sum = 0.0;
        for (int c = 0; c < cols; c++)
            sum += (double)out[(size_t)r * cols + c];
        if (!(fabs(sum - 1.0) <= worst_sum))
            worst_sum = fabs(sum - 1.0), worst_off = sum - 1.0, worst_row = r;
    }
    int sums_ok = !unwritten && worst_sum < TOL_ROW_SUM;
    char why[320];
    int close_ok = unwritten || !(rtol > 0.0) || check_elements(out, ref, n, cols, rtol, why, sizeof why);
    int ok = !damage && unwritten == 0 && err < tol && close_ok && sums_ok;
    printf("  %-44s %s  relative error %.2e (tolerance %.0e), rows sum to 1 within %.1e\n", label,
           ok ? "PASS" : "FAIL", err, tol, worst_sum);
    if (damage)
        printf("      FAIL: the output was %s (the poisoned %d-byte guard zone changed)\n", damage, GUARD);
    if (unwritten)
        printf("      FAIL: %zu of %zu elements not written (still the NaN poison), the first at [%zu][%zu]\n",
               unwritten, n, first / (size_t)cols, first % (size_t)cols);
    if (!close_ok)
        printf("      FAIL: %s\n", why);
    if (!unwritten && !sums_ok)
        printf("      FAIL: row %d of the GPU's P sums to 1 %+.3e (tolerance %.0e)\n", worst_row, worst_off,
               TOL_ROW_SUM);
    if (!(err < tol)) { /* (not for the guards or the row sums alone) */
        size_t worst = n;
        double worst_d = -1.0;
        for (size_t i = 0; i < n; i++) {
            double d = fabs((double)out[i] - (double)ref[i]);
            if (isnan(d)) {
                worst = i;
                break;
            }
            if (d > worst_d)
                worst = i, worst_d = d;
        }
        if (worst < n)
            printf("      largest difference at [%zu][%zu]: GPU %.6g, reference %.6g\n", worst / (size_t)cols,
                   worst % (size_t)cols, (double)out[worst], (double)ref[worst]);
    }
    fflush(stdout);
    return ok;
}

/* ---- part 1: against the CPU run ------------------------------------------- */

typedef struct {
    int M, N, K;
    half *A, *B, *ref;
} small_case;

static void small_cpu(small_case *c, int M, int N, int K, uint64_t seed)
{
    size_t na = (size_t)M * K, nb = (size_t)K * N, np = (size_t)M * N;
    c->M = M, c->N = N, c->K = K;
    c->A = tile_check_xmalloc(na * sizeof(half));
    c->B = tile_check_xmalloc(nb * sizeof(half));
    c->ref = tile_check_xmalloc(np * sizeof(half));
    tile_check_rng rng = tile_check_rng_seed(seed);
    tile_check_fill(TILE_CHECK_F16, c->A, na, &rng);
    tile_check_fill(TILE_CHECK_F16, c->B, nb, &rng);
    tile_check_poison_host(c->ref, np * sizeof(half));
    double t0 = seconds_now();
    gemm_softmax(M, N, K, (const half(*)[K])c->A, (const half(*)[N])c->B, (half(*)[N])c->ref);
    double secs = seconds_now() - t0, max0 = 0.0;
    for (int j = 0; j < N; j++)
        max0 = fmax(max0, (double)c->ref[j]);
    printf("  gemm_softmax  %4d x %3d x %4d   %6.3f s   row 0: largest probability %.4f, P[0][0] = %.3g\n", M, N, K,
           secs, max0, (double)c->ref[0]);
}

static int small_gpu(const small_case *c)
{
    int M = c->M, N = c->N, K = c->K;
    size_t pbytes = (size_t)M * N * sizeof(half);
    half *dA = tile_check_to_device(c->A, (size_t)M * K * sizeof(half));
    half *dB = tile_check_to_device(c->B, (size_t)K * N * sizeof(half));
    half *dP = output_alloc(pbytes);
    const char *damage;
    TILE_CHECK_CUDA(gemm_softmax_gpu(M, N, K, dA, dB, dP));
    half *out = output_fetch(dP, pbytes, &damage);
    char label[96];
    snprintf(label, sizeof label, "gemm_softmax %d x %d x %d vs CPU", M, N, K);
    int ok = verdict(label, out, c->ref, M, N, TOL_CPU, RTOL_CPU, damage);
    free(out);
    output_free(dP);
    TILE_CHECK_CUDA(cudaFree(dA));
    TILE_CHECK_CUDA(cudaFree(dB));
    return ok;
}

/* ---- part 2: timed against cuBLAS and the unfused pair ----------------------- */

static cublasHandle_t blas;

/* One buffer set: A | B | P | T (the unfused pair's temporary), each at a
 * multiple of 256 bytes, with GUARD bytes before and after P. */
typedef struct {
    int M, N, K, nsets;
    size_t off[4], p_bytes, set_bytes;
    char **base;
} problem;

enum { PART_A, PART_B, PART_P, PART_T };

static size_t up256(size_t bytes) { return (bytes + 255) / 256 * 256; }

static void *part(const problem *p, int set, int which) { return p->base[set] + p->off[which]; }

static cudaError_t run_fused(void *ctx, int set)
{
    const problem *p = ctx;
    return gemm_softmax_gpu(p->M, p->N, p->K, part(p, set, PART_A), part(p, set, PART_B), part(p, set, PART_P));
}

static cudaError_t run_cublas(void *ctx, int set)
{
    const problem *p = ctx;
    cublasStatus_t st = cr_gemm(blas, 0, 0, p->M, p->N, p->K, part(p, set, PART_A), CUDA_R_16F, part(p, set, PART_B),
                                CUDA_R_16F, part(p, set, PART_T), CUDA_R_16F);
    if (st != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasGemmEx failed: %s\n", cr_status_name(st));
        return cudaErrorUnknown;
    }
    return cudaSuccess;
}

static cudaError_t run_unfused(void *ctx, int set)
{
    const problem *p = ctx;
    cudaError_t err = run_cublas(ctx, set);
    return err != cudaSuccess ? err : softmax_f16_gpu(p->M, p->N, p->N, part(p, set, PART_T), part(p, set, PART_P));
}

/* Set 0's P (between guards, poisoned first) after fn. */
static half *result_of(problem *p, tile_bench_fn fn, const char **damage)
{
    char *out = part(p, 0, PART_P);
    TILE_CHECK_CUDA(tile_check_poison(out - GUARD, p->p_bytes + 2 * GUARD));
    TILE_CHECK_CUDA(fn(p, 0));
    return output_fetch(out, p->p_bytes, damage);
}

/* Checks and times one shape; prints its rows of the table. */
static int timed(int M, int N, int K)
{
    problem p = {.M = M, .N = N, .K = K};
    size_t a_bytes = (size_t)M * K * sizeof(half), b_bytes = (size_t)K * N * sizeof(half);
    p.p_bytes = (size_t)M * N * sizeof(half);
    p.off[PART_A] = 0;
    p.off[PART_B] = up256(a_bytes);
    p.off[PART_P] = p.off[PART_B] + up256(b_bytes) + GUARD;
    p.off[PART_T] = p.off[PART_P] + up256(p.p_bytes) + GUARD;
    p.set_bytes = p.off[PART_T] + up256(p.p_bytes);
    p.nsets = tile_bench_sets(p.set_bytes);
    p.base = tile_check_xmalloc((size_t)p.nsets * sizeof *p.base);

    /* fresh inputs, the same in every set */
    char *host = tile_check_xmalloc(p.off[PART_P]);
    tile_check_rng rng = tile_check_rng_seed(0x5f7u + (uint64_t)M);
    tile_check_fill(TILE_CHECK_F16, host + p.off[PART_A], a_bytes / sizeof(half), &rng);
    tile_check_fill(TILE_CHECK_F16, host + p.off[PART_B], b_bytes / sizeof(half), &rng);
    for (int i = 0; i < p.nsets; i++) {
        TILE_CHECK_CUDA(cudaMalloc((void **)&p.base[i], p.set_bytes));
        TILE_CHECK_CUDA(cudaMemcpy(p.base[i], host, p.off[PART_P], cudaMemcpyHostToDevice));
    }
    free(host);

    printf("\n  %d x %d x %d (M x N x K), %d buffer set(s) rotating over %dx the L2 cache:\n", M, N, K, p.nsets,
           TILE_BENCH_L2_FACTOR);
    const char *damage, *damage_unfused;
    half *fused = result_of(&p, run_fused, &damage), *unfused = result_of(&p, run_unfused, &damage_unfused);
    size_t bad_ref = tile_check_count_nan(TILE_CHECK_F16, unfused, (size_t)M * N, NULL);
    int ok =
        verdict("gemm_softmax vs cuBLAS + softmax_f16 (unfused)", fused, unfused, M, N, TOL_UNFUSED, 0.0, damage);
    if (bad_ref || damage_unfused)
        printf("      (the reference itself is broken: %zu NaN elements%s)\n", bad_ref,
               damage_unfused ? ", written outside P" : "");
    free(fused), free(unfused);
    if (!ok) {
        printf("  not timed: the fused result is wrong at this shape\n");
    } else {
        tile_bench_result f1, unf, f2, gemm;
        tile_bench_pair(run_fused, &p, run_unfused, &p, p.nsets, &f1, &unf);
        tile_bench_pair(run_fused, &p, run_cublas, &p, p.nsets, &f2, &gemm);
        const double flop = tile_bench_gemm_flops(M, N, K);
        const struct {
            const char *reference;
            const tile_bench_result *k, *ref;
        } rows[2] = {{"cuBLAS GEMM + softmax_f16 kernel", &f1, &unf}, {"cuBLAS GEMM alone, no softmax", &f2, &gemm}};
        printf("  %-14s %-33s %9s %8s %9s %8s %8s\n", "tilepp (fused)", "reference, timed in turns", "tilepp ms",
               "TFLOP/s", "ref ms", "TFLOP/s", "ref/tile");
        for (int i = 0; i < 2; i++)
            printf("  %-14s %-33s %9.4f %8.1f %9.4f %8.1f %8.2f\n", "gemm_softmax", rows[i].reference,
                   rows[i].k->median_ms, tile_bench_tflops(flop, rows[i].k->median_ms), rows[i].ref->median_ms,
                   tile_bench_tflops(flop, rows[i].ref->median_ms), rows[i].ref->median_ms / rows[i].k->median_ms);
    }
    for (int i = 0; i < p.nsets; i++)
        TILE_CHECK_CUDA(cudaFree(p.base[i]));
    free(p.base);
    return ok;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* line by line, also into a pipe (the tour shows progress) */
    printf("gemm_softmax: P = softmax(A B) along each row, the softmax on the accumulator in registers\n"
           "(samples/gemm_softmax.c; A, B, P half, float accumulation, 128 x 256 x 64 tiles, N <= 256)\n\n");

    printf("CPU reference (the same function compiled by the C compiler), random inputs in [-1, 1]:\n");
    small_case cases[3];
    for (int s = 0; s < 3; s++)
        small_cpu(&cases[s], shapes[s][0], shapes[s][1], shapes[s][2], 201 + (uint64_t)s);

    tile_check_require_gpu(); /* without a device: "SKIPPED: ..." and exit 77 */
    tile_check_print_device(stdout);
    CR_CHECK(cublasCreate(&blas));

    printf("\n1. correctness: the launcher against the CPU run, the same inputs; output poisoned (NaN)\n"
           "   with guard zones on both sides\n");
    int ok = 1;
    for (int s = 0; s < 3; s++)
        ok &= small_gpu(&cases[s]);
    for (int s = 0; s < 3; s++)
        free(cases[s].A), free(cases[s].B), free(cases[s].ref);

    if (ok) {
        printf("\n2. speed, fp16: each shape checked against the unfused pair first, then timed\n");
        for (int s = 0; s < 2; s++)
            ok &= timed(timed_shapes[s][0], timed_shapes[s][1], timed_shapes[s][2]);
        printf("\n  ms: median per call of %d timed batches; TFLOP/s = 2MNK / ms (the softmax not counted);\n"
               "  ref/tile: the reference's time over tilepp's (above 1: the fused kernel is faster).\n"
               "  (bench/bench_gemm_softmax measures more shapes; bench/RESULTS.md discusses the figures)\n",
               TILE_BENCH_REPS);
    } else {
        printf("\n2. speed: not measured (the kernel is wrong; see the FAIL lines above)\n");
    }

    CR_CHECK(cublasDestroy(blas));
    printf("\ngemm_softmax: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

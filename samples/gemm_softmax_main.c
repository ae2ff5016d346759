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

#include <tilepp/bench.h>

#include "cublas_ref.h"
#include "gemm_softmax.tile.h"
#include "sample_check.h"
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

/* The largest |sum - 1| over the rows of a rows x cols P (in double), with
 * that sum - 1 in *off and its row in *row. */
static double worst_row_sum(const half *P, int rows, int cols, double *off, int *row)
{
    double worst = 0.0;
    *off = 0.0, *row = 0;
    for (int r = 0; r < rows; r++) {
        double sum = 0.0;
        for (int c = 0; c < cols; c++)
            sum += (double)P[(size_t)r * cols + c];
        if (!(fabs(sum - 1.0) <= worst))
            worst = fabs(sum - 1.0), *off = sum - 1.0, *row = r;
    }
    return worst;
}

/* Compares the GPU's rows x cols halves with a reference: the guard zones,
 * every element written, the norm-wise relative error below tol and, with
 * rtol > 0, every element close (sample_check_elements); then checks that
 * each row of the GPU's P sums to 1. Prints PASS or FAIL with the relative
 * error, and on FAIL why (sample_print_failures), the row sums, the element
 * that differs most. Returns 1 on PASS. */
static int verdict(const char *label, const half *out, const half *ref, int rows, int cols, double tol, double rtol,
                   const char *damage)
{
    size_t n = (size_t)rows * (size_t)cols;
    sample_where where = sample_where_matrix(&cols);
    sample_cmp c = sample_compare(out, ref, n, rtol, ATOL_RMS, where);
    double worst_off = 0.0; /* the row sum - 1 farthest from 0 (not with NaNs left: they say enough) */
    int worst_row = 0;
    double worst_sum = c.unwritten ? 0.0 : worst_row_sum(out, rows, cols, &worst_off, &worst_row);
    int sums_ok = !c.unwritten && worst_sum < TOL_ROW_SUM;
    int ok = !damage && c.unwritten == 0 && c.err < tol && c.close_ok && sums_ok;
    printf("  %-44s %s  relative error %.2e (tolerance %.0e), rows sum to 1 within %.1e\n", label, ok ? "PASS" : "FAIL",
           c.err, tol, worst_sum);
    sample_print_failures(&c, damage, where);
    if (!c.unwritten && !sums_ok)
        printf("      FAIL: row %d of the GPU's P sums to 1 %+.3e (tolerance %.0e)\n", worst_row, worst_off,
               TOL_ROW_SUM);
    if (!(c.err < tol)) /* (not for the guards or the row sums alone) */
        sample_print_worst(out, ref, n, where);
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
    double t0 = sample_seconds();
    gemm_softmax(M, N, K, (const half(*)[K])c->A, (const half(*)[N])c->B, (half(*)[N])c->ref);
    double secs = sample_seconds() - t0, max0 = 0.0;
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
    half *dP = sample_output_alloc(pbytes);
    const char *damage;
    TILE_CHECK_CUDA(gemm_softmax_gpu(M, N, K, dA, dB, dP));
    half *out = sample_output_fetch(dP, pbytes, &damage);
    char label[96];
    snprintf(label, sizeof label, "gemm_softmax %d x %d x %d vs CPU", M, N, K);
    int ok = verdict(label, out, c->ref, M, N, TOL_CPU, RTOL_CPU, damage);
    free(out);
    sample_output_free(dP);
    TILE_CHECK_CUDA(cudaFree(dA));
    TILE_CHECK_CUDA(cudaFree(dB));
    return ok;
}

/* ---- part 2: timed against cuBLAS and the unfused pair ----------------------- */

static cublasHandle_t blas;

/* The timed problem. A buffer set: A | B | P | T (the unfused pair's
 * temporary), P the guarded output. */
typedef struct {
    int M, N, K;
    size_t p_bytes;
    sample_sets sets;
} problem;

enum { PART_A, PART_B, PART_P, PART_T, NPARTS };

static void *part(const problem *p, int set, int which) { return sample_sets_part(&p->sets, set, which); }

static cudaError_t run_fused(void *ctx, int set)
{
    const problem *p = ctx;
    return gemm_softmax_gpu(p->M, p->N, p->K, part(p, set, PART_A), part(p, set, PART_B), part(p, set, PART_P));
}

static cudaError_t run_cublas(void *ctx, int set)
{
    const problem *p = ctx;
    return cr_to_cuda(cr_gemm(blas, 0, 0, p->M, p->N, p->K, part(p, set, PART_A), CUDA_R_16F, part(p, set, PART_B),
                              CUDA_R_16F, part(p, set, PART_T), CUDA_R_16F),
                      "cublasGemmEx");
}

static cudaError_t run_unfused(void *ctx, int set)
{
    const problem *p = ctx;
    cudaError_t err = run_cublas(ctx, set);
    return err != cudaSuccess ? err : softmax_f16_gpu(p->M, p->N, p->N, part(p, set, PART_T), part(p, set, PART_P));
}

/* Set 0's P after fn (sample_sets_result). */
static half *result_of(problem *p, tile_bench_fn fn, const char **damage)
{
    return sample_sets_result(&p->sets, PART_P, p->p_bytes, fn, p, damage);
}

/* Checks and times one shape; prints its rows of the table. */
static int timed(int M, int N, int K)
{
    problem p = {.M = M, .N = N, .K = K};
    size_t a_bytes = (size_t)M * K * sizeof(half), b_bytes = (size_t)K * N * sizeof(half);
    p.p_bytes = (size_t)M * N * sizeof(half);
    const size_t bytes[NPARTS] = {a_bytes, b_bytes, p.p_bytes, p.p_bytes};
    sample_sets_layout(&p.sets, bytes, NPARTS, PART_P);
    const int nsets = p.sets.nsets;

    /* fresh inputs (all that comes before P), the same in every set */
    const size_t *off = p.sets.off;
    char *host = tile_check_xmalloc(off[PART_P]);
    tile_check_rng rng = tile_check_rng_seed(0x5f7u + (uint64_t)M);
    tile_check_fill(TILE_CHECK_F16, host + off[PART_A], a_bytes / sizeof(half), &rng);
    tile_check_fill(TILE_CHECK_F16, host + off[PART_B], b_bytes / sizeof(half), &rng);
    sample_sets_upload(&p.sets, host, off[PART_P]);
    free(host);

    printf("\n  %d x %d x %d (M x N x K), %d buffer set(s) rotating over %dx the L2 cache:\n", M, N, K, nsets,
           TILE_BENCH_L2_FACTOR);
    const char *damage, *damage_unfused;
    half *fused = result_of(&p, run_fused, &damage), *unfused = result_of(&p, run_unfused, &damage_unfused);
    int ok = verdict("gemm_softmax vs cuBLAS + softmax_f16 (unfused)", fused, unfused, M, N, TOL_UNFUSED, 0.0, damage);
    sample_note_broken_reference(unfused, (size_t)M * N, damage_unfused, "P");
    free(fused), free(unfused);
    if (!ok) {
        printf("  not timed: the fused result is wrong at this shape\n");
    } else {
        tile_bench_result f1, unf, f2, gemm;
        tile_bench_pair(run_fused, &p, run_unfused, &p, nsets, &f1, &unf);
        tile_bench_pair(run_fused, &p, run_cublas, &p, nsets, &f2, &gemm);
        const double flop = tile_bench_gemm_flops(M, N, K);
        const struct {
            const char *reference;
            const tile_bench_result *k, *ref;
        } rows[2] = {{"cuBLAS GEMM + softmax_f16 kernel", &f1, &unf}, {"cuBLAS GEMM alone, no softmax", &f2, &gemm}};
        sample_print_timed_header(14, "tilepp (fused)", 33, "reference, timed in turns");
        for (int i = 0; i < 2; i++)
            sample_print_timed_row(14, "gemm_softmax", 33, rows[i].reference, 4, flop, rows[i].k, rows[i].ref);
    }
    sample_sets_free(&p.sets);
    return ok;
}

int main(int argc, char **argv)
{
    /* --small: the correctness part only (no timing, no large shape): for compute-sanitizer */
    const int small = argc > 1 && strcmp(argv[1], "--small") == 0;
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

    if (ok && small) {
        printf("\n2. speed: not measured (--small)\n");
    } else if (ok) {
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

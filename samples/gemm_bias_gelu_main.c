/* gemm_bias_gelu_main.c — runs the fused-epilogue sample (gemm_bias_gelu.c:
 * C = gelu(A B + bias), the bias and the GELU applied to the accumulator in
 * registers; A, B, C half, bias float, float accumulation) in two parts:
 *
 *   1. correctness: both kernels of the file (gemm_bias_gelu, the tanh
 *      GELU, and gemm_bias_gelu_erf, the exact one) through their launchers
 *      against the CPU run of the same functions (the file compiled by the C
 *      compiler), on fresh random inputs (uniform in [-1, 1], never 0) at
 *      two shapes that no tile size (128 x 256 x 64) divides; the GPU
 *      outputs start poisoned (NaN), with poisoned guard zones on both
 *      sides, so an element not written, or one written outside C, shows;
 *   2. speed, at 4096 x 4096 x 4096: the fused kernel against the natural
 *      unfused pair, cuBLAS (cublasGemmEx, fp32 accumulation, half out)
 *      into a temporary and then samples/bias_gelu.c's bias + GELU kernel,
 *      and against cuBLAS's GEMM alone (the product with no epilogue, what
 *      the fusion tries to match). The fused result is checked against the
 *      unfused pair's first. Times are medians of CUDA-event batches, each
 *      pair timed in turns (<tilepp/bench.h>, as bench/bench_epilogue.c
 *      does); TFLOP/s count the product's 2MNK only.
 *
 * Exit status: 0 when every check passed, 1 on a wrong result or a CUDA
 * error; without a CUDA device the CPU part runs, then "SKIPPED: ..." and
 * 77. */
#include <stdio.h>
#include <string.h>

#include <tilepp/bench.h>

#include "bias_gelu.tile.h"
#include "cublas_ref.h"
#include "gemm_bias_gelu.tile.h"
#include "sample_check.h"

/* The CPU references, compiled from gemm_bias_gelu.c by the C compiler. */
void gemm_bias_gelu(int M, int N, int K, const half A[M][K], const half B[K][N], const float bias[N], half C[M][N]);
void gemm_bias_gelu_erf(int M, int N, int K, const half A[M][K], const half B[K][N], const float bias[N], half C[M][N]);

typedef void cpu_fn(int M, int N, int K, const half A[M][K], const half B[K][N], const float bias[N], half C[M][N]);
typedef cudaError_t (*gpu_fn)(int M, int N, int K, const half *A, const half *B, const float *bias, half *C);

static const struct {
    const char *name, *gelu;
    cpu_fn *cpu;
    gpu_fn gpu;
} kernels[2] = {{"gemm_bias_gelu", "tanh", gemm_bias_gelu, gemm_bias_gelu_gpu},
                {"gemm_bias_gelu_erf", "erf", gemm_bias_gelu_erf, gemm_bias_gelu_erf_gpu}};

/* The correctness shapes (M x N x K): none a multiple of the 128 x 256 x 64
 * tiles: ragged last tiles in every dimension (the bias read `c < N` at the
 * right edge), and one grid of a single column of tiles with K < 64. */
static const int shapes[2][3] = {{333, 517, 250}, {129, 200, 40}};
enum { TM = 4096, TN = 4096, TK = 4096 }; /* the timed shape */

/* Tolerances (relative error ||GPU - ref|| / ||ref||).
 * Against the CPU run: both sides add the same float products (exact, from
 * half inputs) in another order, apply the same float GELU (the device's
 * tanhf / erff within a few ulp of libm's) and round once to half; a
 * float that differs in its last bits rounds to the neighbouring half for
 * a few elements, one half ulp (2^-10 relative at most). An H200 gives
 * ~1e-5 (bench/RESULTS.md: 7.9e-6); an indexing mistake, a missing edge or
 * a wrong bias column gives 1e-2 to 1.
 * Against the unfused pair: cuBLAS rounds A B to half before the GELU
 * (2^-11 relative, rms ~3e-4) and both round the output: ~4e-4 measured. */
#define TOL_CPU 1e-3
#define TOL_UNFUSED 5e-3
/* Elementwise, against the CPU run: 4 half ulps (2^-8) relative, or 2^-10
 * of the output's rms absolute near 0 (where the GELU's 1 + tanh cancels). */
#define RTOL_CPU 0x1p-8
#define ATOL_RMS 0x1p-10

/* Compares the GPU's rows x cols halves with a reference: the guard zones,
 * every element written, the norm-wise relative error below tol and, with
 * rtol > 0, every element close (sample_check_elements). Prints PASS or FAIL
 * with the relative error, and on FAIL why (sample_print_failures) and the
 * element that differs most. Returns 1 on PASS. */
static int verdict(const char *label, const half *out, const half *ref, int rows, int cols, double tol, double rtol,
                   const char *damage)
{
    size_t n = (size_t)rows * (size_t)cols;
    sample_where where = sample_where_matrix(&cols);
    sample_cmp c = sample_compare(out, ref, n, rtol, ATOL_RMS, where);
    int ok = !damage && c.unwritten == 0 && c.err < tol && c.close_ok;
    printf("  %-46s %s  relative error %.2e (tolerance %.0e)\n", label, ok ? "PASS" : "FAIL", c.err, tol);
    sample_print_failures(&c, damage, where);
    if (!(c.err < tol)) /* (not for the guards alone) */
        sample_print_worst(out, ref, n, where);
    fflush(stdout);
    return ok;
}

/* ---- part 1: against the CPU run ------------------------------------------- */

typedef struct {
    int M, N, K;
    half *A, *B, *ref[2]; /* ref[k]: kernel k's CPU result */
    float *bias;
} small_case;

static void small_cpu(small_case *c, int M, int N, int K, uint64_t seed)
{
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    c->M = M, c->N = N, c->K = K;
    c->A = tile_check_xmalloc(na * sizeof(half));
    c->B = tile_check_xmalloc(nb * sizeof(half));
    c->bias = tile_check_xmalloc((size_t)N * sizeof(float));
    tile_check_rng rng = tile_check_rng_seed(seed);
    tile_check_fill(TILE_CHECK_F16, c->A, na, &rng);
    tile_check_fill(TILE_CHECK_F16, c->B, nb, &rng);
    tile_check_fill(TILE_CHECK_F32, c->bias, (size_t)N, &rng);
    for (int k = 0; k < 2; k++) {
        c->ref[k] = tile_check_xmalloc(nc * sizeof(half));
        tile_check_poison_host(c->ref[k], nc * sizeof(half));
        double t0 = sample_seconds();
        kernels[k].cpu(M, N, K, (const half(*)[K])c->A, (const half(*)[N])c->B, c->bias, (half(*)[N])c->ref[k]);
        double secs = sample_seconds() - t0;
        printf("  %-20s %4d x %4d x %4d   %6.3f s   rms of C %.4f, C[%d][%d] = %.4f\n", kernels[k].name, M, N, K, secs,
               sample_rms(c->ref[k], nc), M - 1, N - 1, (double)c->ref[k][nc - 1]);
    }
}

static int small_gpu(const small_case *c)
{
    int M = c->M, N = c->N, K = c->K, ok = 1;
    size_t cbytes = (size_t)M * N * sizeof(half);
    half *dA = tile_check_to_device(c->A, (size_t)M * K * sizeof(half));
    half *dB = tile_check_to_device(c->B, (size_t)K * N * sizeof(half));
    float *dbias = tile_check_to_device(c->bias, (size_t)N * sizeof(float));
    for (int k = 0; k < 2; k++) {
        half *dC = sample_output_alloc(cbytes);
        const char *damage;
        TILE_CHECK_CUDA(kernels[k].gpu(M, N, K, dA, dB, dbias, dC));
        half *out = sample_output_fetch(dC, cbytes, &damage);
        char label[96];
        snprintf(label, sizeof label, "%s %d x %d x %d vs CPU", kernels[k].name, M, N, K);
        ok &= verdict(label, out, c->ref[k], M, N, TOL_CPU, RTOL_CPU, damage);
        free(out);
        sample_output_free(dC);
    }
    TILE_CHECK_CUDA(cudaFree(dA));
    TILE_CHECK_CUDA(cudaFree(dB));
    TILE_CHECK_CUDA(cudaFree(dbias));
    return ok;
}

/* ---- part 2: timed against cuBLAS and the unfused pair ----------------------- */

static cublasHandle_t blas;

/* The timed problem. A buffer set: A | B | bias | C | T (the unfused pair's
 * temporary), C the guarded output. */
typedef struct {
    int M, N, K;
    size_t c_bytes;
    sample_sets sets;
} problem;

enum { PART_A, PART_B, PART_BIAS, PART_C, PART_T, NPARTS };

static void *part(const problem *p, int set, int which) { return sample_sets_part(&p->sets, set, which); }

static cudaError_t run_fused(void *ctx, int set)
{
    const problem *p = ctx;
    return gemm_bias_gelu_gpu(p->M, p->N, p->K, part(p, set, PART_A), part(p, set, PART_B), part(p, set, PART_BIAS),
                              part(p, set, PART_C));
}

static cudaError_t run_fused_erf(void *ctx, int set)
{
    const problem *p = ctx;
    return gemm_bias_gelu_erf_gpu(p->M, p->N, p->K, part(p, set, PART_A), part(p, set, PART_B), part(p, set, PART_BIAS),
                                  part(p, set, PART_C));
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
    return err != cudaSuccess
               ? err
               : bias_gelu_gpu(p->M, p->N, part(p, set, PART_T), part(p, set, PART_BIAS), part(p, set, PART_C));
}

/* Set 0's C after fn (sample_sets_result). */
static half *result_of(problem *p, tile_bench_fn fn, const char **damage)
{
    return sample_sets_result(&p->sets, PART_C, p->c_bytes, fn, p, damage);
}

static int timed(int M, int N, int K)
{
    problem p = {.M = M, .N = N, .K = K};
    size_t a_bytes = (size_t)M * K * sizeof(half), b_bytes = (size_t)K * N * sizeof(half);
    size_t bias_bytes = (size_t)N * sizeof(float);
    p.c_bytes = (size_t)M * N * sizeof(half);
    const size_t bytes[NPARTS] = {a_bytes, b_bytes, bias_bytes, p.c_bytes, p.c_bytes};
    sample_sets_layout(&p.sets, bytes, NPARTS, PART_C);
    const int nsets = p.sets.nsets;

    /* fresh inputs (all that comes before C), the same in every set */
    const size_t *off = p.sets.off;
    char *host = tile_check_xmalloc(off[PART_C]);
    tile_check_rng rng = tile_check_rng_seed(0x6e1u + (uint64_t)M);
    tile_check_fill(TILE_CHECK_F16, host + off[PART_A], a_bytes / sizeof(half), &rng);
    tile_check_fill(TILE_CHECK_F16, host + off[PART_B], b_bytes / sizeof(half), &rng);
    tile_check_fill(TILE_CHECK_F32, host + off[PART_BIAS], (size_t)N, &rng);
    sample_sets_upload(&p.sets, host, off[PART_C]);
    free(host);

    printf("\n2. speed at %d x %d x %d (M x N x K), fp16; %d buffer set(s) rotating over %dx the L2 cache\n", M, N, K,
           nsets, TILE_BENCH_L2_FACTOR);
    const char *damage, *damage_unfused;
    half *fused = result_of(&p, run_fused, &damage), *unfused = result_of(&p, run_unfused, &damage_unfused);
    int ok = verdict("gemm_bias_gelu vs cuBLAS + bias_gelu (unfused)", fused, unfused, M, N, TOL_UNFUSED, 0.0, damage);
    sample_note_broken_reference(unfused, (size_t)M * N, damage_unfused, "C");
    free(fused), free(unfused);
    if (!ok) {
        printf("  not timed: the fused result is wrong at this shape\n");
    } else {
        tile_bench_result f1, unf, f2, gemm, e, gemm2;
        tile_bench_pair(run_fused, &p, run_unfused, &p, nsets, &f1, &unf);
        tile_bench_pair(run_fused, &p, run_cublas, &p, nsets, &f2, &gemm);
        tile_bench_pair(run_fused_erf, &p, run_cublas, &p, nsets, &e, &gemm2);
        const double flop = tile_bench_gemm_flops(M, N, K);
        const struct {
            const char *kernel, *reference;
            const tile_bench_result *k, *ref;
        } rows[3] = {{"gemm_bias_gelu (tanh)", "cuBLAS GEMM + bias_gelu kernel", &f1, &unf},
                     {"gemm_bias_gelu (tanh)", "cuBLAS GEMM alone, no epilogue", &f2, &gemm},
                     {"gemm_bias_gelu_erf (erf)", "cuBLAS GEMM alone, no epilogue", &e, &gemm2}};
        printf("\n");
        sample_print_timed_header(25, "tilepp kernel (fused)", 31, "reference, timed in turns");
        for (int i = 0; i < 3; i++)
            sample_print_timed_row(25, rows[i].kernel, 31, rows[i].reference, 3, flop, rows[i].k, rows[i].ref);
        printf("\n  ms: median per call of %d timed batches; TFLOP/s = 2MNK / ms (the epilogue not counted);\n"
               "  ref/tile: the reference's time over tilepp's (above 1: the fused kernel is faster).\n"
               "  (bench/bench_epilogue measures more shapes, and the same schedule without the epilogue)\n",
               TILE_BENCH_REPS);
    }
    sample_sets_free(&p.sets);
    return ok;
}

int main(int argc, char **argv)
{
    /* --small: the correctness part only (no timing, no large shape): for compute-sanitizer */
    const int small = argc > 1 && strcmp(argv[1], "--small") == 0;
    setvbuf(stdout, NULL, _IOLBF, 0); /* line by line, also into a pipe (the tour shows progress) */
    printf("gemm_bias_gelu: C = gelu(A B + bias), the bias and the GELU applied to the accumulator in\n"
           "registers (samples/gemm_bias_gelu.c; A, B, C half, bias float, float accumulation, 128 x 256 x 64\n"
           "tiles); two kernels: the tanh GELU (gemm_bias_gelu) and the erf one (gemm_bias_gelu_erf)\n\n");

    printf("CPU reference (the same functions compiled by the C compiler), random inputs in [-1, 1]:\n");
    small_case cases[2];
    for (int s = 0; s < 2; s++)
        small_cpu(&cases[s], shapes[s][0], shapes[s][1], shapes[s][2], 101 + (uint64_t)s);

    tile_check_require_gpu(); /* without a device: "SKIPPED: ..." and exit 77 */
    tile_check_print_device(stdout);
    CR_CHECK(cublasCreate(&blas));

    printf("\n1. correctness: the launchers against the CPU run, the same inputs; outputs poisoned (NaN)\n"
           "   with guard zones on both sides\n");
    int ok = 1;
    for (int s = 0; s < 2; s++)
        ok &= small_gpu(&cases[s]);
    for (int s = 0; s < 2; s++)
        free(cases[s].A), free(cases[s].B), free(cases[s].bias), free(cases[s].ref[0]), free(cases[s].ref[1]);

    if (ok && small)
        printf("\n2. speed: not measured (--small)\n");
    else if (ok)
        ok &= timed(TM, TN, TK);
    else
        printf("\n2. speed: not measured (a kernel is wrong; see the FAIL lines above)\n");

    CR_CHECK(cublasDestroy(blas));
    printf("\ngemm_bias_gelu: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

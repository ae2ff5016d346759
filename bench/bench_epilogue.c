/* bench_epilogue.c — a fused GEMM epilogue (samples/gemm_bias_gelu.c:
 * C = gelu(A B + bias) with the activation on the accumulator in registers)
 * side by side, in one process and in turns (bench_pair), with
 *
 *   - the plain tilepp GEMM at its best: the tuned kernel gemm_schedule
 *     of samples/gemm_schedules.c (32 schedules; the tuner picks the
 *     fastest per shape class, as it picks the fused kernel's), and
 *   - the unfused pair: cuBLAS (cublasGemmEx, fp32 accumulation, fp16 out)
 *     into a temporary, then samples/bias_gelu.c's bias + GELU kernel,
 *
 * at 4096^3, 8192^3 and 16384 x 4096 x 4096 (M x N x K), fp16. TFLOP/s
 * count the product's 2MNK only. Each kernel is checked first: the fused
 * one against the unfused pair at the timed shape, and against its own CPU
 * run at a ragged shape. Prints a markdown table (bench/RESULTS.md); with
 * --csv FILE also one CSV record per pair timed (bench/plot.py). Then the
 * sustained table (clocks and power, below); --sustained prints that alone,
 * after the CPU check. --profile times nothing: after the CPU check it
 * launches the plain, fused (tanh) and fused (erf) kernels twice each at
 * 4096^3, in that order, for a profiler (ncu). Without a CUDA device prints
 * "SKIPPED: ..." and exits 77. bench_epilogue_fast is the same program over
 * kernels built --use_fast_math (BENCH_FAST_MATH). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tilepp/bench.h>

#include "bias_gelu.tile.h"
#include "cublas_ref.h"
#include "gemm_bias_gelu.tile.h"
#include "gemm_schedules.tile.h"

void gemm_bias_gelu(int M, int N, int K, const half A[M][K], const half B[K][N], const float bias[N], half C[M][N]);

static cublasHandle_t blas;
static FILE *csv; /* --csv FILE, or NULL */

/* One buffer set: A | B | bias | C | T (the unfused pair's temporary). */
typedef struct {
    int M, N, K, nsets;
    size_t a_bytes, b_bytes, bias_bytes, c_bytes;
    char **base;
} problem;

static void *part(const problem *p, int set, int which)
{
    size_t off[5] = {0, p->a_bytes, p->a_bytes + p->b_bytes, p->a_bytes + p->b_bytes + p->bias_bytes,
                     p->a_bytes + p->b_bytes + p->bias_bytes + p->c_bytes};
    return p->base[set] + off[which];
}

enum { PART_A, PART_B, PART_BIAS, PART_C, PART_T };

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

/* The plain GEMM: gemm_schedule, tuned (the tile sizes, depth, stages and
 * threads that run fastest here, as the fused kernel's are). */
static cudaError_t run_plain(void *ctx, int set)
{
    const problem *p = ctx;
    return gemm_schedule_gpu(p->M, p->N, p->K, part(p, set, PART_A), part(p, set, PART_B), part(p, set, PART_C));
}

static cudaError_t run_unfused(void *ctx, int set)
{
    const problem *p = ctx;
    cublasStatus_t st = cr_gemm(blas, 0, 0, p->M, p->N, p->K, part(p, set, PART_A), CUDA_R_16F, part(p, set, PART_B),
                                CUDA_R_16F, part(p, set, PART_T), CUDA_R_16F);
    if (st != CUBLAS_STATUS_SUCCESS)
        return cudaErrorUnknown;
    return bias_gelu_gpu(p->M, p->N, part(p, set, PART_T), part(p, set, PART_BIAS), part(p, set, PART_C));
}

static void fill_set0(const problem *p)
{
    tile_check_rng rng = tile_check_rng_seed((uint64_t)p->M * 7 + (uint64_t)p->N * 3 + (uint64_t)p->K);
    half *a = tile_check_xmalloc(p->a_bytes), *b = tile_check_xmalloc(p->b_bytes);
    float *bias = tile_check_xmalloc(p->bias_bytes);
    tile_check_fill(TILE_CHECK_F16, a, p->a_bytes / sizeof(half), &rng);
    tile_check_fill(TILE_CHECK_F16, b, p->b_bytes / sizeof(half), &rng);
    tile_check_fill(TILE_CHECK_F32, bias, (size_t)p->N, &rng);
    TILE_CHECK_CUDA(cudaMemcpy(part(p, 0, PART_A), a, p->a_bytes, cudaMemcpyHostToDevice));
    TILE_CHECK_CUDA(cudaMemcpy(part(p, 0, PART_B), b, p->b_bytes, cudaMemcpyHostToDevice));
    TILE_CHECK_CUDA(cudaMemcpy(part(p, 0, PART_BIAS), bias, p->bias_bytes, cudaMemcpyHostToDevice));
    free(a), free(b), free(bias);
}

/* C of set 0 after fn, poisoned before. */
static half *result(problem *p, tile_bench_fn fn)
{
    half *out = tile_check_xmalloc(p->c_bytes);
    TILE_CHECK_CUDA(tile_check_poison(part(p, 0, PART_C), p->c_bytes));
    TILE_CHECK_CUDA(fn(p, 0));
    TILE_CHECK_CUDA(cudaDeviceSynchronize());
    TILE_CHECK_CUDA(cudaMemcpy(out, part(p, 0, PART_C), p->c_bytes, cudaMemcpyDeviceToHost));
    return out;
}

static void alloc_problem(problem *p, int M, int N, int K, int nsets)
{
    p->M = M, p->N = N, p->K = K;
    p->a_bytes = (size_t)M * K * sizeof(half), p->b_bytes = (size_t)K * N * sizeof(half);
    p->bias_bytes = ((size_t)N * sizeof(float) + 255) / 256 * 256, p->c_bytes = (size_t)M * N * sizeof(half);
    size_t set = p->a_bytes + p->b_bytes + p->bias_bytes + 2 * p->c_bytes;
    p->nsets = nsets ? nsets : tile_bench_sets(set);
    p->base = tile_check_xmalloc((size_t)p->nsets * sizeof *p->base);
    for (int i = 0; i < p->nsets; i++)
        TILE_CHECK_CUDA(cudaMalloc((void **)&p->base[i], set));
}

static void free_problem(problem *p)
{
    for (int i = 0; i < p->nsets; i++)
        TILE_CHECK_CUDA(cudaFree(p->base[i]));
    free(p->base);
}

/* The fused kernel against its CPU run at a shape no tile divides. */
static int check_cpu(void)
{
    problem p;
    int M = 300, N = 520, K = 136;
    alloc_problem(&p, M, N, K, 1);
    fill_set0(&p);
    half *a = tile_check_xmalloc(p.a_bytes), *b = tile_check_xmalloc(p.b_bytes), *ref = tile_check_xmalloc(p.c_bytes);
    float *bias = tile_check_xmalloc(p.bias_bytes);
    TILE_CHECK_CUDA(cudaMemcpy(a, part(&p, 0, PART_A), p.a_bytes, cudaMemcpyDeviceToHost));
    TILE_CHECK_CUDA(cudaMemcpy(b, part(&p, 0, PART_B), p.b_bytes, cudaMemcpyDeviceToHost));
    TILE_CHECK_CUDA(cudaMemcpy(bias, part(&p, 0, PART_BIAS), p.bias_bytes, cudaMemcpyDeviceToHost));
    gemm_bias_gelu(M, N, K, (const half(*)[K])a, (const half(*)[N])b, bias, (half(*)[N])ref);
    half *out = result(&p, run_fused);
    double err = tile_check_rel_err(TILE_CHECK_F16, out, TILE_CHECK_F16, ref, (size_t)M * N);
    printf("check: fused (tanh) %dx%dx%d against its CPU run: relative error %.2e\n\n", M, N, K, err);
    free(a), free(b), free(ref), free(bias), free(out);
    free_problem(&p);
    return !(err < 1e-2);
}

static int bench_shape(int M, int N, int K)
{
    problem p;
    alloc_problem(&p, M, N, K, 0);
    fill_set0(&p);
    /* the first calls tune (each tuned kernel once per shape class), before any timing */
    half *fused = result(&p, run_fused), *unfused = result(&p, run_unfused), *plain_out = result(&p, run_plain);
    half *erf_out = result(&p, run_fused_erf);
    free(plain_out), free(erf_out);
    double err = tile_check_rel_err(TILE_CHECK_F16, fused, TILE_CHECK_F16, unfused, (size_t)M * N);
    free(fused), free(unfused);
    if (!(err < 1e-2)) {
        printf("| %5d x %5d x %5d | WRONG RESULT: fused vs unfused relative error %.3g; not timed |\n", M, N, K, err);
        free_problem(&p);
        return 1;
    }
    for (int i = 1; i < p.nsets; i++)
        TILE_CHECK_CUDA(
            cudaMemcpy(p.base[i], p.base[0], p.a_bytes + p.b_bytes + p.bias_bytes, cudaMemcpyDeviceToDevice));
    tile_bench_result f1, plain, f2, unf, e1, e2;
    tile_bench_pair(run_fused, &p, run_plain, &p, p.nsets, &f1, &plain);
    tile_bench_pair(run_fused, &p, run_unfused, &p, p.nsets, &f2, &unf);
    tile_bench_pair(run_fused_erf, &p, run_plain, &p, p.nsets, &e1, &e2);
    double flop = tile_bench_gemm_flops(M, N, K);
#define TF(r) tile_bench_tflops(flop, (r).median_ms)
    printf("| %5d x %5d x %5d | %7.1f | %7.1f | %5.2f | %7.1f | %5.2f | %7.1f | %5.2f | %2.0e |\n", M, N, K, TF(f1),
           TF(plain), TF(f1) / TF(plain), TF(unf), TF(f2) / TF(unf), TF(e1), TF(e1) / TF(e2), err);
    fflush(stdout);
    /* the three pairs, each timed in turns */
    const struct {
        const char *kernel, *reference;
        const tile_bench_result *k, *ref;
    } pairs[3] = {{"gemm_bias_gelu (tanh)", "tilepp GEMM alone", &f1, &plain},
                  {"gemm_bias_gelu (tanh)", "cuBLAS + bias_gelu", &f2, &unf},
                  {"gemm_bias_gelu_erf", "tilepp GEMM alone", &e1, &e2}};
    char shape[48];
    snprintf(shape, sizeof shape, "%dx%dx%d", M, N, K);
    for (int i = 0; i < 3; i++) {
        tile_bench_record r = tile_bench_record_make("epilogue", pairs[i].kernel, shape, "fp16", "TFLOP/s");
        r.ms = pairs[i].k->median_ms, r.rate = TF(*pairs[i].k), r.reference = pairs[i].reference;
        r.ref_ms = pairs[i].ref->median_ms, r.ref_rate = TF(*pairs[i].ref), r.rel_err = i == 1 ? err : NAN;
        tile_bench_csv_write(csv, &r);
    }
#undef TF
    free_problem(&p);
    return 0;
}

/* Each kernel alone for seconds on end, after the in-turns table: the board
 * reaches its power limit under a GEMM, and a kernel that spends more
 * energy a tile (the epilogue's arithmetic) runs at a lower clock. The
 * work done per clock cycle (TFLOP/s per GHz) takes the clock out: two
 * kernels that differ only there differ by energy, not by cycles. */
enum { SUSTAIN_ROUNDS = 2 };
#define SUSTAIN_SECONDS 2.5
#define SUSTAIN_SETTLE 1.0

static void print_sustained_row(const char *shape, const char *kernel, int round, double flop,
                                const tile_bench_sustained *s)
{
    char why[96];
    double tf = tile_bench_tflops(flop, s->median_ms);
    tile_bench_reasons_text(s->reasons, why, sizeof why);
    if (s->readings && s->sm_mhz)
        printf("| %s | %s | %d | %7.1f | %4u | %5.0f | %3u | %6.1f | %s |\n", shape, kernel, round, tf, s->sm_mhz,
               s->watts, s->celsius, tf / (s->sm_mhz * 1e-3), why);
    else
        printf("| %s | %s | %d | %7.1f | n/a | n/a | n/a | n/a | NVML not readable |\n", shape, kernel, round, tf);
}

static int sustain_shape(int M, int N, int K, const tile_bench_board *board)
{
    problem p;
    alloc_problem(&p, M, N, K, 0);
    fill_set0(&p);
    for (int i = 1; i < p.nsets; i++)
        TILE_CHECK_CUDA(
            cudaMemcpy(p.base[i], p.base[0], p.a_bytes + p.b_bytes + p.bias_bytes, cudaMemcpyDeviceToDevice));
    const struct {
        const char *name;
        tile_bench_fn fn;
    } kernels[3] = {{"plain", run_plain}, {"fused (tanh)", run_fused}, {"fused (erf)", run_fused_erf}};
    tile_bench_sustained last[3];
    char shape[48];
    snprintf(shape, sizeof shape, "%d x %d x %d", M, N, K);
    double flop = tile_bench_gemm_flops(M, N, K);
    for (int round = 1; round <= SUSTAIN_ROUNDS; round++)
        for (int k = 0; k < 3; k++) {
            last[k] = tile_bench_sustain(kernels[k].fn, &p, p.nsets, SUSTAIN_SECONDS, SUSTAIN_SETTLE, board);
            print_sustained_row(shape, kernels[k].name, round, flop, &last[k]);
        }
    for (int k = 1; k < 3; k++)
        if (last[k].sm_mhz && last[0].sm_mhz)
            printf("| %s | %s / plain, round %d | | %5.3f | %5.3f | %5.3f | | %5.3f | time, clock, power, "
                   "per clock |\n",
                   shape, kernels[k].name, SUSTAIN_ROUNDS, last[0].median_ms / last[k].median_ms,
                   (double)last[k].sm_mhz / last[0].sm_mhz, last[k].watts / last[0].watts,
                   last[0].median_ms * last[0].sm_mhz / (last[k].median_ms * last[k].sm_mhz));
    fflush(stdout);
    free_problem(&p);
    return 0;
}

static const int shapes[3][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {16384, 4096, 4096}};

/* --profile: each kernel twice at the first shape, nothing timed. */
static int profile_launches(void)
{
    const int M = shapes[0][0], N = shapes[0][1], K = shapes[0][2];
    problem p;
    alloc_problem(&p, M, N, K, 1);
    fill_set0(&p);
    const tile_bench_fn kernels[3] = {run_plain, run_fused, run_fused_erf};
    for (int k = 0; k < 3; k++)
        for (int rep = 0; rep < 2; rep++)
            free(result(&p, kernels[k]));
    printf("profile: plain, fused (tanh), fused (erf), each launched twice at %dx%dx%d\n", M, N, K);
    free_problem(&p);
    return 0;
}

/* The table of rates, the three kernels and the unfused pair in turns. */
static int in_turns_table(void)
{
    int failures = 0;
    printf("| M x N x K             | fused | plain | fused/plain | cuBLAS+bias_gelu | fused/unfused | fused erf | "
           "erf/plain | err vs unfused |\n");
    printf("|-----------------------|------:|------:|------:|------:|------:|------:|------:|------:|\n");
    for (int i = 0; i < 3; i++)
        failures += bench_shape(shapes[i][0], shapes[i][1], shapes[i][2]);
    return failures;
}

/* The sustained table: each kernel alone for seconds, every shape. */
static int sustained_table(void)
{
    int failures = 0;
    tile_bench_board board = tile_bench_board_open();
    printf("\nSustained: each kernel alone for %.1f s (timed after %.1f s), the three in turn, %d rounds; the\n"
           "board read through NVML every %.0f ms: median SM clock, mean power, highest temperature, why the\n"
           "clock was held down. TFLOP/s per GHz is the work done per clock cycle.\n\n",
           SUSTAIN_SECONDS, SUSTAIN_SETTLE, SUSTAIN_ROUNDS, TILE_BENCH_BOARD_EVERY_MS);
    printf("| M x N x K | kernel | round | TFLOP/s | SM MHz | W | C | TFLOP/s per GHz | clocks held by |\n");
    printf("|---|---|--:|--:|--:|--:|--:|--:|---|\n");
    for (int i = 0; i < 3; i++)
        failures += sustain_shape(shapes[i][0], shapes[i][1], shapes[i][2], &board);
    return failures;
}

/* Whether `flag` is among the arguments; takes it out of argv if so. */
static int take_flag(int *argc, char **argv, const char *flag)
{
    for (int i = 1; i < *argc; i++)
        if (!strcmp(argv[i], flag)) {
            memmove(&argv[i], &argv[i + 1], (size_t)(*argc - i) * sizeof *argv);
            (*argc)--;
            return 1;
        }
    return 0;
}

int main(int argc, char **argv)
{
#ifdef BENCH_FAST_MATH /* bench_epilogue_fast: the same, every kernel built --use_fast_math */
#define TITLE "tilepp fused GEMM + bias + GELU vs plain GEMM and the unfused pair, --use_fast_math"
#else
#define TITLE "tilepp fused GEMM + bias + GELU vs plain GEMM and the unfused pair"
#endif
    const char *title = TITLE;
    /* --sustained: the sustained table alone (the clock-and-power reading,
     * seconds a kernel), for a device call too short for the whole bench;
     * --profile: the kernels' launches alone, for ncu. Taken out of argv
     * before tile_bench_csv_arg, whose --help lists them in `about`. */
    const char *about = TITLE "\n\n"
                              "  --sustained only the CPU check and the sustained table (clocks and power)\n"
                              "  --profile   only the CPU check, then each kernel twice at 4096^3, untimed (for ncu)";
    const int sustained_only = take_flag(&argc, argv, "--sustained");
    const int profile_only = take_flag(&argc, argv, "--profile");
    const char *csv_path = tile_bench_csv_arg(argc, argv, about);
    tile_check_require_gpu();
    CR_CHECK(cublasCreate(&blas));
    tile_bench_print_header(stdout, title);
    csv = tile_bench_csv_open(csv_path, title);
    printf("TFLOP/s = 2MNK / median time (%d batches, in turns); buffer sets rotate over %dx the L2.\n"
           "fused: samples/gemm_bias_gelu.c (tanh GELU; erf: its erf twin), tuned; plain: samples/gemm_schedules.c,\n"
           "tuned (its fastest schedule); unfused: cublasGemmEx (fp16 out) then samples/bias_gelu.c.\n\n",
           TILE_BENCH_REPS, TILE_BENCH_L2_FACTOR);
    int failures = check_cpu();
    if (profile_only) {
        failures += profile_launches();
    } else {
        if (!sustained_only)
            failures += in_turns_table();
        failures += sustained_table();
    }
    CR_CHECK(cublasDestroy(blas));
    failures += tile_bench_csv_close(csv, csv_path) != 0;
    return failures ? 1 : 0;
}

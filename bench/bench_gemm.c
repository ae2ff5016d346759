/* bench_gemm.c — tilepp's GEMM next to cuBLAS, side by side in one process:
 * C = A B, row-major, A M x K, B K x N, in fp16 and in bf16 (inputs and
 * output of that type, fp32 accumulation on both sides).
 *
 *   tilepp: the kernel of samples/gemm.c (fp16; its file's schedule, 128 x
 *   128 x 32, 3 stages, 128 threads, is gemm_bf16_128x128x32_s3_t128 in
 *   bf16) and the fastest schedule, picked by timing every one at 4096^3
 *   first: in fp16 the valid points of the tuned kernel gemm_schedule of
 *   samples/gemm_schedules.c, each run by name (gemm_schedule_gpu_point),
 *   in bf16 the kernels of bench/gemm_bf16.c. The selection table also
 *   times gemm_schedule's tuned launcher (gemm_schedule_gpu), after a first
 *   call that tunes it outside the timed runs;
 *   cuBLAS: cublasGemmEx, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT, output in
 *   the same type, row-major by the operand swap of cublas_ref.h.
 *
 * Sizes (M x N x K): 2048^3, 4096^3, 8192^3 and the LLM shapes 4096 x 4096 x
 * 1024, 8192 x 8192 x 512, 16384 x 4096 x 4096.
 *
 * The code path is the launcher's: on a compute capability 9.0 device the
 * sm_90a variants (wgmma, TMA, warp-specialized), with TILEPP_PATH=sm80 in
 * the environment the sm_80 kernels (mma.sync, cp.async). TFLOP/s = 2 M N K / time; the time is the median of
 * CUDA-event timed batches after a warm-up (<tilepp/bench.h>), with several
 * buffer sets rotating where one set is smaller than 4x the L2 cache.
 * Each tilepp result is checked once against cuBLAS (float result) before
 * it is timed; a wrong result is reported and not timed.
 *
 * Prints markdown tables (see bench/RESULTS.md); with --csv FILE also one
 * CSV record per timed kernel (bench/plot.py). Without a CUDA device
 * prints "SKIPPED: ..." and exits 77. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tilepp/bench.h>

#include "cublas_ref.h"
#include "gemm.tile.h"
#include "gemm_bf16.tile.h"
#include "gemm_schedules.tile.h"

typedef cudaError_t (*gemm_fn)(int M, int N, int K, const void *A, const void *B, void *C);

#define WRAP(name, T)                                                                         \
    static cudaError_t w_##name(int M, int N, int K, const void *A, const void *B, void *C)   \
    {                                                                                         \
        return name##_gpu(M, N, K, (const T *)A, (const T *)B, (T *)C);                       \
    }
WRAP(gemm, half)
WRAP(gemm_schedule, half)
WRAP(gemm_bf16_64x64x32_s2_t128, bfloat16)
WRAP(gemm_bf16_128x128x32_s3_t128, bfloat16)
WRAP(gemm_bf16_128x128x32_s3_t128_nosw, bfloat16)
WRAP(gemm_bf16_128x128x32_s4_t256, bfloat16)
WRAP(gemm_bf16_128x128x64_s3_t128, bfloat16)
WRAP(gemm_bf16_128x256x32_s3_t256, bfloat16)
WRAP(gemm_bf16_256x128x32_s3_t256, bfloat16)
WRAP(gemm_bf16_128x256x64_s3_t256, bfloat16)

/* A kernel: a launcher (fn), or a point of gemm_schedule's tune space by
 * name (point, run by gemm_schedule_gpu_point; fn NULL). */
typedef struct {
    const char *name;
    gemm_fn fn;
    const char *point;
} kernel;

static cudaError_t call(const kernel *k, int M, int N, int K, const void *A, const void *B, void *C)
{
    if (k->point)
        return gemm_schedule_gpu_point(k->point, M, N, K, (const half *)A, (const half *)B, (half *)C, 0);
    return k->fn(M, N, K, A, B, C);
}

/* clang-format off */
#define K_(name) {#name, w_##name, NULL}
#define P_(point) {"gemm_schedule:" point, NULL, point} /* named as TILEPP_TUNE_PIN names it */
/* clang-format on */
enum { NSCHED = 14 };

typedef struct {
    const char *label; /* fp16 / bf16 */
    cudaDataType_t type;
    double tol;       /* relative error against cuBLAS's float result */
    kernel sample;    /* samples/gemm.c */
    int sample_sched; /* the index in sched of the same code as sample, or -1 */
    kernel tuned;     /* a tuned launcher timed in the selection too (name NULL: none) */
    int nsched;
    kernel sched[NSCHED];
} precision;

/* Tolerances: see tests/gpu/gemm_test.c — fp32 accumulation in another
 * order (far below 2^-12), then one rounding to the output type: at most
 * 2^-11 relative for half, 2^-8 for bfloat16. */
static const precision precisions[] = {
    /* gemm.c is tuned itself: its launcher runs its own choice, no one point. */
    {"fp16",
     CUDA_R_16F,
     0x1p-10,
     K_(gemm),
     -1,
     K_(gemm_schedule),
     14,
     /* The valid points of samples/gemm_schedules.c (tilepp --list-variants). */
     {P_("BM=128,BN=128,BK=32,STAGES=3,THREADS=128"), P_("BM=128,BN=128,BK=32,STAGES=3,THREADS=256"),
      P_("BM=128,BN=128,BK=32,STAGES=4,THREADS=128"), P_("BM=128,BN=128,BK=32,STAGES=4,THREADS=256"),
      P_("BM=128,BN=128,BK=64,STAGES=3,THREADS=128"), P_("BM=128,BN=128,BK=64,STAGES=3,THREADS=256"),
      P_("BM=128,BN=128,BK=64,STAGES=4,THREADS=128"), P_("BM=128,BN=128,BK=64,STAGES=4,THREADS=256"),
      P_("BM=128,BN=256,BK=32,STAGES=3,THREADS=256"), P_("BM=128,BN=256,BK=32,STAGES=4,THREADS=256"),
      P_("BM=128,BN=256,BK=64,STAGES=3,THREADS=256"), P_("BM=256,BN=128,BK=32,STAGES=3,THREADS=256"),
      P_("BM=256,BN=128,BK=32,STAGES=4,THREADS=256"), P_("BM=256,BN=128,BK=64,STAGES=3,THREADS=256")}},
    {"bf16",
     CUDA_R_16BF,
     0x1p-7,
     K_(gemm_bf16_128x128x32_s3_t128),
     1,
     {NULL, NULL, NULL},
     8,
     {K_(gemm_bf16_64x64x32_s2_t128), K_(gemm_bf16_128x128x32_s3_t128), K_(gemm_bf16_128x128x32_s3_t128_nosw),
      K_(gemm_bf16_128x128x32_s4_t256), K_(gemm_bf16_128x128x64_s3_t128), K_(gemm_bf16_128x256x32_s3_t256),
      K_(gemm_bf16_256x128x32_s3_t256), K_(gemm_bf16_128x256x64_s3_t256)}},
};

static const struct {
    int M, N, K;
} sizes[] = {{2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192},
             {4096, 4096, 1024}, {8192, 8192, 512},   {16384, 4096, 4096}};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

/* ---- buffers ---------------------------------------------------------------- */

/* Random inputs come from a device pool of POOL elements (odd, so that rows
 * of any matrix copied from it do not repeat in step), filled once per
 * precision from the host. */
enum { POOL = (1 << 24) + 7 };

typedef struct {
    int M, N, K, nsets;
    void **A, **B, **C; /* per set */
    size_t es;          /* bytes per element */
} problem;

static void fill_from_pool(void *dst, size_t n, const void *pool, size_t offset, size_t es)
{
    size_t done = 0;
    while (done < n) {
        size_t at = (offset + done) % POOL, chunk = POOL - at;
        if (chunk > n - done)
            chunk = n - done;
        TILE_CHECK_CUDA(
            cudaMemcpy((char *)dst + done * es, (const char *)pool + at * es, chunk * es, cudaMemcpyDeviceToDevice));
        done += chunk;
    }
}

static problem problem_alloc(int M, int N, int K, size_t es, const void *pool)
{
    problem p = {.M = M, .N = N, .K = K, .es = es};
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    p.nsets = tile_bench_sets((na + nb + nc) * es);
    p.A = tile_check_xmalloc((size_t)p.nsets * sizeof(void *));
    p.B = tile_check_xmalloc((size_t)p.nsets * sizeof(void *));
    p.C = tile_check_xmalloc((size_t)p.nsets * sizeof(void *));
    for (int s = 0; s < p.nsets; s++) {
        TILE_CHECK_CUDA(cudaMalloc(&p.A[s], na * es));
        TILE_CHECK_CUDA(cudaMalloc(&p.B[s], nb * es));
        TILE_CHECK_CUDA(cudaMalloc(&p.C[s], nc * es));
        fill_from_pool(p.A[s], na, pool, (size_t)s * 7919, es);
        fill_from_pool(p.B[s], nb, pool, (size_t)POOL / 2 + (size_t)s * 104729, es);
    }
    return p;
}

static void problem_free(problem *p)
{
    for (int s = 0; s < p->nsets; s++) {
        TILE_CHECK_CUDA(cudaFree(p->A[s]));
        TILE_CHECK_CUDA(cudaFree(p->B[s]));
        TILE_CHECK_CUDA(cudaFree(p->C[s]));
    }
    free(p->A), free(p->B), free(p->C);
}

/* ---- runs ------------------------------------------------------------------- */

static cublasHandle_t blas;

typedef struct {
    const problem *p;
    const kernel *k; /* NULL: cuBLAS */
    cudaDataType_t type;
} run_ctx;

static cudaError_t run_one(void *ctx, int set)
{
    const run_ctx *r = ctx;
    const problem *p = r->p;
    if (r->k)
        return call(r->k, p->M, p->N, p->K, p->A[set], p->B[set], p->C[set]);
    cublasStatus_t st = cr_gemm(blas, 0, 0, p->M, p->N, p->K, p->A[set], r->type, p->B[set],
                                r->type, p->C[set], r->type);
    return st == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

/* The kernel's result on set 0 against cuBLAS's float result. */
static double check(const problem *p, const precision *pr, const kernel *k, const float *ref)
{
    size_t nc = (size_t)p->M * p->N;
    void *out = tile_check_xmalloc(nc * p->es);
    TILE_CHECK_CUDA(tile_check_poison(p->C[0], nc * p->es));
    cudaError_t e = call(k, p->M, p->N, p->K, p->A[0], p->B[0], p->C[0]);
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        printf("%s %dx%dx%d: CUDA error %s (%s)\n", k->name, p->M, p->N, p->K, cudaGetErrorName(e),
               cudaGetErrorString(e));
        exit(1);
    }
    TILE_CHECK_CUDA(cudaMemcpy(out, p->C[0], nc * p->es, cudaMemcpyDeviceToHost));
    tile_check_type t = pr->type == CUDA_R_16F ? TILE_CHECK_F16 : TILE_CHECK_BF16;
    double err = tile_check_rel_err(t, out, TILE_CHECK_F32, ref, nc); /* NaN when an element is unwritten */
    free(out);
    return err;
}

/* cuBLAS's float result for set 0, on the host. */
static float *reference(const problem *p, const precision *pr)
{
    size_t nc = (size_t)p->M * p->N;
    float *dref = NULL, *ref = tile_check_xmalloc(nc * sizeof(float));
    TILE_CHECK_CUDA(cudaMalloc((void **)&dref, nc * sizeof(float)));
    CR_CHECK(cr_gemm(blas, 0, 0, p->M, p->N, p->K, p->A[0], pr->type, p->B[0], pr->type, dref,
                     CUDA_R_32F));
    TILE_CHECK_CUDA(cudaDeviceSynchronize());
    TILE_CHECK_CUDA(cudaMemcpy(ref, dref, nc * sizeof(float), cudaMemcpyDeviceToHost));
    TILE_CHECK_CUDA(cudaFree(dref));
    return ref;
}

static size_t elem_size(const precision *pr)
{
    return pr->type == CUDA_R_16F ? sizeof(half) : sizeof(bfloat16);
}

static double tflops(const problem *p, double ms)
{
    return tile_bench_tflops(tile_bench_gemm_flops(p->M, p->N, p->K), ms);
}

/* --csv FILE: one record per timed tilepp kernel, against cuBLAS; the
 * bench names carry the code path (gemm_sm90, gemm_select_sm90, ...). */
static FILE *csv;
static const char *path_name;

static void csv_row(const char *table, const precision *pr, const char *kernel, const problem *p, double ms,
                    double blas_ms, double err)
{
    char bench[48], shape[48];
    snprintf(bench, sizeof bench, "%s_%s", table, path_name);
    snprintf(shape, sizeof shape, "%dx%dx%d", p->M, p->N, p->K);
    tile_bench_record r = tile_bench_record_make(bench, kernel, shape, pr->label, "TFLOP/s");
    r.ms = ms, r.rate = tflops(p, ms), r.reference = "cuBLAS", r.ref_ms = blas_ms, r.ref_rate = tflops(p, blas_ms);
    r.rel_err = err;
    tile_bench_csv_write(csv, &r);
}

/* ---- the benchmark ---------------------------------------------------------- */

typedef struct {
    char line[64][256];
    int n;
} rows;

static void add_row(rows *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (t->n < 64)
        vsnprintf(t->line[t->n++], sizeof t->line[0], fmt, ap);
    va_end(ap);
}

static int failures;

/* Times every schedule at 4096^3; returns the index of the fastest correct
 * one. The tuned launcher (pr->tuned) gets a row too, not eligible: its
 * check is its first call at this shape class, which tunes (unless the cache
 * has a choice), so the timed runs launch its choice. */
static int pick_best(const precision *pr, const void *pool, rows *sel)
{
    problem p = problem_alloc(4096, 4096, 4096, elem_size(pr), pool);
    float *ref = reference(&p, pr);
    run_ctx blas_ctx = {&p, NULL, pr->type};
    double blas_ms = tile_bench_time(run_one, &blas_ctx, p.nsets).median_ms, blas_t = tflops(&p, blas_ms);
    int best = -1;
    double best_t = 0.0;
    for (int i = pr->tuned.name ? -1 : 0; i < pr->nsched; i++) {
        const kernel *k = i < 0 ? &pr->tuned : &pr->sched[i];
        double err = check(&p, pr, k, ref); /* the tuned launcher: tunes here */
        if (!(err < pr->tol)) {
            add_row(sel, "| %s | %-54s | WRONG: %.3g | | |", pr->label, k->name, err);
            if (i < 0)
                failures++;
            continue;
        }
        run_ctx c = {&p, k, pr->type};
        double ms = tile_bench_time(run_one, &c, p.nsets).median_ms, t = tflops(&p, ms);
        add_row(sel, "| %s | %-54s | %8.2e | %7.1f | %8.2f |", pr->label, i < 0 ? "gemm_schedule (tuned)" : k->name,
                err, t, t / blas_t);
        csv_row("gemm_select", pr, k->name, &p, ms, blas_ms, err);
        if (i >= 0 && t > best_t)
            best = i, best_t = t;
    }
    add_row(sel, "| %s | %-54s | %8s | %7.1f | %8.2f |", pr->label, "cuBLAS", "", blas_t, 1.0);
    free(ref);
    problem_free(&p);
    return best;
}

static void bench_size(const precision *pr, const kernel *best, int M, int N, int K,
                       const void *pool, rows *out, double *ratio_out)
{
    problem p = problem_alloc(M, N, K, elem_size(pr), pool);
    float *ref = reference(&p, pr);
    run_ctx blas_ctx = {&p, NULL, pr->type};
    char size[48];
    snprintf(size, sizeof size, "%dx%dx%d", M, N, K);

    const kernel *list[2] = {&pr->sample, best};
    int count = best ? 2 : 1;
    *ratio_out = 0.0;
    for (int i = 0; i < count; i++) {
        const kernel *k = list[i];
        double err = check(&p, pr, k, ref);
        if (!(err < pr->tol)) {
            add_row(out, "| %s | %-17s | %-54s | WRONG RESULT: rel err %.3g (not timed) | | | | | | |", pr->label, size,
                    k->name, err);
            failures++;
            continue;
        }
        run_ctx c = {&p, k, pr->type};
        tile_bench_result r, rb;
        tile_bench_pair(run_one, &c, run_one, &blas_ctx, p.nsets, &r, &rb); /* in turns: the same clocks */
        double t = tflops(&p, r.median_ms), blas_t = tflops(&p, rb.median_ms);
        add_row(out, "| %s | %-17s | %-54s | %14.1f | %14.1f | %5.2f | %9.3f | %9.3f | %8.1e | %4d |", pr->label, size,
                k->name, t, blas_t, t / blas_t, r.median_ms, rb.median_ms, err, p.nsets);
        csv_row("gemm", pr, k->name, &p, r.median_ms, rb.median_ms, err);
        if (t / blas_t > *ratio_out)
            *ratio_out = t / blas_t;
    }
    free(ref);
    problem_free(&p);
}

int main(int argc, char **argv)
{
    const char *csv_path =
        tile_bench_csv_arg(argc, argv, "tilepp GEMM vs cuBLAS (TILEPP_PATH=sm80: the sm_80 kernels on an H100/H200)");
    tile_check_require_gpu();
    CR_CHECK(cublasCreate(&blas));
    int dev = 0, major = 0, minor = 0;
    TILE_CHECK_CUDA(cudaGetDevice(&dev));
    TILE_CHECK_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    TILE_CHECK_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    const char *path_env = getenv("TILEPP_PATH");
    const bool sm90 = major == 9 && minor == 0 && !(path_env && strcmp(path_env, "sm80") == 0);
    const char *title = sm90 ? "tilepp GEMM (sm_90a path: wgmma, TMA, warp-specialized) vs cuBLAS"
                             : "tilepp GEMM (sm_80 path: mma.sync, cp.async) vs cuBLAS";
    tile_bench_print_header(stdout, title);
    csv = tile_bench_csv_open(csv_path, title);
    path_name = sm90 ? "sm90" : "sm80";

    rows sel = {0}, table = {0};
    double ratio[2][NSIZES] = {{0}};
    const char *best_name[2] = {0};
    for (int t = 0; t < 2; t++) {
        const precision *pr = &precisions[t];
        /* The pool: POOL random elements in [-1, 1], never zero. */
        size_t es = elem_size(pr);
        void *host = tile_check_xmalloc((size_t)POOL * es);
        tile_check_rng rng = tile_check_rng_seed(100 + (uint64_t)t);
        if (pr->type == CUDA_R_16F)
            tile_check_fill(TILE_CHECK_F16, host, POOL, &rng);
        else
            tile_check_fill(TILE_CHECK_BF16, host, POOL, &rng);
        void *pool = tile_check_to_device(host, (size_t)POOL * es);
        free(host);

        int b = pick_best(pr, pool, &sel);
        const kernel *best = b >= 0 ? &pr->sched[b] : NULL;
        /* The sample's own schedule: no second row for the same code. */
        if (best && b == pr->sample_sched)
            best = NULL;
        best_name[t] = b >= 0 ? pr->sched[b].name : "(none correct)";
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            bench_size(pr, best, sizes[s].M, sizes[s].N, sizes[s].K, pool, &table, &ratio[t][s]);
        TILE_CHECK_CUDA(cudaFree(pool));
    }

    printf("C = A B, row-major, A M x K, B K x N; inputs and output fp16 or bf16, fp32\n"
           "accumulation. TFLOP/s = 2 M N K / median time of CUDA-event timed batches (%d\n"
           "batches of >= %.0f ms after %d warm-up calls); buffer sets rotate so that together\n"
           "they exceed %dx the L2 cache. cuBLAS: cublasGemmEx, CUBLAS_COMPUTE_32F, output of\n"
           "the same type, timed in turns with each tilepp kernel (a batch of one, a batch of\n"
           "the other: the clocks drift over a run). rel err: the tilepp result against\n"
           "cuBLAS's float result, checked once before timing.\n\n",
           TILE_BENCH_REPS, TILE_BENCH_MIN_BATCH_MS, TILE_BENCH_WARMUP, TILE_BENCH_L2_FACTOR);
    printf("Schedule selection at 4096^3 (the fastest correct one is benchmarked below):\n\n");
    printf("| type | config                                                 | rel err  | TFLOP/s | x cuBLAS |\n");
    printf("|------|--------------------------------------------------------|---------:|--------:|---------:|\n");
    for (int i = 0; i < sel.n; i++)
        printf("%s\n", sel.line[i]);
    printf("\nBest: fp16 %s, bf16 %s\n\n", best_name[0], best_name[1]);

    printf("| type | M x N x K         | tilepp kernel                                          | tilepp TFLOP/s | "
           "cuBLAS TFLOP/s | ratio | tilepp ms | cuBLAS ms |  rel err | sets |\n");
    printf("|------|-------------------|--------------------------------------------------------|---------------:|"
           "---------------:|------:|----------:|----------:|---------:|-----:|\n");
    for (int i = 0; i < table.n; i++)
        printf("%s\n", table.line[i]);

    if (sm90) {
        printf("\nTargets for the sm_90a path on the H200 (best tilepp kernel): >= 0.95x cuBLAS at 4096^3 and "
               "8192^3, >= 0.9x at 2048^3 and the LLM shapes:\n");
        for (int t = 0; t < 2; t++) {
            bool met = ratio[t][1] >= 0.95 && ratio[t][2] >= 0.95;
            for (int s = 0; s < NSIZES; s++)
                met &= s == 1 || s == 2 || ratio[t][s] >= 0.9;
            printf("  %s:", precisions[t].label);
            for (int s = 0; s < NSIZES; s++)
                printf(" %dx%dx%d %.2fx%s", sizes[s].M, sizes[s].N, sizes[s].K, ratio[t][s], s + 1 < NSIZES ? "," : "");
            printf(" -> %s\n", met ? "met" : "NOT met");
        }
    } else {
        printf("\nTarget for the sm_80 path on the H200: >= 0.6x cuBLAS at 4096 and 8192 (best tilepp "
               "kernel):\n");
        for (int t = 0; t < 2; t++)
            printf("  %s: 4096^3 %.2fx, 8192^3 %.2fx -> %s\n", precisions[t].label, ratio[t][1], ratio[t][2],
                   ratio[t][1] >= 0.6 && ratio[t][2] >= 0.6 ? "met" : "NOT met");
    }

    CR_CHECK(cublasDestroy(blas));
    failures += tile_bench_csv_close(csv, csv_path) != 0;
    return failures ? 1 : 0;
}

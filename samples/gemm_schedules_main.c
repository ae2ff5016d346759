/* gemm_schedules_main.c — the schedule exploration of one GEMM (C = A B,
 * half in and out, float accumulation): the tuned kernel gemm_schedule of
 * gemm_schedules.c, its valid points run one by one by name
 * (gemm_schedule_gpu_point), each the same product at another block tile,
 * pipeline depth and thread count, and the tuned launcher itself
 * (gemm_schedule_gpu), which picks one of them per GPU and shape class.
 * The points tilepp prunes are listed with the translator's reason.
 *
 * For the tuned launcher and each valid point:
 *   - correctness: against the CPU reference (the same function compiled by
 *     the C compiler, the file's values) at 333 x 517 x 259, a size that is
 *     no multiple of any block, and against cuBLAS (fp32 accumulation, float
 *     result) on random data at 2048 x 2048 x 2048;
 *   - speed: at 4096^3, the median of 20 runs timed one by one with CUDA
 *     events after 3 warm-up runs, next to cuBLAS (half result) timed alike.
 *     The tuned launcher tunes on its first call for each shape class (the
 *     checks above, and one call at 4096^3 before it is timed), so the timed
 *     runs launch its choice; TILEPP_TUNE_VERBOSE=1 prints the tuner's table.
 * Every pruned point's name must be refused by gemm_schedule_gpu_point
 * (cudaErrorInvalidValue) and every valid one accepted: the lists below are
 * checked against the generated code.
 * Prints a table and names the fastest point that is correct.
 *
 * Without a CUDA device: runs the CPU reference on a small size and says
 * that the GPU part was skipped.
 *
 * Exit status: 0 when the tuned launcher and every valid point are correct
 * and the generated code agrees with the lists of points (or there is no
 * GPU), 1 otherwise. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <tilepp/bench.h>

#include "cublas_ref.h"
#include "gemm_schedules.tile.h"

/* The CPU reference, compiled from gemm_schedules.c by the C compiler. */
void gemm_schedule(int M, int N, int K, const half A[M][K], const half B[K][N], half C[M][N]);

/* The tune space of gemm_schedules.c, in the clause's order (the last NAME
 * varying fastest): BM(128, 256) BN(128, 256) BK(32, 64) STAGES(3, 4)
 * THREADS(128, 256). */
static const int space_bm[] = {128, 256}, space_bn[] = {128, 256}, space_bk[] = {32, 64}, space_stages[] = {3, 4},
                 space_threads[] = {128, 256};
enum { NPOINTS = 32 };

/* The points tilepp prunes, with its reasons: `tilepp --list-variants
 * gemm_schedules.c` (default --arch 80,90a; the sm_80 path sets the budgets:
 * 166912 bytes of shared memory a block, fragments of at most 176 values a
 * thread). The full diagnostics read, e.g.:
 *
 *   gemm_schedule BM=128,BN=256,BK=32,STAGES=3,THREADS=128  pruned:
 *     gemm_schedules.c:41:19: the block's fragments would hold 256 values in
 *     each of the 128 threads' registers; at most 176 fit without spilling
 *     (of a thread's 255 registers, tilepp gives fragments at most 176, up
 *     to 256 threads): use more threads (with threads(256): 128 values a
 *     thread, of at most 176) or smaller tiles
 *   gemm_schedule BM=128,BN=256,BK=64,STAGES=4,THREADS=256  pruned:
 *     gemm_schedules.c:35:1: this block needs 196608 bytes of shared memory
 *     (As: 4 x 16384, Bs: 4 x 32768), more than the 166912 a block may have
 *     on sm_80: use smaller tiles or fewer stages */
#define FRAG(v, t) "fragments: " #v " values in each of the " #t " threads' registers, more than the 176 that fit"
#define SMEM(b, a) "shared memory: needs " #b " bytes (" a "), more than the 166912 a block may have on sm_80"
static const struct {
    const char *name, *reason;
} pruned[] = {
    {"BM=128,BN=256,BK=32,STAGES=3,THREADS=128", FRAG(256, 128)},
    {"BM=128,BN=256,BK=32,STAGES=4,THREADS=128", FRAG(256, 128)},
    {"BM=128,BN=256,BK=64,STAGES=3,THREADS=128", FRAG(256, 128)},
    {"BM=128,BN=256,BK=64,STAGES=4,THREADS=128", SMEM(196608, "As 4 x 16384, Bs 4 x 32768")},
    {"BM=128,BN=256,BK=64,STAGES=4,THREADS=256", SMEM(196608, "As 4 x 16384, Bs 4 x 32768")},
    {"BM=256,BN=128,BK=32,STAGES=3,THREADS=128", FRAG(256, 128)},
    {"BM=256,BN=128,BK=32,STAGES=4,THREADS=128", FRAG(256, 128)},
    {"BM=256,BN=128,BK=64,STAGES=3,THREADS=128", FRAG(256, 128)},
    {"BM=256,BN=128,BK=64,STAGES=4,THREADS=128", SMEM(196608, "As 4 x 32768, Bs 4 x 16384")},
    {"BM=256,BN=128,BK=64,STAGES=4,THREADS=256", SMEM(196608, "As 4 x 32768, Bs 4 x 16384")},
    {"BM=256,BN=256,BK=32,STAGES=3,THREADS=128", FRAG(512, 128)},
    {"BM=256,BN=256,BK=32,STAGES=3,THREADS=256", FRAG(256, 256)},
    {"BM=256,BN=256,BK=32,STAGES=4,THREADS=128", FRAG(512, 128)},
    {"BM=256,BN=256,BK=32,STAGES=4,THREADS=256", FRAG(256, 256)},
    {"BM=256,BN=256,BK=64,STAGES=3,THREADS=128", SMEM(196608, "As 3 x 32768, Bs 3 x 32768")},
    {"BM=256,BN=256,BK=64,STAGES=3,THREADS=256", SMEM(196608, "As 3 x 32768, Bs 3 x 32768")},
    {"BM=256,BN=256,BK=64,STAGES=4,THREADS=128", SMEM(262144, "As 4 x 32768, Bs 4 x 32768")},
    {"BM=256,BN=256,BK=64,STAGES=4,THREADS=256", SMEM(262144, "As 4 x 32768, Bs 4 x 32768")},
};
enum { NPRUNED = (int)(sizeof pruned / sizeof *pruned), NVALID = NPOINTS - NPRUNED };

/* The file's values: the CPU reference's schedule, and TILEPP_TUNE=off's. */
#define SOURCE_POINT "BM=128,BN=256,BK=64,STAGES=3,THREADS=256"

typedef struct {
    char name[64];
    int bm, bn, bk, stages, threads;
    const char *reason; /* NULL: valid */
} point;

static point points[NPOINTS];

/* Every point of the space, in the clause's order, named as tilepp names it. */
static void enumerate_points(void)
{
    int n = 0;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            for (int c = 0; c < 2; c++)
                for (int d = 0; d < 2; d++)
                    for (int e = 0; e < 2; e++) {
                        point *p = &points[n++];
                        p->bm = space_bm[a], p->bn = space_bn[b], p->bk = space_bk[c];
                        p->stages = space_stages[d], p->threads = space_threads[e];
                        snprintf(p->name, sizeof p->name, "BM=%d,BN=%d,BK=%d,STAGES=%d,THREADS=%d", p->bm, p->bn, p->bk,
                                 p->stages, p->threads);
                        p->reason = NULL;
                        for (int i = 0; i < NPRUNED; i++)
                            if (strcmp(pruned[i].name, p->name) == 0)
                                p->reason = pruned[i].reason;
                    }
}

/* The L2 swizzle panel of a point: gemm_schedules.c's SWIZZLE. */
static int swizzle_of(const point *p) { return p->bm * p->bn > 128 * 128 ? 4 : 8; }

/* Shared memory of a point: the stages of the A and B tiles. */
static long smem_bytes(const point *p)
{
    return (long)p->stages * ((long)p->bm * p->bk + (long)p->bk * p->bn) * (long)sizeof(half);
}

/* Tolerance for half results (relative, 2-norm): see samples/gemm_main.c —
 * fp32 accumulation in another order, then one rounding to half (2^-11). */
#define TOL 0x1p-10

enum { CHECK_M = 333, CHECK_N = 517, CHECK_K = 259, BLAS_N = 2048, TIME_N = 4096 };
enum { WARMUP = 3, TIMED = 20 };

/* A kernel under test: a point by name, or (name NULL) the tuned launcher. */
static cudaError_t run_gemm(const char *point_name, int M, int N, int K, const half *A, const half *B, half *C)
{
    if (point_name)
        return gemm_schedule_gpu_point(point_name, M, N, K, A, B, C, 0);
    return gemm_schedule_gpu(M, N, K, A, B, C);
}

/* Median milliseconds of TIMED runs of launch(ctx), each between two events. */
typedef cudaError_t (*launch_fn)(const void *ctx);

static double median_ms(launch_fn launch, const void *ctx)
{
    cudaEvent_t start, stop;
    TILE_CHECK_CUDA(cudaEventCreate(&start));
    TILE_CHECK_CUDA(cudaEventCreate(&stop));
    for (int i = 0; i < WARMUP; i++)
        TILE_CHECK_CUDA(launch(ctx));
    double ms[TIMED];
    for (int i = 0; i < TIMED; i++) {
        float elapsed = 0.0f;
        TILE_CHECK_CUDA(cudaEventRecord(start, 0));
        TILE_CHECK_CUDA(launch(ctx));
        TILE_CHECK_CUDA(cudaEventRecord(stop, 0));
        TILE_CHECK_CUDA(cudaEventSynchronize(stop));
        TILE_CHECK_CUDA(cudaEventElapsedTime(&elapsed, start, stop));
        ms[i] = elapsed;
    }
    TILE_CHECK_CUDA(cudaEventDestroy(start));
    TILE_CHECK_CUDA(cudaEventDestroy(stop));
    return tile_bench_median(ms, TIMED);
}

typedef struct {
    const char *point; /* NULL: the tuned launcher */
    cublasHandle_t blas;
    int n;
    const half *A, *B;
    half *C;
} timing_ctx;

static cudaError_t launch_tile(const void *p)
{
    const timing_ctx *t = p;
    return run_gemm(t->point, t->n, t->n, t->n, t->A, t->B, t->C);
}

static cudaError_t launch_blas(const void *p)
{
    const timing_ctx *t = p;
    cublasStatus_t st = cr_gemm(t->blas, 0, 0, t->n, t->n, t->n, t->A, CUDA_R_16F, t->B, CUDA_R_16F, t->C, CUDA_R_16F);
    return st == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

static void print_pruned(void)
{
    printf("\nPoints tilepp prunes (%d of the %d; reason from `tilepp --list-variants gemm_schedules.c`):\n\n", NPRUNED,
           NPOINTS);
    printf("| point                                    | smem KB | reason |\n");
    printf("|------------------------------------------|--------:|--------|\n");
    for (int i = 0; i < NPOINTS; i++) {
        const point *p = &points[i];
        if (p->reason)
            printf("| %-40s | %7.0f | %s |\n", p->name, smem_bytes(p) / 1024.0, p->reason);
    }
}

/* A matrix of n random halves on the host (never zero). */
static half *random_halves(size_t n, uint64_t seed)
{
    half *p = tile_check_xmalloc(n * sizeof(half));
    tile_check_rng rng = tile_check_rng_seed(seed);
    tile_check_fill(TILE_CHECK_F16, p, n, &rng);
    return p;
}

static double seconds_now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void)
{
    enumerate_points();
    printf("gemm_schedules: C = A B (half in and out, float accumulation), one tuned kernel:\n"
           "%d points, %d valid, %d pruned by tilepp\n",
           NPOINTS, NVALID, NPRUNED);
    print_pruned();

    /* The CPU reference on a small size. */
    char reason[256];
    if (!tile_check_gpu_available(reason, sizeof reason)) {
        const int M = CHECK_M, N = CHECK_N, K = CHECK_K;
        half *A = random_halves((size_t)M * K, 1), *B = random_halves((size_t)K * N, 2);
        half *C = tile_check_xmalloc((size_t)M * N * sizeof(half));
        gemm_schedule(M, N, K, (const half(*)[K])A, (const half(*)[N])B, (half(*)[N])C);
        double norm = 0.0;
        for (size_t i = 0; i < (size_t)M * N; i++)
            norm += (double)(float)C[i] * (double)(float)C[i];
        printf("\nCPU: gemm_schedule (%s) at %dx%dx%d: ||C|| = %.4f, C[0][0] = %.5f\n", SOURCE_POINT, M, N, K,
               sqrt(norm), (float)C[0]);
        printf("GPU: skipped (no CUDA device)\n     (%s)\n", reason);
        free(A), free(B), free(C);
        return 0;
    }
    printf("\n");
    tile_check_print_device(stdout);
    fflush(stdout);

    cublasHandle_t blas;
    CR_CHECK(cublasCreate(&blas));

    /* Inputs: the small check, the cuBLAS check and the timing size. */
    const size_t ncheck_a = (size_t)CHECK_M * CHECK_K, ncheck_b = (size_t)CHECK_K * CHECK_N,
                 ncheck_c = (size_t)CHECK_M * CHECK_N;
    half *hA = random_halves(ncheck_a, 11), *hB = random_halves(ncheck_b, 12);
    half *ref = tile_check_xmalloc(ncheck_c * sizeof(half)), *out = tile_check_xmalloc(ncheck_c * sizeof(half));
    half *dA = tile_check_to_device(hA, ncheck_a * sizeof(half)),
         *dB = tile_check_to_device(hB, ncheck_b * sizeof(half));
    half *dC = NULL;
    TILE_CHECK_CUDA(cudaMalloc((void **)&dC, ncheck_c * sizeof(half)));
    tile_check_poison_host(ref, ncheck_c * sizeof(half));
    gemm_schedule(CHECK_M, CHECK_N, CHECK_K, (const half(*)[CHECK_K])hA, (const half(*)[CHECK_N])hB,
                  (half(*)[CHECK_N])ref);

    const size_t nbig = (size_t)TIME_N * TIME_N, nblas = (size_t)BLAS_N * BLAS_N;
    half *hBig = random_halves(2 * nbig, 13);
    half *dBigA = tile_check_to_device(hBig, nbig * sizeof(half));
    half *dBigB = tile_check_to_device(hBig + nbig, nbig * sizeof(half));
    half *dBigC = NULL, *hOut = tile_check_xmalloc(nblas * sizeof(half));
    float *dRef = NULL, *hRef = tile_check_xmalloc(nblas * sizeof(float));
    TILE_CHECK_CUDA(cudaMalloc((void **)&dBigC, nbig * sizeof(half)));
    TILE_CHECK_CUDA(cudaMalloc((void **)&dRef, nblas * sizeof(float)));
    /* The 2048^3 check reads the first 2048^2 elements of each input. */
    CR_CHECK(cr_gemm(blas, 0, 0, BLAS_N, BLAS_N, BLAS_N, dBigA, CUDA_R_16F, dBigB, CUDA_R_16F, dRef, CUDA_R_32F));
    TILE_CHECK_CUDA(cudaDeviceSynchronize());
    TILE_CHECK_CUDA(cudaMemcpy(hRef, dRef, nblas * sizeof(float), cudaMemcpyDeviceToHost));

    /* The generated code against the lists: a pruned name is refused
     * without a launch, so the check buffers are safe either way. */
    int failures = 0;
    for (int i = 0; i < NPOINTS; i++) {
        const point *p = &points[i];
        if (!p->reason)
            continue;
        cudaError_t e = gemm_schedule_gpu_point(p->name, CHECK_M, CHECK_N, CHECK_K, dA, dB, dC, 0);
        if (e != cudaErrorInvalidValue) {
            printf("%s: listed as pruned, but gemm_schedule_gpu_point returned %s\n", p->name, cudaGetErrorName(e));
            failures++;
        }
    }
    TILE_CHECK_CUDA(cudaDeviceSynchronize());

    timing_ctx tc = {.blas = blas, .n = TIME_N, .A = dBigA, .B = dBigB, .C = dBigC};
    double flop = 2.0 * TIME_N * (double)TIME_N * TIME_N;
    double blas_ms = median_ms(launch_blas, &tc);
    double blas_tflops = flop / (blas_ms * 1e-3) / 1e12;

    /* Row 0: the tuned launcher; then the valid points. */
    enum { NROWS = 1 + NVALID };
    const point *row_point[NROWS];
    int nrows = 0;
    row_point[nrows++] = NULL;
    for (int i = 0; i < NPOINTS; i++)
        if (!points[i].reason && nrows < NROWS)
            row_point[nrows++] = &points[i];

    double err_cpu[NROWS], err_blas[NROWS], ms[NROWS], tune_s = 0.0;
    int ok[NROWS], best = -1;
    for (int i = 0; i < nrows; i++) {
        const point *p = row_point[i];
        const char *name = p ? p->name : NULL;
        const int M = CHECK_M, N = CHECK_N, K = CHECK_K;
        printf("%-40s  ", p ? p->name : "gemm_schedule_gpu (tuned)"); /* before it runs: a failing call names it */
        fflush(stdout);
        TILE_CHECK_CUDA(tile_check_poison(dC, ncheck_c * sizeof(half)));
        cudaError_t e = run_gemm(name, M, N, K, dA, dB, dC);
        if (e == cudaErrorInvalidValue && p) {
            printf("listed as valid, but gemm_schedule_gpu_point refuses it\n");
            ok[i] = 0, err_cpu[i] = err_blas[i] = NAN, ms[i] = NAN;
            failures++;
            continue;
        }
        TILE_CHECK_CUDA(e);
        TILE_CHECK_CUDA(cudaDeviceSynchronize());
        TILE_CHECK_CUDA(cudaMemcpy(out, dC, ncheck_c * sizeof(half), cudaMemcpyDeviceToHost));
        err_cpu[i] = tile_check_rel_err(TILE_CHECK_F16, out, TILE_CHECK_F16, ref,
                                        ncheck_c); /* NaN (fails) if any is unwritten */

        TILE_CHECK_CUDA(tile_check_poison(dBigC, nblas * sizeof(half)));
        TILE_CHECK_CUDA(run_gemm(name, BLAS_N, BLAS_N, BLAS_N, dBigA, dBigB, dBigC));
        TILE_CHECK_CUDA(cudaDeviceSynchronize());
        TILE_CHECK_CUDA(cudaMemcpy(hOut, dBigC, nblas * sizeof(half), cudaMemcpyDeviceToHost));
        err_blas[i] = tile_check_rel_err(TILE_CHECK_F16, hOut, TILE_CHECK_F32, hRef, nblas);

        if (!p) {
            /* The first call at 4096^3 tunes (unless the cache has a choice):
             * outside the timed runs. */
            double t0 = seconds_now();
            TILE_CHECK_CUDA(run_gemm(NULL, TIME_N, TIME_N, TIME_N, dBigA, dBigB, dBigC));
            TILE_CHECK_CUDA(cudaDeviceSynchronize());
            tune_s = seconds_now() - t0;
        }
        ok[i] = err_cpu[i] < TOL && err_blas[i] < TOL;
        tc.point = name;
        ms[i] = median_ms(launch_tile, &tc);
        printf("vs CPU %.2e, vs cuBLAS %.2e: %s; %.3f ms at %d^3\n", err_cpu[i], err_blas[i], ok[i] ? "ok" : "WRONG",
               ms[i], TIME_N);
        fflush(stdout);
        if (!ok[i])
            failures++;
        else if (p && (best < 0 || ms[i] < ms[best]))
            best = i;
    }

    printf("\nThe tuned launcher and the valid points: accuracy (relative error, tolerance %.1e) at "
           "%dx%dx%d\nagainst the CPU reference and at %d^3 against cuBLAS; time at %d^3 (median of %d "
           "runs, CUDA events,\nafter %d warm-up runs; the launcher's first call at %d^3, which tunes "
           "unless the cache has a\nchoice, took %.2f s and is not counted).\n\n",
           TOL, CHECK_M, CHECK_N, CHECK_K, BLAS_N, TIME_N, TIMED, WARMUP, TIME_N, tune_s);
    printf("| kernel                                   | block       | stages | threads | swizzle | smem KB "
           "| err vs CPU | err vs cuBLAS | ms @4096 | TFLOP/s | x cuBLAS |\n");
    printf("|------------------------------------------|-------------|-------:|--------:|--------:|--------:"
           "|-----------:|--------------:|---------:|--------:|---------:|\n");
    for (int i = 0; i < nrows; i++) {
        const point *p = row_point[i];
        char block[32] = "", stages[16] = "", threads[16] = "", sw[16] = "", smem[16] = "";
        if (p) {
            snprintf(block, sizeof block, "%dx%dx%d", p->bm, p->bn, p->bk);
            snprintf(stages, sizeof stages, "%d", p->stages);
            snprintf(threads, sizeof threads, "%d", p->threads);
            snprintf(sw, sizeof sw, "%d", swizzle_of(p));
            snprintf(smem, sizeof smem, "%.0f", smem_bytes(p) / 1024.0);
        }
        double tflops = flop / (ms[i] * 1e-3) / 1e12;
        printf("| %-40s | %-11s | %6s | %7s | %7s | %7s | %10.2e | %13.2e | %8.3f | %7.1f | %8.2f |%s\n",
               p ? p->name : "gemm_schedule_gpu (tuned)", block, stages, threads, sw, smem, err_cpu[i], err_blas[i],
               ms[i], tflops, tflops / blas_tflops, ok[i] ? "" : " WRONG");
    }
    printf("| %-40s | %-11s | %6s | %7s | %7s | %7s | %10s | %13s | %8.3f | %7.1f | %8.2f |\n", "cuBLAS (cublasGemmEx)",
           "", "", "", "", "", "", "", blas_ms, blas_tflops, 1.0);

    if (best >= 0)
        printf("\nBest point: %s, %.1f TFLOP/s at %d^3 (%.2fx cuBLAS); the tuned launcher: %.1f TFLOP/s\n",
               row_point[best]->name, flop / (ms[best] * 1e-3) / 1e12, TIME_N,
               flop / (ms[best] * 1e-3) / 1e12 / blas_tflops, flop / (ms[0] * 1e-3) / 1e12);
    if (failures)
        printf("%d failure(s): WRONG results (not eligible as best) or points the generated code "
               "disagrees about\n",
               failures);

    CR_CHECK(cublasDestroy(blas));
    TILE_CHECK_CUDA(cudaFree(dA));
    TILE_CHECK_CUDA(cudaFree(dB));
    TILE_CHECK_CUDA(cudaFree(dC));
    TILE_CHECK_CUDA(cudaFree(dBigA));
    TILE_CHECK_CUDA(cudaFree(dBigB));
    TILE_CHECK_CUDA(cudaFree(dBigC));
    TILE_CHECK_CUDA(cudaFree(dRef));
    free(hA), free(hB), free(ref), free(out), free(hBig), free(hOut), free(hRef);
    return failures ? 1 : 0;
}

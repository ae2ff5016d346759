/* gemm_schedules_main.c — the schedule exploration of one GEMM (C = A B,
 * half in and out, float accumulation): the kernels of gemm_schedules.c,
 * each the same product at another block tile, pipeline depth, thread count
 * and L2 swizzle, plus the configurations the translator refuses, listed
 * with its reason.
 *
 * For each configuration tilepp accepted:
 *   - correctness: against its CPU reference (the same function compiled by
 *     the C compiler) at 333 x 517 x 259, a size that is no multiple of any
 *     block, and against cuBLAS (fp32 accumulation, float result) on random
 *     data at 2048 x 2048 x 2048;
 *   - speed: at 4096^3, the median of 20 runs timed one by one with CUDA
 *     events after 3 warm-up runs, next to cuBLAS (half result) timed alike.
 * Prints a table and names the fastest configuration that is correct.
 *
 * Without a CUDA device: runs the CPU reference of one configuration on a
 * small size and says that the GPU part was skipped.
 *
 * Exit status: 0 when every accepted configuration is correct (or there is
 * no GPU), 1 otherwise. */
#include <stdio.h>

#include <tilepp/bench.h>

#include "cublas_ref.h"
#include "gemm_schedules.tile.h"

/* The CPU references, compiled from gemm_schedules.c by the C compiler. */
typedef void gemm_cpu_fn(int M, int N, int K, const half A[M][K], const half B[K][N],
                         half C[M][N]);
gemm_cpu_fn gemm_64x64x32_s2_t128, gemm_128x128x32_s3_t128, gemm_128x128x32_s3_t128_nosw,
    gemm_128x128x32_s4_t256, gemm_128x128x64_s3_t128, gemm_128x256x32_s3_t256,
    gemm_256x128x32_s3_t256, gemm_128x256x64_s3_t256;

typedef cudaError_t (*gemm_gpu_fn)(int M, int N, int K, const half *A, const half *B, half *C);

typedef struct {
    const char *name;
    int bm, bn, bk, stages, threads, swizzle; /* swizzle 0: none */
    gemm_cpu_fn *cpu;
    gemm_gpu_fn gpu;
} config;

#define CONFIG(bm, bn, bk, s, t, sw, suffix)                                                  \
    {"gemm_" #bm "x" #bn "x" #bk "_s" #s "_t" #t suffix, bm, bn, bk, s, t, sw,                 \
     gemm_##bm##x##bn##x##bk##_s##s##_t##t, gemm_##bm##x##bn##x##bk##_s##s##_t##t##_gpu}

static const config configs[] = {
    CONFIG(64, 64, 32, 2, 128, 8, ""),
    CONFIG(128, 128, 32, 3, 128, 8, ""),
    {"gemm_128x128x32_s3_t128_nosw", 128, 128, 32, 3, 128, 0, gemm_128x128x32_s3_t128_nosw,
     gemm_128x128x32_s3_t128_nosw_gpu},
    CONFIG(128, 128, 32, 4, 256, 8, ""),
    CONFIG(128, 128, 64, 3, 128, 8, ""),
    CONFIG(128, 256, 32, 3, 256, 4, ""),
    CONFIG(256, 128, 32, 3, 256, 4, ""),
    CONFIG(128, 256, 64, 3, 256, 4, ""),
};
enum { NCONFIGS = (int)(sizeof configs / sizeof *configs) };

/* Configurations tilepp refuses, so they cannot be kernels of
 * gemm_schedules.c (one refused kernel fails the whole file). The reasons
 * are the translator's diagnostics for a one-kernel file of each (the
 * kernel of gemm_schedules.c with these constants), translated with the
 * default --arch 80,90a (the sm_80 path sets the budget: 163 KB of shared
 * memory per block):
 *
 *   gemm_128x256x64_s4_t256.c:5:1: error: this block needs 196608 bytes of
 *     shared memory (As: 4 x 16384, Bs: 4 x 32768), more than the 166912 a
 *     block may have on sm_80: use smaller tiles or fewer stages
 *   gemm_256x128x64_s4_t256.c:5:1: error: this block needs 196608 bytes of
 *     shared memory (As: 4 x 32768, Bs: 4 x 16384), more than the 166912 a
 *     block may have on sm_80: use smaller tiles or fewer stages
 *   gemm_256x256x32_s3_t256.c:11:19: error: fragment 'Cf' would hold 256
 *     values in each of the 256 threads' registers; at most 128 fit without
 *     spilling: use more threads or a smaller tile
 *   gemm_128x256x32_s3_t128.c:11:19: error: fragment 'Cf' would hold 256
 *     values in each of the 128 threads' registers; at most 128 fit without
 *     spilling: use more threads or a smaller tile */
typedef struct {
    const char *name;
    int bm, bn, bk, stages, threads;
    const char *reason;
} refused;

static const refused refused_configs[] = {
    {"gemm_128x256x64_s4_t256", 128, 256, 64, 4, 256,
     "shared memory: needs 196608 bytes (As 4 x 16384, Bs 4 x 32768), more than the 166912 "
     "a block may have on sm_80"},
    {"gemm_256x128x64_s4_t256", 256, 128, 64, 4, 256,
     "shared memory: needs 196608 bytes (As 4 x 32768, Bs 4 x 16384), more than the 166912 "
     "a block may have on sm_80"},
    {"gemm_256x256x32_s3_t256", 256, 256, 32, 3, 256,
     "fragment 'Cf' would hold 256 values in each of the 256 threads' registers; at most 128 "
     "fit without spilling"},
    {"gemm_128x256x32_s3_t128", 128, 256, 32, 3, 128,
     "fragment 'Cf' would hold 256 values in each of the 128 threads' registers; at most 128 "
     "fit without spilling"},
};
enum { NREFUSED = (int)(sizeof refused_configs / sizeof *refused_configs) };

/* Shared memory of a configuration: the stages of the A and B tiles. */
static long smem_bytes(int bm, int bn, int bk, int stages)
{
    return (long)stages * ((long)bm * bk + (long)bk * bn) * (long)sizeof(half);
}

/* Tolerance for half results (relative, 2-norm): see samples/gemm_main.c —
 * fp32 accumulation in another order, then one rounding to half (2^-11). */
#define TOL 0x1p-10

enum { CHECK_M = 333, CHECK_N = 517, CHECK_K = 259, BLAS_N = 2048, TIME_N = 4096 };
enum { WARMUP = 3, TIMED = 20 };

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
    gemm_gpu_fn gpu;
    cublasHandle_t blas;
    int n;
    const half *A, *B;
    half *C;
} timing_ctx;

static cudaError_t launch_tile(const void *p)
{
    const timing_ctx *t = p;
    return t->gpu(t->n, t->n, t->n, t->A, t->B, t->C);
}

static cudaError_t launch_blas(const void *p)
{
    const timing_ctx *t = p;
    cublasStatus_t st = cr_gemm(t->blas, 0, 0, t->n, t->n, t->n, t->A, CUDA_R_16F, t->B,
                                CUDA_R_16F, t->C, CUDA_R_16F);
    return st == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

static void print_refused(void)
{
    printf("\nConfigurations tilepp refuses (not in gemm_schedules.c; reason from the translator):\n\n");
    printf("| config                  | block       | stages | threads | smem KB | reason |\n");
    printf("|-------------------------|-------------|-------:|--------:|--------:|--------|\n");
    for (int i = 0; i < NREFUSED; i++) {
        const refused *r = &refused_configs[i];
        char block[32];
        snprintf(block, sizeof block, "%dx%dx%d", r->bm, r->bn, r->bk);
        printf("| %-23s | %-11s | %6d | %7d | %7.0f | %s |\n", r->name, block, r->stages,
               r->threads, smem_bytes(r->bm, r->bn, r->bk, r->stages) / 1024.0, r->reason);
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

int main(void)
{
    printf("gemm_schedules: C = A B (half in and out, float accumulation) at %d schedules\n",
           NCONFIGS);
    print_refused();

    /* The CPU reference of the first configuration on a small size. */
    char reason[256];
    if (!tile_check_gpu_available(reason, sizeof reason)) {
        const int M = CHECK_M, N = CHECK_N, K = CHECK_K;
        half *A = random_halves((size_t)M * K, 1), *B = random_halves((size_t)K * N, 2);
        half *C = tile_check_xmalloc((size_t)M * N * sizeof(half));
        const config *c = &configs[1];
        c->cpu(M, N, K, (const half(*)[K])A, (const half(*)[N])B, (half(*)[N])C);
        double norm = 0.0;
        for (size_t i = 0; i < (size_t)M * N; i++)
            norm += (double)(float)C[i] * (double)(float)C[i];
        printf("\nCPU: %s at %dx%dx%d: ||C|| = %.4f, C[0][0] = %.5f\n", c->name, M, N, K,
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

    const size_t nbig = (size_t)TIME_N * TIME_N, nblas = (size_t)BLAS_N * BLAS_N;
    half *hBig = random_halves(2 * nbig, 13);
    half *dBigA = tile_check_to_device(hBig, nbig * sizeof(half));
    half *dBigB = tile_check_to_device(hBig + nbig, nbig * sizeof(half));
    half *dBigC = NULL, *hOut = tile_check_xmalloc(nblas * sizeof(half));
    float *dRef = NULL, *hRef = tile_check_xmalloc(nblas * sizeof(float));
    TILE_CHECK_CUDA(cudaMalloc((void **)&dBigC, nbig * sizeof(half)));
    TILE_CHECK_CUDA(cudaMalloc((void **)&dRef, nblas * sizeof(float)));
    /* The 2048^3 check reads the first 2048^2 elements of each input. */
    CR_CHECK(cr_gemm(blas, 0, 0, BLAS_N, BLAS_N, BLAS_N, dBigA, CUDA_R_16F, dBigB, CUDA_R_16F,
                     dRef, CUDA_R_32F));
    TILE_CHECK_CUDA(cudaDeviceSynchronize());
    TILE_CHECK_CUDA(cudaMemcpy(hRef, dRef, nblas * sizeof(float), cudaMemcpyDeviceToHost));

    timing_ctx tc = {.blas = blas, .n = TIME_N, .A = dBigA, .B = dBigB, .C = dBigC};
    double flop = 2.0 * TIME_N * (double)TIME_N * TIME_N;
    double blas_ms = median_ms(launch_blas, &tc);
    double blas_tflops = flop / (blas_ms * 1e-3) / 1e12;

    double err_cpu[NCONFIGS], err_blas[NCONFIGS], ms[NCONFIGS];
    int ok[NCONFIGS], failures = 0, best = -1;
    for (int i = 0; i < NCONFIGS; i++) {
        const config *c = &configs[i];
        const int M = CHECK_M, N = CHECK_N, K = CHECK_K;
        printf("%-28s  ", c->name); /* before it runs: a failing call names its kernel */
        fflush(stdout);
        tile_check_poison_host(ref, ncheck_c * sizeof(half));
        c->cpu(M, N, K, (const half(*)[K])hA, (const half(*)[N])hB, (half(*)[N])ref);
        TILE_CHECK_CUDA(tile_check_poison(dC, ncheck_c * sizeof(half)));
        TILE_CHECK_CUDA(c->gpu(M, N, K, dA, dB, dC));
        TILE_CHECK_CUDA(cudaDeviceSynchronize());
        TILE_CHECK_CUDA(cudaMemcpy(out, dC, ncheck_c * sizeof(half), cudaMemcpyDeviceToHost));
        err_cpu[i] = tile_check_rel_err(TILE_CHECK_F16, out, TILE_CHECK_F16, ref,
                                        ncheck_c); /* NaN (fails) if any is unwritten */

        TILE_CHECK_CUDA(tile_check_poison(dBigC, nblas * sizeof(half)));
        TILE_CHECK_CUDA(c->gpu(BLAS_N, BLAS_N, BLAS_N, dBigA, dBigB, dBigC));
        TILE_CHECK_CUDA(cudaDeviceSynchronize());
        TILE_CHECK_CUDA(cudaMemcpy(hOut, dBigC, nblas * sizeof(half), cudaMemcpyDeviceToHost));
        err_blas[i] = tile_check_rel_err(TILE_CHECK_F16, hOut, TILE_CHECK_F32, hRef, nblas);

        ok[i] = err_cpu[i] < TOL && err_blas[i] < TOL;
        tc.gpu = c->gpu;
        ms[i] = median_ms(launch_tile, &tc);
        printf("vs CPU %.2e, vs cuBLAS %.2e: %s; %.3f ms at %d^3\n", err_cpu[i], err_blas[i],
               ok[i] ? "ok" : "WRONG", ms[i], TIME_N);
        fflush(stdout);
        if (!ok[i])
            failures++;
        else if (best < 0 || ms[i] < ms[best])
            best = i;
    }

    printf("\nAccepted configurations: accuracy (relative error, tolerance %.1e) at %dx%dx%d "
           "against the CPU\nreference and at %d^3 against cuBLAS; time at %d^3 (median of %d "
           "runs, CUDA events, after %d warm-up runs).\n\n",
           TOL, CHECK_M, CHECK_N, CHECK_K, BLAS_N, TIME_N, TIMED, WARMUP);
    printf("| config                       | block       | stages | threads | swizzle | smem KB "
           "| err vs CPU | err vs cuBLAS | ms @4096 | TFLOP/s | x cuBLAS |\n");
    printf("|------------------------------|-------------|-------:|--------:|--------:|--------:"
           "|-----------:|--------------:|---------:|--------:|---------:|\n");
    for (int i = 0; i < NCONFIGS; i++) {
        const config *c = &configs[i];
        char block[32], sw[16];
        snprintf(block, sizeof block, "%dx%dx%d", c->bm, c->bn, c->bk);
        snprintf(sw, sizeof sw, c->swizzle ? "%d" : "none", c->swizzle);
        double tflops = flop / (ms[i] * 1e-3) / 1e12;
        printf("| %-28s | %-11s | %6d | %7d | %7s | %7.0f | %10.2e | %13.2e | %8.3f | %7.1f | %8.2f |%s\n",
               c->name, block, c->stages, c->threads, sw,
               smem_bytes(c->bm, c->bn, c->bk, c->stages) / 1024.0, err_cpu[i], err_blas[i], ms[i],
               tflops, tflops / blas_tflops, ok[i] ? "" : " WRONG");
    }
    printf("| %-28s | %-11s | %6s | %7s | %7s | %7s | %10s | %13s | %8.3f | %7.1f | %8.2f |\n",
           "cuBLAS (cublasGemmEx)", "", "", "", "", "", "", "", blas_ms, blas_tflops, 1.0);

    if (best >= 0)
        printf("\nBest: %s, %.1f TFLOP/s at %d^3 (%.2fx cuBLAS)\n", configs[best].name,
               flop / (ms[best] * 1e-3) / 1e12, TIME_N, flop / (ms[best] * 1e-3) / 1e12 / blas_tflops);
    if (failures)
        printf("%d configuration(s) gave WRONG results (not eligible as best)\n", failures);

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

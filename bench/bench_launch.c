#define _POSIX_C_SOURCE 200809L /* clock_gettime */
/* bench_launch.c — host time per call: what a launcher costs the CPU.
 *
 * samples/gemm.c's gemm_gpu() (the brief's GEMM: fp16 in and out, fp32
 * accumulation) against cublasGemmEx for the same product (cr_gemm), at
 * n = 128, 256, 512 and 1024 (square). Each measurement enqueues a batch of
 * BATCH back-to-back calls on the same buffers and times, with the host's
 * monotonic clock, only the enqueueing; the batch is small enough that the
 * launch queue never fills (so a call never waits for the GPU), and the
 * device is synchronised between batches. Reported: the median over REPS
 * batches of (batch time / BATCH), after WARMUP calls (first-call work:
 * module loading, tensor maps, attributes). Both libraries run in turns.
 *
 * Run it on the GPU machine: build/bin/bench_launch. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "cublas_ref.h"
#include "gemm.tile.h"
#include "sample_util.h"

enum { BATCH = 200, REPS = 31, WARMUP = 200 };

typedef struct {
    int n;
    half *a, *b, *c;
    cublasHandle_t h;
} launch_case;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static cudaError_t call_tilepp(const launch_case *lc) { return gemm_gpu(lc->n, lc->n, lc->n, lc->a, lc->b, lc->c); }

static cudaError_t call_cublas(const launch_case *lc)
{
    return cr_gemm(lc->h, 0, 0, lc->n, lc->n, lc->n, lc->a, CUDA_R_16F, lc->b, CUDA_R_16F, lc->c, CUDA_R_16F) ==
                   CUBLAS_STATUS_SUCCESS
               ? cudaSuccess
               : cudaErrorUnknown;
}

/* Host microseconds per call of one batch. */
static double batch_us(cudaError_t (*call)(const launch_case *), const launch_case *lc)
{
    SU_CHECK(cudaDeviceSynchronize());
    double t0 = now_us();
    for (int i = 0; i < BATCH; i++)
        SU_CHECK(call(lc));
    double t1 = now_us();
    SU_CHECK(cudaDeviceSynchronize());
    return (t1 - t0) / BATCH;
}

int main(void)
{
    char reason[256];
    if (!su_gpu_available(reason, sizeof reason)) {
        printf("SKIPPED: no CUDA device (%s)\n", reason);
        return SU_EXIT_SKIP;
    }
    struct cudaDeviceProp prop;
    SU_CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("Host time per call (us): gemm_gpu (samples/gemm.c) against cublasGemmEx, fp16,\n"
           "square n; median of %d batches of %d back-to-back calls, host clock around the\n"
           "enqueueing only, after %d warm-up calls. %s, %s.\n\n",
           REPS, BATCH, WARMUP, prop.name, getenv("TILEPP_PATH") ? getenv("TILEPP_PATH") : "TILEPP_PATH unset");
    printf("|    n | tilepp us/call | cuBLAS us/call | tilepp / cuBLAS |\n");
    printf("|-----:|---------------:|---------------:|----------------:|\n");
    launch_case lc;
    CR_CHECK(cublasCreate(&lc.h));
    const int sizes[] = {128, 256, 512, 1024};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        lc.n = sizes[s];
        size_t bytes = (size_t)lc.n * lc.n * sizeof(half);
        SU_CHECK(cudaMalloc((void **)&lc.a, bytes));
        SU_CHECK(cudaMalloc((void **)&lc.b, bytes));
        SU_CHECK(cudaMalloc((void **)&lc.c, bytes));
        SU_CHECK(cudaMemset(lc.a, 0x3c, bytes)); /* 0x3c3c: 1.06 in fp16, finite */
        SU_CHECK(cudaMemset(lc.b, 0x3c, bytes));
        for (int i = 0; i < WARMUP; i++) {
            SU_CHECK(call_tilepp(&lc));
            SU_CHECK(call_cublas(&lc));
        }
        double t[REPS], c[REPS];
        for (int r = 0; r < REPS; r++) {
            t[r] = batch_us(call_tilepp, &lc);
            c[r] = batch_us(call_cublas, &lc);
        }
        qsort(t, REPS, sizeof *t, cmp_double);
        qsort(c, REPS, sizeof *c, cmp_double);
        printf("| %4d | %14.2f | %14.2f | %15.2f |\n", lc.n, t[REPS / 2], c[REPS / 2], t[REPS / 2] / c[REPS / 2]);
        SU_CHECK(cudaFree(lc.a));
        SU_CHECK(cudaFree(lc.b));
        SU_CHECK(cudaFree(lc.c));
    }
    CR_CHECK(cublasDestroy(lc.h));
    return 0;
}

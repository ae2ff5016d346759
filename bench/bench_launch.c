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
 * Run it on the GPU machine: build/bin/bench_launch [--csv FILE] (one CSV
 * record per size, times only, for bench/plot.py). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include <tilepp/bench.h>

#include "cublas_ref.h"
#include "gemm.tile.h"

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
    TILE_CHECK_CUDA(cudaDeviceSynchronize());
    double t0 = now_us();
    for (int i = 0; i < BATCH; i++)
        TILE_CHECK_CUDA(call(lc));
    double t1 = now_us();
    TILE_CHECK_CUDA(cudaDeviceSynchronize());
    return (t1 - t0) / BATCH;
}

int main(int argc, char **argv)
{
    const char *title = "Host time per launcher call: gemm_gpu (samples/gemm.c) against cublasGemmEx";
    const char *csv_path = tile_bench_csv_arg(argc, argv, title);
    tile_check_require_gpu();
    FILE *csv = tile_bench_csv_open(csv_path, title);
    struct cudaDeviceProp prop;
    TILE_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
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
        TILE_CHECK_CUDA(cudaMalloc((void **)&lc.a, bytes));
        TILE_CHECK_CUDA(cudaMalloc((void **)&lc.b, bytes));
        TILE_CHECK_CUDA(cudaMalloc((void **)&lc.c, bytes));
        TILE_CHECK_CUDA(cudaMemset(lc.a, 0x3c, bytes)); /* 0x3c3c: 1.06 in fp16, finite */
        TILE_CHECK_CUDA(cudaMemset(lc.b, 0x3c, bytes));
        for (int i = 0; i < WARMUP; i++) {
            TILE_CHECK_CUDA(call_tilepp(&lc));
            TILE_CHECK_CUDA(call_cublas(&lc));
        }
        double t[REPS], c[REPS];
        for (int r = 0; r < REPS; r++) {
            t[r] = batch_us(call_tilepp, &lc);
            c[r] = batch_us(call_cublas, &lc);
        }
        double tm = tile_bench_median(t, REPS), cm = tile_bench_median(c, REPS);
        printf("| %4d | %14.2f | %14.2f | %15.2f |\n", lc.n, tm, cm, tm / cm);
        char shape[48];
        snprintf(shape, sizeof shape, "%dx%dx%d", lc.n, lc.n, lc.n);
        tile_bench_record r = tile_bench_record_make("launch", "gemm_gpu (host time)", shape, "fp16", NULL);
        r.ms = tm * 1e-3, r.reference = "cublasGemmEx (host time)", r.ref_ms = cm * 1e-3;
        tile_bench_csv_write(csv, &r);
        TILE_CHECK_CUDA(cudaFree(lc.a));
        TILE_CHECK_CUDA(cudaFree(lc.b));
        TILE_CHECK_CUDA(cudaFree(lc.c));
    }
    CR_CHECK(cublasDestroy(lc.h));
    return tile_bench_csv_close(csv, csv_path) != 0;
}

/* gemm_main.c — runs the GEMM sample (gemm.c: C = A B, half in and out,
 * float accumulation): the CPU reference (the plain C function gemm()) on
 * random data at 1000 x 1003 x 1007, a size that is no multiple of the
 * 128 x 128 x 32 block, then, when a CUDA device is present, the launcher
 * tilepp generated (gemm_gpu) on the same data, compared with the CPU result
 * and with cuBLAS; finally, for information, one timed run at 4096^3.
 *
 * Exit status: 0 when the GPU result matches (or no GPU is present and only
 * the CPU part ran), 1 on a mismatch or a CUDA error. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <tilepp/check.h>

#include "cublas_ref.h"
#include "gemm.tile.h"

/* The CPU reference, compiled from gemm.c by the C compiler. */
void gemm(int M, int N, int K, const half A[M][K], const half B[K][N], half C[M][N]);

static double seconds_now(void)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One warm-up and one timed run (CUDA events) of the kernel at n^3, next to
 * cuBLAS (half output, fp32 accumulation) timed the same way. Information,
 * not a benchmark: bench/bench_gemm.c measures properly. */
static void time_4096(cublasHandle_t blas)
{
    const int n = 4096;
    size_t count = (size_t)n * (size_t)n, bytes = count * sizeof(half);
    half *host = tile_check_xmalloc(bytes);
    tile_check_rng rng = tile_check_rng_seed(7);
    tile_check_fill(TILE_CHECK_F16, host, count, &rng);
    half *dA = tile_check_to_device(host, bytes), *dB = tile_check_to_device(host, bytes), *dC = NULL;
    TILE_CHECK_CUDA(cudaMalloc((void **)&dC, bytes));
    cudaEvent_t start, stop;
    TILE_CHECK_CUDA(cudaEventCreate(&start));
    TILE_CHECK_CUDA(cudaEventCreate(&stop));
    float ms_tile = 0.0f, ms_blas = 0.0f;

    TILE_CHECK_CUDA(gemm_gpu(n, n, n, dA, dB, dC)); /* warm-up */
    TILE_CHECK_CUDA(cudaEventRecord(start, 0));
    TILE_CHECK_CUDA(gemm_gpu(n, n, n, dA, dB, dC));
    TILE_CHECK_CUDA(cudaEventRecord(stop, 0));
    TILE_CHECK_CUDA(cudaEventSynchronize(stop));
    TILE_CHECK_CUDA(cudaEventElapsedTime(&ms_tile, start, stop));

    CR_CHECK(cr_gemm(blas, 0, 0, n, n, n, dA, CUDA_R_16F, dB, CUDA_R_16F, dC, CUDA_R_16F));
    TILE_CHECK_CUDA(cudaEventRecord(start, 0));
    CR_CHECK(cr_gemm(blas, 0, 0, n, n, n, dA, CUDA_R_16F, dB, CUDA_R_16F, dC, CUDA_R_16F));
    TILE_CHECK_CUDA(cudaEventRecord(stop, 0));
    TILE_CHECK_CUDA(cudaEventSynchronize(stop));
    TILE_CHECK_CUDA(cudaEventElapsedTime(&ms_blas, start, stop));

    double flop = 2.0 * n * (double)n * n;
    printf("timing (one run after one warm-up, information only): %dx%dx%d  tilepp %.3f ms = %.0f "
           "TFLOP/s,  cuBLAS %.3f ms = %.0f TFLOP/s\n",
           n, n, n, ms_tile, flop / (ms_tile * 1e-3) / 1e12, ms_blas, flop / (ms_blas * 1e-3) / 1e12);
    printf("(bench/bench_gemm measures medians over many runs)\n");

    TILE_CHECK_CUDA(cudaEventDestroy(start));
    TILE_CHECK_CUDA(cudaEventDestroy(stop));
    TILE_CHECK_CUDA(cudaFree(dA));
    TILE_CHECK_CUDA(cudaFree(dB));
    TILE_CHECK_CUDA(cudaFree(dC));
    free(host);
}

int main(int argc, char **argv)
{
    /* --small: the checks only, not the timing at 4096^3 (for compute-sanitizer) */
    const int small = argc > 1 && strcmp(argv[1], "--small") == 0;
    const int M = 1000, N = 1003, K = 1007;
    const size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;

    half *A = tile_check_xmalloc(na * sizeof(half)), *B = tile_check_xmalloc(nb * sizeof(half));
    half *ref = tile_check_xmalloc(nc * sizeof(half)), *out = tile_check_xmalloc(nc * sizeof(half));
    float *blas_out = tile_check_xmalloc(nc * sizeof(float));
    tile_check_rng rng = tile_check_rng_seed(3);
    tile_check_fill(TILE_CHECK_F16, A, na, &rng);
    tile_check_fill(TILE_CHECK_F16, B, nb, &rng);

    printf("gemm: C = A B, %d x %d x %d (M x N x K; A, B, C half, float accumulation)\n", M, N, K);
    tile_check_poison_host(ref, nc * sizeof(half));
    double t0 = seconds_now();
    gemm(M, N, K, (const half(*)[K])A, (const half(*)[N])B, (half(*)[N])ref);
    double cpu_s = seconds_now() - t0;
    printf("CPU: %.2f s, C[0][0] = %.5f, C[%d][%d] = %.5f\n", cpu_s, (float)ref[0], M - 1, N - 1, (float)ref[nc - 1]);

    char reason[256];
    if (!tile_check_gpu_available(reason, sizeof reason)) {
        printf("GPU: skipped (no CUDA device)\n     (%s)\n", reason);
        free(A), free(B), free(ref), free(out), free(blas_out);
        return 0;
    }
    tile_check_print_device(stdout);

    half *dA = tile_check_to_device(A, na * sizeof(half)), *dB = tile_check_to_device(B, nb * sizeof(half));
    half *dC = NULL;
    float *dRef = NULL;
    TILE_CHECK_CUDA(cudaMalloc((void **)&dC, nc * sizeof(half)));
    TILE_CHECK_CUDA(cudaMalloc((void **)&dRef, nc * sizeof(float)));
    TILE_CHECK_CUDA(tile_check_poison(dC, nc * sizeof(half))); /* any element not written stays NaN */

    TILE_CHECK_CUDA(gemm_gpu(M, N, K, dA, dB, dC));
    TILE_CHECK_CUDA(cudaDeviceSynchronize());
    TILE_CHECK_CUDA(cudaMemcpy(out, dC, nc * sizeof(half), cudaMemcpyDeviceToHost));

    cublasHandle_t blas;
    CR_CHECK(cublasCreate(&blas));
    CR_CHECK(cr_gemm(blas, 0, 0, M, N, K, dA, CUDA_R_16F, dB, CUDA_R_16F, dRef, CUDA_R_32F));
    TILE_CHECK_CUDA(cudaDeviceSynchronize());
    TILE_CHECK_CUDA(cudaMemcpy(blas_out, dRef, nc * sizeof(float), cudaMemcpyDeviceToHost));

    /* Tolerance. The products of half inputs are exact in float; the GPU
     * (tensor cores, fp32 accumulators) adds them in another order than
     * the CPU's k = 0, 1, ... loop, which changes a float sum by far less
     * than 2^-12 of its size for K ~ 1000 random terms. Both sides then
     * round once to half (at most 2^-11 relative): two roundings of nearly
     * equal sums differ by at most one half ulp (2^-10), and only for the few
     * sums near a rounding boundary. So a correct kernel is well below
     * 2^-10 ~ 9.8e-4 (against cuBLAS's float result, the half rounding alone
     * gives ~2^-11 / sqrt(3) ~ 3e-4), while any indexing mistake, a missing
     * edge or a dropped k-tile gives an error above 1e-2. */
    const double tol = 0x1p-10;
    size_t first;
    size_t unwritten = tile_check_count_nan(TILE_CHECK_F16, out, nc, &first);
    double err_cpu = tile_check_rel_err(TILE_CHECK_F16, out, TILE_CHECK_F16, ref, nc);
    double err_blas = tile_check_rel_err(TILE_CHECK_F16, out, TILE_CHECK_F32, blas_out, nc);
    int ok = unwritten == 0 && err_cpu < tol && err_blas < tol;

    if (unwritten)
        printf("GPU: %zu of %zu elements not written (first at row %zu, col %zu)\n", unwritten, nc, first / (size_t)N,
               first % (size_t)N);
    printf("GPU: %s  vs CPU: relative error %.3g; vs cuBLAS (float result): %.3g (tolerance "
           "%.1e), C[0][0] = %.5f, C[%d][%d] = %.5f\n",
           ok ? "PASS" : "FAIL", err_cpu, err_blas, tol, (float)out[0], M - 1, N - 1, (float)out[nc - 1]);

    if (ok && !small)
        time_4096(blas);

    CR_CHECK(cublasDestroy(blas));
    TILE_CHECK_CUDA(cudaFree(dA));
    TILE_CHECK_CUDA(cudaFree(dB));
    TILE_CHECK_CUDA(cudaFree(dC));
    TILE_CHECK_CUDA(cudaFree(dRef));
    free(A), free(B), free(ref), free(out), free(blas_out);
    return ok ? 0 : 1;
}

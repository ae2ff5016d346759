/* cublas_racecheck.c — the smallest program that shows compute-sanitizer's
 * racecheck failing inside cuBLAS on the H200 (issue 16, item 5): two
 * cublasGemmEx calls (fp16 in, fp32 out, as gemm_test's reference makes
 * them), 1x1x1 then 16x16x16, no tilepp kernel at all. Under
 * `compute-sanitizer --tool racecheck --kernel-name kns=tile_` (so that no
 * kernel is even instrumented) gemm_test stops at the synchronization right
 * after its second case's cuBLAS call with "The Sanitizer failed to handle a
 * hardware exception"; if this program does the same, the failure is the
 * tool's with cuBLAS, not a tilepp kernel's. Not a test: run by hand,
 *   compute-sanitizer --tool racecheck --kernel-name kns=tile_ cublas_racecheck */
#include <stdio.h>

#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

static int gemm(cublasHandle_t h, int n)
{
    void *a, *b, *c;
    if (cudaMalloc(&a, (size_t)n * n * 2) || cudaMalloc(&b, (size_t)n * n * 2) || cudaMalloc(&c, (size_t)n * n * 4))
        return 1;
    cudaMemset(a, 0, (size_t)n * n * 2);
    cudaMemset(b, 0, (size_t)n * n * 2);
    const float one = 1.0f, zero = 0.0f;
    cublasStatus_t st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, CUDA_R_16F, n, a, CUDA_R_16F, n,
                                     &zero, c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    cudaError_t err = cudaDeviceSynchronize();
    printf("cublasGemmEx %dx%dx%d: status %d, %s\n", n, n, n, (int)st, cudaGetErrorString(err));
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return st != CUBLAS_STATUS_SUCCESS || err != cudaSuccess;
}

int main(void)
{
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        printf("SKIPPED: no cuBLAS handle (no device?)\n");
        return 77;
    }
    int bad = gemm(h, 1) | gemm(h, 16) | gemm(h, 64);
    cublasDestroy(h);
    return bad;
}

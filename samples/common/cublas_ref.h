/* cublas_ref.h — row-major matrix products through cuBLAS, the reference the
 * GEMM test, the GEMM samples and the GEMM benchmark compare tilepp with.
 * Header-only (static inline), C11; link CUDA::cublas.
 *
 *   cublasHandle_t h;  CR_CHECK(cublasCreate(&h));
 *   CR_CHECK(cr_gemm(h, trans_a, trans_b, M, N, K, A, CUDA_R_16F, B, CUDA_R_16F,
 *                    C, CUDA_R_32F));
 *
 * cr_gemm computes C = op(A) op(B) (alpha 1, beta 0) with fp32 accumulation
 * (CUBLAS_COMPUTE_32F) for row-major matrices as tile_gemm* defines them:
 * C is M x N (row length N); A is M x K, or K x M when trans_a (tile_gemm_tn);
 * B is K x N, or N x K when trans_b (tile_gemm_nt).
 *
 * cuBLAS is column-major. A row-major R x C matrix with row length C is, read
 * column-major, its transpose (C x R, leading dimension C). So the row-major
 * C = op(A) op(B) is the column-major C^T = op(B)^T op(A)^T: cuBLAS gets B
 * first and A second, m = N, n = M, and each operand keeps its own
 * transposition flag:
 *   - B K x N (not transposed) reads as B^T (N x K) = what cuBLAS needs: OP_N, ldb = N;
 *     B N x K (transposed) reads as K x N: OP_T, ldb = K;
 *   - A M x K reads as A^T (K x M) = what cuBLAS needs: OP_N, lda = K;
 *     A K x M (transposed) reads as M x K: OP_T, lda = M;
 *   - C^T (N x M) column-major, ldc = N, is C row-major. */
#ifndef TILEPP_CUBLAS_REF_H
#define TILEPP_CUBLAS_REF_H

#include <stdio.h>
#include <stdlib.h>

#include <cublas_v2.h>

static inline const char *cr_status_name(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_(other)";
    }
}

/* A cuBLAS call that must succeed: prints file:line and exits 1 otherwise. */
#define CR_CHECK(call)                                                                        \
    do {                                                                                      \
        cublasStatus_t cr_st_ = (call);                                                       \
        if (cr_st_ != CUBLAS_STATUS_SUCCESS) {                                                \
            fprintf(stderr, "%s:%d: cuBLAS error in %s: %s\n", __FILE__, __LINE__, #call,     \
                    cr_status_name(cr_st_));                                                  \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

/* Row-major C = op(A) op(B), fp32 accumulation; see the top of the file. */
static inline cublasStatus_t cr_gemm(cublasHandle_t h, int trans_a, int trans_b, int M, int N,
                                     int K, const void *A, cudaDataType_t a_type, const void *B,
                                     cudaDataType_t b_type, void *C, cudaDataType_t c_type)
{
    const float alpha = 1.0f, beta = 0.0f;
    cublasOperation_t op_b = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t op_a = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    int ldb = trans_b ? K : N;
    int lda = trans_a ? M : K;
    /* cuBLAS wants leading dimensions >= 1 even for empty matrices. */
    return cublasGemmEx(h, op_b, op_a, N, M, K, &alpha, B, b_type, ldb > 0 ? ldb : 1, A, a_type,
                        lda > 0 ? lda : 1, &beta, C, c_type, N > 0 ? N : 1, CUBLAS_COMPUTE_32F,
                        CUBLAS_GEMM_DEFAULT);
}

/* A cuBLAS status as a CUDA error, for the callables <tilepp/bench.h> times:
 * on failure prints "<what> failed: <status>" and gives cudaErrorUnknown. */
static inline cudaError_t cr_to_cuda(cublasStatus_t st, const char *what)
{
    if (st == CUBLAS_STATUS_SUCCESS)
        return cudaSuccess;
    fprintf(stderr, "%s failed: %s\n", what, cr_status_name(st));
    return cudaErrorUnknown;
}

#endif /* TILEPP_CUBLAS_REF_H */

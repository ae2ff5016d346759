/* mma_common.h — host helpers shared by mma_test.cu and mma_bench.cu:
 * error checks, element types, the cuBLAS call that computes the same
 * row-major product as gemm_ref, the "no GPU" skip, and device-side random
 * fills for the benchmarks. */
#ifndef TILEPP_TESTS_MMA_COMMON_H
#define TILEPP_TESTS_MMA_COMMON_H

#include "gemm_ref_kernel.cu"

#include <cublas_v2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUDA_CHECK(x)                                                                                                  \
    do {                                                                                                               \
        cudaError_t err_ = (x);                                                                                        \
        if (err_ != cudaSuccess) {                                                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(err_));                      \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

#define CUBLAS_CHECK(x)                                                                                                \
    do {                                                                                                               \
        cublasStatus_t st_ = (x);                                                                                      \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                                                            \
            fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, (int)st_);                        \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

/* Exit 77 (ctest: skipped) without a usable device. */
static inline void skip_without_device(void)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        printf("SKIPPED: no CUDA device (%s)\n", err != cudaSuccess ? cudaGetErrorString(err) : "none found");
        exit(77);
    }
    int major = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
    if (major < 8) {
        printf("SKIPPED: no CUDA device of compute capability 8.0 or newer\n");
        exit(77);
    }
}

template <typename T> struct type_info;
template <> struct type_info<tile_half> {
    static constexpr cudaDataType_t cuda = CUDA_R_16F;
    static const char *name() { return "f16"; }
};
template <> struct type_info<tile_bfloat16> {
    static constexpr cudaDataType_t cuda = CUDA_R_16BF;
    static const char *name() { return "bf16"; }
};
template <> struct type_info<float> {
    static constexpr cudaDataType_t cuda = CUDA_R_32F;
    static const char *name() { return "f32"; }
};

static inline const char *layout_name(bool a_kmajor, bool b_kmajor)
{
    /* tile_gemm (A MxK, B KxN), _nt (B NxK), _tn (A KxM), _tt */
    return a_kmajor ? (b_kmajor ? "nt" : "nn") : (b_kmajor ? "tt" : "tn");
}

/* C (M x N, row-major, ldc) = A * B with A stored M x K (a_kmajor) or K x M,
 * B stored K x N or N x K (b_kmajor), all row-major. cuBLAS is column-major:
 * the row-major C is the column-major C^T = B^T A^T, so B comes first. */
static inline cublasStatus_t cublas_gemm(cublasHandle_t h, bool a_kmajor, bool b_kmajor, int M, int N, int K,
                                         const void *A, cudaDataType_t ta, long long lda, const void *B,
                                         cudaDataType_t tb, long long ldb, void *C, cudaDataType_t tc, long long ldc,
                                         cublasGemmAlgo_t algo = CUBLAS_GEMM_DEFAULT)
{
    const float one = 1.0f, zero = 0.0f;
    return cublasGemmEx(h, b_kmajor ? CUBLAS_OP_T : CUBLAS_OP_N, a_kmajor ? CUBLAS_OP_N : CUBLAS_OP_T, N, M, K, &one, B,
                        tb, (int)ldb, A, ta, (int)lda, &zero, C, tc, (int)ldc, CUBLAS_COMPUTE_32F, algo);
}

/* xorshift64*: reproducible, fast, good enough for test data. */
struct rng {
    uint64_t s;
    explicit rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
    uint64_t next()
    {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        return s * 0x2545F4914F6CDD1Dull;
    }
    float uniform() { return (float)((next() >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f; } /* [-1, 1) */
};

/* Device data for the benchmarks: random values in [-1, 1), a hash of the
 * index, no host round trip. */
template <typename T> __global__ void fill_kernel(T *p, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
        x ^= x >> 31;
        x *= 0xBF58476D1CE4E5B9ull;
        x ^= x >> 29;
        p[i] = T((float)((x >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f);
    }
}

template <typename T> static void fill(T *p, size_t n, uint64_t seed)
{
    fill_kernel<<<1024, 256>>>(p, n, seed);
    CUDA_CHECK(cudaGetLastError());
}

#endif /* TILEPP_TESTS_MMA_COMMON_H */

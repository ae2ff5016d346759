/* mma_test.cu — the tile80 primitives (tilepp/runtime/tile_mma_sm80.cuh),
 * composed by gemm_ref_kernel.cu, against cuBLAS.
 *
 * For each kernel configuration, layout (tile_gemm, _nt, _tn, _tt), input
 * type and output type, and each shape below: fresh random inputs in [-1, 1),
 * the padding and the bytes around every input set to NaN (a read of them
 * would show as NaN in the output), the whole output buffer poisoned with
 * 0xFF bytes (NaN in every float type) before the run. Checks:
 *   - rel = ||out - ref||_2 / ||ref||_2 against cublasGemmEx (fp32 compute,
 *     fp32 output), no NaN;
 *   - every byte of the output buffer outside the M x N matrix still poisoned;
 *   - the cuBLAS reference itself against a float64 CPU sum at sample points
 *     (guards the row-major <-> column-major mapping of the reference).
 * Tolerances on rel: fp32 output 1e-4 (the same products, only the order of
 * the fp32 sums differs: expect ~1e-6); fp16 output 1e-3 (the output's own
 * rounding, 2^-11 relative at most, ~2e-4 RMS); bf16 output 8e-3 (2^-8 at
 * most, ~1.5e-3 RMS).
 * Also: accum::for_each coordinates agree with store's placement.
 *
 * Exit 0: all passed; 1: a failure; 77: no CUDA device (ctest: skipped). */
#include "mma_test.h"

int g_failures = 0, g_cases = 0;

/* The translator's default configuration: BM x BN x BK, warps M x N, stages,
 * L2 panel (gemm_ref_kernel.cu), every layout and type pair. */
typedef gemm_config<128, 128, 32, 2, 4, 3, 8> cfg_main;

void test_main_config(cublasHandle_t h, rng &g)
{
    check_coords<cfg_main>();
    run_layouts<cfg_main, tile_half, float>(h, g);
    run_layouts<cfg_main, tile_half, tile_half>(h, g);
    run_layouts<cfg_main, tile_bfloat16, float>(h, g);
    run_layouts<cfg_main, tile_bfloat16, tile_half>(h, g);
    run_layouts<cfg_main, tile_bfloat16, tile_bfloat16>(h, g);
}

int main()
{
    skip_without_device();
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
    cublasHandle_t h;
    CUBLAS_CHECK(cublasCreate(&h));
    CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH)); /* no reduced-precision shortcuts in the reference */
    rng g(20261129);

    test_main_config(h, g);
    test_variants(h, g);
    test_pipelines(h, g);

    CUBLAS_CHECK(cublasDestroy(h));
    printf("%d of %d cases passed\n", g_cases - g_failures, g_cases);
    if (g_failures) {
        printf("FAILED\n");
        return 1;
    }
    printf("PASSED\n");
    return 0;
}

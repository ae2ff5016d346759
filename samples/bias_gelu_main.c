/* bias_gelu_main.c — runs the bias_gelu sample: the CPU reference (the plain
 * C function in bias_gelu.c) and, when a CUDA device is present, the launcher
 * tilepp generated (bias_gelu_gpu), and compares the two.
 *
 * Exit status: 0 when the GPU result matches (or no GPU is present and only
 * the CPU part ran), 1 on a mismatch or a CUDA error. */
#include <stdio.h>

#include <tilepp/check.h>

#include "bias_gelu.tile.h"

/* The CPU reference, compiled from bias_gelu.c by the C compiler. */
void bias_gelu(int rows, int cols, const half x[rows][cols], const float bias[cols],
               half y[rows][cols]);

int main(void)
{
    /* cols is odd, so rows are not multiples of vector(8) (nor 16-byte
     * aligned after the first), and rows * cols is no multiple of the
     * 256-thread block: the partial-vector and tail paths run. */
    const int rows = 513, cols = 2051;
    const size_t count = (size_t)rows * (size_t)cols;
    const size_t bytes = count * sizeof(half);

    half *x = tile_check_xmalloc(bytes), *ref = tile_check_xmalloc(bytes), *out = tile_check_xmalloc(bytes);
    float *bias = tile_check_xmalloc((size_t)cols * sizeof(float));
    tile_check_rng rng = tile_check_rng_seed(2);
    tile_check_fill(TILE_CHECK_F16, x, count, &rng);
    tile_check_fill(TILE_CHECK_F32, bias, (size_t)cols, &rng);

    printf("bias_gelu: y[r][c] = gelu(x[r][c] + bias[c]), %d x %d (x, y half; bias float)\n",
           rows, cols);
    bias_gelu(rows, cols, (const half(*)[cols])x, bias, (half(*)[cols])ref);
    printf("CPU: done, y[0][0] = %.5f, y[%d][%d] = %.5f\n", (float)ref[0], rows - 1, cols - 1,
           (float)ref[count - 1]);

    char reason[256];
    if (!tile_check_gpu_available(reason, sizeof reason)) {
        printf("GPU: skipped (no CUDA device)\n     (%s)\n", reason);
        free(x), free(ref), free(out), free(bias);
        return 0;
    }
    tile_check_print_device(stdout);

    half *dx = tile_check_to_device(x, bytes), *dy = NULL;
    float *dbias = tile_check_to_device(bias, (size_t)cols * sizeof(float));
    TILE_CHECK_CUDA(cudaMalloc((void **)&dy, bytes));
    TILE_CHECK_CUDA(tile_check_poison(dy, bytes)); /* any element not written stays NaN */

    TILE_CHECK_CUDA(bias_gelu_gpu(rows, cols, dx, dbias, dy));
    TILE_CHECK_CUDA(cudaDeviceSynchronize());
    TILE_CHECK_CUDA(cudaMemcpy(out, dy, bytes, cudaMemcpyDeviceToHost));

    size_t first;
    size_t unwritten = tile_check_count_nan(TILE_CHECK_F16, out, count, &first);
    /* Tolerance. Both sides compute in float and round once to half when
     * storing, but the device tanhf may differ from the C library's by a few
     * ulp (or be an approximation, relative error ~2^-11), and a float that
     * differs in its last bit can round to the neighbouring half: one half
     * ulp is 2^-10 ~ 1e-3 relative. Near gelu's negative tail, 1 + tanh()
     * cancels and magnifies tanh's error, but those outputs are small and
     * weigh little in the norm. So a correct kernel stays well below 1e-3
     * (an H200 gave 3.5e-6: nearly every element rounds to the same half);
     * 1e-2 leaves margin for other math libraries, while any indexing
     * mistake (wrong element, wrong bias column, a missing tail) gives an
     * error of order 1. */
    const double tol = 1e-2;
    double err = tile_check_rel_err(TILE_CHECK_F16, out, TILE_CHECK_F16, ref, count);
    int ok = unwritten == 0 && err < tol;

    if (unwritten)
        printf("GPU: %zu of %zu elements not written (first at row %zu, col %zu)\n", unwritten,
               count, first / (size_t)cols, first % (size_t)cols);
    printf("GPU: %s  relative error %.3g (tolerance %.0e), y[0][0] = %.5f, y[%d][%d] = %.5f\n",
           ok ? "PASS" : "FAIL", err, tol, (float)out[0], rows - 1, cols - 1,
           (float)out[count - 1]);

    TILE_CHECK_CUDA(cudaFree(dx));
    TILE_CHECK_CUDA(cudaFree(dbias));
    TILE_CHECK_CUDA(cudaFree(dy));
    free(x), free(ref), free(out), free(bias);
    return ok ? 0 : 1;
}

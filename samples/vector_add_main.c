/* vector_add_main.c — runs the vector_add sample: the CPU reference (the
 * plain C function in vector_add.c) and, when a CUDA device is present, the
 * launcher tilepp generated (vector_add_gpu), and compares the two.
 *
 * Exit status: 0 when the GPU result matches (or no GPU is present and only
 * the CPU part ran), 1 on a mismatch or a CUDA error. */
#include <stdio.h>

#include "sample_util.h"
#include "vector_add.tile.h"

/* The CPU reference, compiled from vector_add.c by the C compiler. */
void vector_add(int n, const float *a, const float *b, float *c);

int main(void)
{
    /* Odd, so neither a multiple of vector(4) nor of any block size: the
     * last thread's 16-byte vector is partial and the tail path runs. */
    const int n = 1000003;
    const size_t bytes = (size_t)n * sizeof(float);

    float *a = su_xmalloc(bytes), *b = su_xmalloc(bytes);
    float *ref = su_xmalloc(bytes), *out = su_xmalloc(bytes);
    su_rng rng = su_rng_seed(1);
    su_fill_f32(a, (size_t)n, &rng);
    su_fill_f32(b, (size_t)n, &rng);

    printf("vector_add: c[i] = a[i] + b[i], n = %d (fp32, random in [-1, 1])\n", n);
    vector_add(n, a, b, ref);
    printf("CPU: done, c[0] = %.7f, c[n-1] = %.7f\n", ref[0], ref[n - 1]);

    char reason[256];
    if (!su_gpu_available(reason, sizeof reason)) {
        printf("GPU: skipped (no CUDA device)\n     (%s)\n", reason);
        free(a), free(b), free(ref), free(out);
        return 0;
    }
    su_print_device(stdout);

    float *da = su_to_device(a, bytes), *db = su_to_device(b, bytes), *dc = NULL;
    SU_CHECK(cudaMalloc((void **)&dc, bytes));
    SU_CHECK(su_poison_device(dc, bytes)); /* any element not written stays NaN */

    SU_CHECK(vector_add_gpu(n, da, db, dc));
    SU_CHECK(cudaDeviceSynchronize());
    SU_CHECK(cudaMemcpy(out, dc, bytes, cudaMemcpyDeviceToHost));

    size_t first;
    size_t unwritten = su_count_nan_f32(out, (size_t)n, &first);
    /* One IEEE fp32 addition is correctly rounded on both the CPU and the
     * GPU, so the results should be bit-identical (error 0); 1e-6 (about 8
     * ulp) flags any wrong, missing or shifted element. */
    const double tol = 1e-6;
    double err = su_rel_err_f32(out, ref, (size_t)n);
    int ok = unwritten == 0 && err < tol;

    if (unwritten)
        printf("GPU: %zu of %d elements not written (first at %zu)\n", unwritten, n, first);
    printf("GPU: %s  relative error %.3g (tolerance %.0e), c[0] = %.7f, c[n-1] = %.7f\n",
           ok ? "PASS" : "FAIL", err, tol, out[0], out[n - 1]);

    SU_CHECK(cudaFree(da));
    SU_CHECK(cudaFree(db));
    SU_CHECK(cudaFree(dc));
    free(a), free(b), free(ref), free(out);
    return ok ? 0 : 1;
}

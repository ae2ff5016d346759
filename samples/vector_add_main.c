/* vector_add_main.c — runs the vector_add sample: the CPU reference (the
 * plain C function in vector_add.c) and, when a CUDA device is present, the
 * launcher tilepp generated (vector_add_gpu), and compares the two with one
 * call of <tilepp/check.h>: tile_check_run gives both the same random
 * inputs, poisons the output (any element the kernel does not write stays
 * NaN), runs the two and checks that every element was written, nothing
 * around the output was, and the relative error is below the tolerance.
 *
 * Exit status: 0 when the GPU result matches (or no GPU is present and only
 * the CPU part ran), 1 on a mismatch or a CUDA error. */
#include <stdio.h>

#include <tilepp/check.h>

#include "vector_add.tile.h"

/* The CPU reference, compiled from vector_add.c by the C compiler. */
void vector_add(int n, const float *a, const float *b, float *c);

/* Odd, so neither a multiple of vector(4) nor of any block size: the last
 * thread's 16-byte vector is partial and the tail path runs. */
enum { N = 1000003 };

/* The two sides, on the buffers tile_check_run makes: a, b, c. */
static void cpu(void *ctx, void *const *p)
{
    (void)ctx;
    vector_add(N, p[0], p[1], p[2]);
}

static cudaError_t gpu(void *ctx, void *const *p)
{
    (void)ctx;
    return vector_add_gpu(N, p[0], p[1], p[2]);
}

int main(void)
{
    printf("vector_add: c[i] = a[i] + b[i], n = %d (fp32, random in [-1, 1])\n", N);
    char reason[256];
    if (!tile_check_gpu_available(reason, sizeof reason)) {
        /* The CPU reference alone. */
        float *a = tile_check_xmalloc(3 * sizeof(float) * N), *b = a + N, *c = b + N;
        tile_check_rng rng = tile_check_rng_seed(1);
        tile_check_fill(TILE_CHECK_F32, a, 2 * (size_t)N, &rng);
        vector_add(N, a, b, c);
        printf("CPU: done, c[0] = %.7f, c[n-1] = %.7f\n", c[0], c[N - 1]);
        printf("GPU: skipped (no CUDA device)\n     (%s)\n", reason);
        free(a);
        return 0;
    }
    tile_check_print_device(stdout);

    /* One IEEE fp32 addition is correctly rounded on both the CPU and the
     * GPU, so the results should be bit-identical (error 0); 1e-6 (about 8
     * ulp) flags any wrong, missing or shifted element. */
    tile_check_arg args[] = {tile_check_input(TILE_CHECK_F32, N), tile_check_input(TILE_CHECK_F32, N),
                             tile_check_output(TILE_CHECK_F32, N, 1e-6)};
    int ok = tile_check_run("vector_add_gpu against vector_add, n = 1000003", args, 3, cpu, gpu, NULL);
    return ok ? 0 : 1;
}

/* vector_add_main.c — the CPU reference of vector_add.c and its GPU launchers
 * linked into one program: the names must not clash. Runs the CPU reference
 * only, so no GPU is needed; the launchers are referenced, not called. */
#include <stdio.h>

#include "vector_add.tile.h"

void vector_add(int n, const float *a, const float *b, float *c);

/* Volatile, so the references (and the link against them) stay. */
static cudaError_t (*volatile launch)(int, const float *, const float *, float *) = vector_add_gpu;
static cudaError_t (*volatile launch_stream)(int, const float *, const float *, float *, cudaStream_t) =
    vector_add_gpu_stream;

int main(void)
{
    float a[7] = {1, 2, 3, 4, 5, 6, 7}, b[7] = {10, 20, 30, 40, 50, 60, 70}, c[7] = {0};
    vector_add(7, a, b, c);
    for (int i = 0; i < 7; i++)
        if (c[i] != a[i] + b[i]) {
            fprintf(stderr, "vector_add: c[%d] = %g, expected %g\n", i, c[i], a[i] + b[i]);
            return 1;
        }
    if (!launch || !launch_stream)
        return 1;
    puts("CPU reference and launchers linked; the CPU reference is right");
    return 0;
}

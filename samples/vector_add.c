/* vector_add.c — the smallest tilepp kernel: an existing C loop, annotated.
 *
 * As plain C this is a loop the CPU runs; tilepp turns the annotated function
 * into a CUDA kernel and a launcher, vector_add_gpu(), that spreads the
 * iterations over the GPU's threads with 16-byte loads and stores. */
#include <tilepp/tile.h>

#pragma tile kernel
void vector_add(int n, const float *a, const float *b, float *c)
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

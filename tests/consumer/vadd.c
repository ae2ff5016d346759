/* vadd.c — the consumer project's kernel file: an ordinary C loop, annotated.
 *
 * Compiled as C it is the CPU reference vadd(); tile_add_kernels() turns it
 * into vadd.tile.cu, whose launchers are vadd_gpu() and vadd_gpu_stream().
 * The constants come from a header of the project's own, which the
 * generated code includes too (and whose changes re-translate this file). */
#include <tilepp/tile.h>

#include "vadd_config.h"

#pragma tile kernel
void vadd(int n, const float *a, const float *b, float *c)
{
#pragma tile parallel vector(VADD_VECTOR)
    for (int i = 0; i < n; i++)
        c[i] = a[i] + VADD_SCALE * b[i];
}

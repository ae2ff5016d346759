/* vadd.c — the consumer project's kernel file: an ordinary C loop, annotated.
 *
 * Compiled as C it is the CPU reference vadd(); tile_add_kernels() turns it
 * into vadd.tile.cu, whose launchers are vadd_gpu() and vadd_gpu_stream().
 * The constants come from headers of the project's own (one found through
 * the target's include directories) and from the target's definitions,
 * which the generated code sees too. */
#include <tilepp/tile.h>

#include "vadd_config.h"

#pragma tile kernel
void vadd(int n, const float *a, const float *b, float *c)
{
#pragma tile parallel vector(VADD_VECTOR)
    for (int i = 0; i < n; i++)
        c[i] = VADD_EXTRA(a[i] + VADD_SCALE * b[i]);
}

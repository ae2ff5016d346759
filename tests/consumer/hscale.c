/* hscale.c — a kernel on half data, whose launcher a CUDA file calls with
 * CUDA's own __half pointers. */
#include <tilepp/tile.h>

#pragma tile kernel
void hscale(int n, float s, const half *x, half *y)
{
#pragma tile parallel vector(8)
    for (int i = 0; i < n; i++)
        y[i] = s * x[i];
}

/* vector(1) and no vector clause: one iteration per thread, scalar accesses. */
#include <tilepp/tile.h>

#pragma tile kernel
void copy_v1(int n, const float *src, float *dst)
{
#pragma tile parallel vector(1)
    for (int i = 0; i < n; i++)
        dst[i] = src[i];
}

#pragma tile kernel
void scale_default(int n, float s, const float *x, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = s * x[i];
}

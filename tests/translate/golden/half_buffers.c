/* half buffers: 8 halves are one 16-byte access; arithmetic is float, as C
 * does it for half, and a store rounds. */
#include <tilepp/tile.h>

#pragma tile kernel
void half_scale(int n, float s, const half *x, half *y)
{
#pragma tile parallel vector(8)
    for (int i = 0; i < n; i++)
        y[i] = x[i] * s;
}

#pragma tile kernel
void half_to_float(int n, const half *x, float *y)
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++)
        y[i] = x[i];
}

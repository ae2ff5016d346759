/* normalize.c — a reduction over a whole vector at the top level of a
 * kernel: y = x / ||x||. The sum of squares is reduced over the whole
 * grid; the next loop of the same kernel reads it (tilepp runs the loops as
 * kernels in order on the stream and keeps the value in device memory),
 * and so does the declaration between them. */
#include <math.h>
#include <tilepp/tile.h>

#pragma tile kernel threads(256)
void normalize(int n, const float *x, float *y)
{
    float ss = 0.0f;
#pragma tile parallel vector(4) reduce(+: ss)
    for (int i = 0; i < n; i++)
        ss += x[i] * x[i];
    float inv = ss > 0.0f ? 1.0f / sqrtf(ss) : 0.0f;
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++)
        y[i] = x[i] * inv;
}

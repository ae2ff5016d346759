/* bfloat16 buffers beside half ones: 8 bfloat16 are one 16-byte access. */
#include <tilepp/tile.h>

#pragma tile kernel
void half_to_bf16(int n, const half *x, bfloat16 *y)
{
#pragma tile parallel vector(8)
    for (int i = 0; i < n; i++)
        y[i] = (float)x[i] * 2.0f;
}

#pragma tile kernel
void bf16_add(int n, const bfloat16 *a, const bfloat16 *b, float *c)
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

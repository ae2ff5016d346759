/* vector(2/4/8/16) on float buffers: 8-, 16-, 2x16- and 4x16-byte accesses. */
#include <tilepp/tile.h>

#pragma tile kernel
void axpy_v2(int n, float alpha, const float *x, float *y)
{
#pragma tile parallel vector(2)
    for (int i = 0; i < n; i++)
        y[i] = alpha * x[i] + y[i];
}

#pragma tile kernel
void axpy_v4(int n, float alpha, const float *x, float *y)
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++)
        y[i] = alpha * x[i] + y[i];
}

#pragma tile kernel
void axpy_v8(int n, float alpha, const float *x, float *y)
{
#pragma tile parallel vector(8)
    for (int i = 0; i < n; i++)
        y[i] = alpha * x[i] + y[i];
}

#pragma tile kernel
void axpy_v16(int n, float alpha, const float *x, float *y)
{
#pragma tile parallel vector(16)
    for (int i = 0; i < n; i++)
        y[i] = alpha * x[i] + y[i];
}

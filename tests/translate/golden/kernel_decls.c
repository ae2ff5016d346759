/* Scalar declarations at kernel level: bounds computed from parameters (the
 * launcher evaluates them on the host too) and a value only the body uses. */
#include <tilepp/tile.h>

#pragma tile kernel
void middle_half(int n, float bias, const float *x, float *y)
{
    int quarter = n / 4;
    int end = n - quarter;
    const float twice = 2.0f * bias;
#pragma tile parallel vector(4)
    for (int i = quarter; i < end; i++)
        y[i] = x[i] + twice;
}

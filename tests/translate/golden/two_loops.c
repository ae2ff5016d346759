/* Two parallel loops in one kernel: two generated kernels, launched in order
 * on the same stream. */
#include <tilepp/tile.h>

#pragma tile kernel
void two_steps(int n, const float *x, float *tmp, float *y)
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++)
        tmp[i] = x[i] * x[i];
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++)
        y[i] = tmp[i] + 1.0f;
}

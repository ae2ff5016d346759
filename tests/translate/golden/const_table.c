/* A constant table read by the body: it becomes device memory. */
#include <tilepp/tile.h>

enum { TAPS = 4 };

static const float weights[TAPS] = {0.125f, 0.25f, 0.5f, 1.0f};
const int shifts[2][2] = {{0, 1}, {2, 3}};

#pragma tile kernel
void weigh(int n, const float *x, float *y)
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++)
        y[i] = x[i] * weights[i % TAPS] + (float)shifts[i & 1][1];
}

// A loop bound that depends on a value a reduction computes on the GPU.
// expect: 8:5: error: a loop bound depends on 'count', which a reduction computes on the GPU: the launcher sizes the grid on the host, before any kernel runs
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, const int *a, float *y)
{
    int count = 0;
#pragma tile parallel reduce(+: count)
    for (int i = 0; i < n; i++)
        count += a[i] > 0;
#pragma tile parallel
    for (int i = 0; i < count; i++)
        y[i] = 1.0f;
}

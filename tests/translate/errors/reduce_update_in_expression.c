// The update of a reduction variable used as a value.
// expect: 11:17: error: the update of reduction variable 's' must be a statement of its own: its value inside the loop is a thread's partial result
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, const float *a, float *y)
{
    float s = 0.0f;
#pragma tile parallel reduce(+: s)
    for (int i = 0; i < n; i++)
        y[i] = (s += a[i]);
}

// reduce with an operator that is not one.
// expect: 9:30: error: expected a reduction operator (+, *, max, min, &, |, ^, &&, ||)
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, const float *a, float *out)
{
    float s = 0.0f;
#pragma tile parallel reduce(avg: s)
    for (int i = 0; i < n; i++)
        s += a[i];
    (void)out;
}

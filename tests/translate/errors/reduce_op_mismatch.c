// The update does not match the clause's operator.
// expect: 11:9: error: 'm' is updated with '+' here, but the loop says reduce(max: m)
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, const float *a, float *y)
{
    float m = 0.0f;
#pragma tile parallel reduce(max: m)
    for (int i = 0; i < n; i++)
        m += a[i];
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = a[i] / m;
}

// reduce without the ':' after its operator.
// expect: 9:32: error: expected ':' after the reduction operator
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, const float *a, float *out)
{
    float s = 0.0f;
#pragma tile parallel reduce(+ s)
    for (int i = 0; i < n; i++)
        s += a[i];
    (void)out;
}

// a[i] = a[0] + 1: every iteration reads what iteration 0 writes.
// expect-prefix: 10:16: error: loop-carried dependence
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *a)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        a[i] = a[0] + 1.0f;
}

// a[i] = a[2 * i]: iteration i reads what iteration 2i writes.
// expect-prefix: 10:16: error: loop-carried dependence
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *a)
{
#pragma tile parallel
    for (int i = 0; i < n / 2; i++)
        a[i] = a[2 * i];
}

// a[i] = a[n - 1 - i] reverses in place: iterations i and n-1-i race.
// expect-prefix: 10:16: error: loop-carried dependence
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *a)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        a[i] = a[n - 1 - i];
}

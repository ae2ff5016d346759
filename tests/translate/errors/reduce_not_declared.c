// reduce() names a variable that is not declared before the loop at its level.
// expect: 8:33: error: reduce(+: total): 'total' is not a variable declared before the loop at the top level of the kernel
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, const float *a, float *y)
{
#pragma tile parallel reduce(+: total)
    for (int i = 0; i < n; i++)
        y[i] = a[i];
}

// An array parameter of long double.
// expect: 6:28: error: parameter 'y': elements of type 'long double' are not supported; use an integer type, float, double, half or bfloat16
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, long double *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = 1;
}

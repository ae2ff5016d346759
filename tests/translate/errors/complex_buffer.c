// An array parameter of complex floats.
// expect: 6:31: error: parameter 'y': elements of type '_Complex float' are not supported; use an integer type, float, double, half or bfloat16
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float _Complex *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = 1.0f;
}

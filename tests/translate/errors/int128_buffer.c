// An array parameter of __int128.
// expect: 6:25: error: parameter 'y': elements of type '__int128' are not supported; use an integer type, float, double, half or bfloat16
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, __int128 *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = 1;
}

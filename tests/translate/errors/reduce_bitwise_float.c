// A bitwise reduction of a float variable.
// expect: 9:33: error: reduce(|: bits): bitwise reductions take integers, not 'float'
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, const float *a, float *y)
{
    float bits = 0.0f;
#pragma tile parallel reduce(|: bits)
    for (int i = 0; i < n; i++)
        bits = bits + a[i];
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = bits;
}

// A pragma followed by '}'.
// expect: 10:1: error: '#pragma tile parallel' must be followed by a 'for' loop
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
#pragma tile parallel
}

// vector(3): not a power of two.
// expect: 8:30: error: vector(3): the width must be 1, 2, 4, 8 or 16
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel vector(3)
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

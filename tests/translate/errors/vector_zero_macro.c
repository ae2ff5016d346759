// vector(WIDTH) where the macro is 0.
// expect: 10:30: error: vector(0): the width must be 1, 2, 4, 8 or 16
#include <tilepp/tile.h>

#define WIDTH (2 - 2)

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel vector(WIDTH)
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

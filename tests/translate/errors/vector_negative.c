// A negative vector width.
// expect: 8:30: error: vector(-4): the width must be 1, 2, 4, 8 or 16
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *y)
{
#pragma tile parallel vector(-4)
    for (int i = 0; i < n; i++)
        y[i] = 1.0f;
}

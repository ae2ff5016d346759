// A variadic kernel.
// expect: 6:6: error: a kernel cannot be variadic
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x, ...)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

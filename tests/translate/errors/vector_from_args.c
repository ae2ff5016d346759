// vector(WIDTH) with -DWIDTH=3 on the command line.
// tilepp-args: -DWIDTH=3
// expect: 9:30: error: vector(3): the width must be 1, 2, 4, 8 or 16
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel vector(WIDTH)
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

// An array parameter of structs.
// expect: 9:27: error: parameter 'y': elements of type 'struct cpx' are not supported; use an integer type, float, double, half or bfloat16
#include <tilepp/tile.h>

struct cpx {
    float re, im;
};
#pragma tile kernel
void f(int n, struct cpx *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i].re = 1.0f;
}

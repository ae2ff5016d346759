// A struct passed by value.
// expect: 9:26: error: scalar parameter 's' of type 'struct cpx' is not supported in kernels; use an integer, float or double
#include <tilepp/tile.h>

struct cpx {
    float re, im;
};
#pragma tile kernel
void f(int n, struct cpx s, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = s.re;
}

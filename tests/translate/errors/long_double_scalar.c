// A long double scalar parameter (the remark on half and bfloat16 is left out:
// it does not apply).
// expect: 8:27: error: scalar parameter 's' of type 'long double' is not supported in kernels; use an integer, float or double
// expect-not: half and bfloat16
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, long double s, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = (float)s;
}

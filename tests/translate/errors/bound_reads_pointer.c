// A loop bound that dereferences a parameter.
// expect-prefix: 9:25: error: 
#include <tilepp/tile.h>

#pragma tile kernel
void f(const int *np, float *x)
{
#pragma tile parallel
    for (int i = 0; i < *np; i++)
        x[i] = 0.0f;
}

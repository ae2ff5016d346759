// '#pragma tile grid' is not implemented yet.
// expect: 8:1: error: '#pragma tile grid' is not implemented yet in this version of tilepp (it comes with the tile language core: grid, shared, fragment, pipelined, gemm, tune)
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile grid swizzle(8)
    for (int b = 0; b < n; b++)
        x[b] = 0.0f;
}

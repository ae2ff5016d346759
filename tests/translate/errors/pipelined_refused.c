// '#pragma tile pipelined' is not implemented yet.
// expect: 8:1: error: '#pragma tile pipelined' is not implemented yet in this version of tilepp (it comes with the tile language core: grid, shared, fragment, pipelined, gemm, tune)
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile pipelined stages(3)
    for (int k = 0; k < n; k++)
        x[k] = 0.0f;
}

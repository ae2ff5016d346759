// '#pragma tile shared' is not implemented yet.
// expect: 8:1: error: '#pragma tile shared' is not implemented yet in this version of tilepp (it comes with the tile language core: grid, shared, fragment, pipelined, gemm, tune)
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile shared
    float s[32];
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

// '#pragma tile gemm' is not implemented yet.
// expect: 8:1: error: '#pragma tile gemm' is not implemented yet in this version of tilepp (it comes with the tile language core: grid, shared, fragment, pipelined, gemm, tune)
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, const float a[n][n], const float b[n][n], float c[n][n])
{
#pragma tile gemm
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                c[i][j] += a[i][k] * b[k][j];
}

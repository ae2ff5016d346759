// '#pragma tile gemm' at the top level of a kernel, outside any grid block or parallel loop.
// expect: 8:1: error: '#pragma tile gemm' at the top level of a kernel: it belongs inside the block of a '#pragma tile grid' loop
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

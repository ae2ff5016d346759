// '#pragma tile' and nothing else.
// expect: 5:13: error: expected a directive after '#pragma tile' (kernel, grid, parallel, pipelined, shared, fragment, local, gemm, tune)
#include <tilepp/tile.h>

#pragma tile
void f(int n, float *x)
{
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

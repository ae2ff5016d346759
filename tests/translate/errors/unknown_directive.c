// A misspelt directive.
// expect: 5:14: error: unknown directive 'kernal' after '#pragma tile'; expected kernel, grid, parallel, pipelined, shared, fragment, local, gemm or tune
#include <tilepp/tile.h>

#pragma tile kernal
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

// parallel inside a parallel loop.
// expect: 10:1: error: '#pragma tile parallel' inside a parallel loop is not supported
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float x[n][n])
{
#pragma tile parallel
    for (int i = 0; i < n; i++) {
#pragma tile parallel
        for (int j = 0; j < n; j++)
            x[i][j] = 0.0f;
    }
}

// '#pragma TILE kernel' with TILE a macro for tile: compilers do not expand a
// pragma's name, so it is an unknown pragma, left alone like '#pragma omp'
// (gcc and clang ignore it too), and the parallel loop below has no kernel
// around it: that is what is reported.
// expect: 13:1: error: '#pragma tile parallel' must be inside a '#pragma tile kernel' function
#include <tilepp/tile.h>

#define TILE tile

#pragma TILE kernel
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = 1.0f;
}

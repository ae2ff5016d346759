// A kernel whose loop is not annotated.
// expect: 8:5: error: this statement is not inside a '#pragma tile parallel' or 'grid' loop: at the top level of a kernel, this version of tilepp accepts scalar declarations, parallel loops and grids
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

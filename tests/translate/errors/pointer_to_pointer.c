// A pointer-to-pointer parameter, refused as such.
// expect: 6:23: error: parameter 'x': pointers to pointers are not supported in kernels
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float **x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i][0] = 0.0f;
}

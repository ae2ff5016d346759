// Two arguments to a clause that takes one.
// expect: 8:33: error: 'vector' takes one argument
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel vector(4, 8)
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

// Two '#pragma tile kernel' on one function (it was translated twice: a
// duplicate __global__ function and launcher).
// expect-prefix: 7:1: error: 
#include <tilepp/tile.h>

#pragma tile kernel
#pragma tile kernel threads(128)
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

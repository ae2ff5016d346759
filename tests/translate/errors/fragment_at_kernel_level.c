// '#pragma tile fragment' at the top level of a kernel, outside any grid block or parallel loop.
// expect: 8:1: error: '#pragma tile fragment' at the top level of a kernel: it belongs inside the block of a '#pragma tile grid' loop
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile fragment
    float acc[16][16];
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

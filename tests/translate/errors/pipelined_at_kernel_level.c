// '#pragma tile pipelined' at the top level of a kernel, outside any grid block or parallel loop.
// expect: 8:1: error: '#pragma tile pipelined' at the top level of a kernel: it belongs inside the block of a '#pragma tile grid' loop
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile pipelined stages(3)
    for (int k = 0; k < n; k++)
        x[k] = 0.0f;
}

// '#pragma tile local' at the top level of a kernel, outside any grid block or parallel loop.
// expect: 8:1: error: '#pragma tile local' at the top level of a kernel: it declares a per-thread array, inside a '#pragma tile parallel' loop
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile local
    float regs[4];
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

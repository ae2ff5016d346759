// A work expression with a side effect: only arithmetic is evaluated.
// expect: 5:29: error: flops(...) takes an arithmetic expression over the kernel's scalar parameters; '=' cannot appear in it
#include <tilepp/tile.h>

#pragma tile kernel flops(n = 2)
void scale(int n, const float x[n], float y[n])
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = 2 * x[i];
}

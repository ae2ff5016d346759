// A misspelt clause on a grid: the clauses it takes are listed.
// expect: 8:19: error: unknown clause 'swizle' for '#pragma tile grid'; expected 'swizzle'
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *y)
{
#pragma tile grid swizle(8)
    for (int b = 0; b < n; b++)
        y[b] = 1.0f;
}

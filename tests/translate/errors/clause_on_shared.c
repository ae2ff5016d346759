// A clause on a directive that takes none.
// expect: 8:21: error: '#pragma tile shared' takes no clauses, found 'vector'
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile shared vector(4)
    float s[32];
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

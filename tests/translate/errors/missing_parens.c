// A clause argument without parentheses.
// expect: 5:29: error: expected '(' after 'threads'
#include <tilepp/tile.h>

#pragma tile kernel threads 128
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

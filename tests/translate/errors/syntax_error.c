// A C syntax error: clang's message, in our format.
// expect: 10:20: error: expected ';' after expression
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f
}

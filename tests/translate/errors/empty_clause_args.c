// A clause with empty parentheses.
// expect: 5:29: error: expected an argument
#include <tilepp/tile.h>

#pragma tile kernel threads()
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

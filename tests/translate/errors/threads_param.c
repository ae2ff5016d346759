// threads(n): a parameter, not a constant.
// expect: 5:29: error: 'n' is not an integer constant (expected a number, an enum constant or a macro)
#include <tilepp/tile.h>

#pragma tile kernel threads(n)
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

// vector("4"): a string.
// expect: 8:30: error: '"4"' is not an integer constant (expected a number, an enum constant or a macro)
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel vector("4")
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

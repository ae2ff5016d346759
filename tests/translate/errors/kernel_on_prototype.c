// kernel on a prototype, not a definition.
// expect: 6:1: error: '#pragma tile kernel' applies to a function definition, not to what follows it
// expect: 7:6: note: this is what follows the pragma
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x);

void f(int n, float *x)
{
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

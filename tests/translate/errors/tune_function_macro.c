// A function-like macro is not a constant tune can vary.
// expect: 8:19: error: 'V' is a function-like macro: tune varies a constant (an enum constant, an object-like macro or a const integer variable)
#include <tilepp/tile.h>

#define V(x) (x)

#pragma tile kernel
#pragma tile tune V(2, 4)
void f(int n, float x[n])
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = V(1.0f);
}

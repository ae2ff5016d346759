// threads(abc): an identifier the file does not define.
// expect: 5:29: error: 'abc' is not an integer constant (expected a number, an enum constant or a macro)
#include <tilepp/tile.h>

#pragma tile kernel threads(abc)
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

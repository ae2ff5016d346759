// A misspelt clause of 'parallel'.
// expect: 8:23: error: unknown clause 'vectors' for '#pragma tile parallel'; expected 'vector', 'reduce'
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel vectors(4)
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

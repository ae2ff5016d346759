// A misspelt clause of 'kernel'.
// expect: 5:21: error: unknown clause 'thread' for '#pragma tile kernel'; expected 'threads', 'flops', 'bytes'
#include <tilepp/tile.h>

#pragma tile kernel thread(128)
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

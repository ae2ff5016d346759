// A clause of another directive: threads() belongs to kernel, not parallel.
// expect: 8:23: error: unknown clause 'threads' for '#pragma tile parallel'; expected 'vector', 'reduce'
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *y)
{
#pragma tile parallel threads(128)
    for (int i = 0; i < n; i++)
        y[i] = 1.0f;
}

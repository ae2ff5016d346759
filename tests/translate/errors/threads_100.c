// threads(100): not a multiple of the warp size.
// expect-not: must be inside a '#pragma tile kernel'
// expect: 6:29: error: threads(100) must be a multiple of 32 (the warp size)
#include <tilepp/tile.h>

#pragma tile kernel threads(100)
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

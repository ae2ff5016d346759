// threads(0).
// expect-not: must be inside a '#pragma tile kernel'
// expect: 6:29: error: threads(0) is out of range: expected 32 to 1024
#include <tilepp/tile.h>

#pragma tile kernel threads(0)
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

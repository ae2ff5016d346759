// threads(2^62 * 4): overflows; it must not wrap to threads(0).
// expect-not: threads(0)
// expect-prefix: 6:29: error: 
#include <tilepp/tile.h>

#pragma tile kernel threads(4611686018427387904 * 4)
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

// threads(1 << 70): the shift is out of range; it must not wrap to threads(64).
// expect-prefix: 5:29: error: 
#include <tilepp/tile.h>

#pragma tile kernel threads(1 << 70)
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

// A reduction variable read inside its own loop: each thread holds only
// its part there.
// expect: 13:16: error: reduction variable 's' is read inside its own loop, where each thread holds only its part: read it after the loop
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, const float *a, float *y)
{
    float s = 0.0f;
#pragma tile parallel reduce(+: s)
    for (int i = 0; i < n; i++) {
        s += a[i];
        y[i] = s;
    }
}

// Two writes that overlap across iterations: one error for the pair.
// expect-prefix: 12:9: error: loop-carried dependence
// expect: 11:9: note: the write is here
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *c)
{
#pragma tile parallel
    for (int i = 0; i < n; i++) {
        c[i] = 1.0f;
        c[i + 1] = 2.0f;
    }
}

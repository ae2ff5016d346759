// The loop variable changed in the body.
// expect: 11:9: error: the loop variable 'i' of a parallel loop must not be changed in its body
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++) {
        x[i] = 0.0f;
        i += 1;
    }
}

// goto in a parallel body.
// expect: 11:13: error: 'goto' inside a parallel loop: its iterations run independently on different threads
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++) {
        if (x[i] < 0.0f)
            goto skip;
        x[i] = 1.0f;
    skip:;
    }
}

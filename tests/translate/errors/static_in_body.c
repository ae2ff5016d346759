// A static variable in a parallel body.
// expect: 10:20: error: a static variable inside a parallel loop: its iterations run independently on different threads
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++) {
        static int calls;
        x[i] = (float)calls;
    }
}

// A kernel calls a function that calls itself: GPU threads have a stack of a
// few KB, so recursion is refused, at the recursive call (it was translated).
// expect: 6:62: error: recursion is not supported in kernels: 'fact' calls itself (a GPU thread's stack holds a few KB; write the recursion as a loop)
#include <tilepp/tile.h>

static float fact(int k) { return k <= 1 ? 1.0f : (float)k * fact(k - 1); }
#pragma tile kernel
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = fact(i % 10);
}

// Two functions that call each other: the cycle is named.
// expect: 7:50: error: recursion is not supported in kernels: 'even' calls 'odd', which calls 'even' (a GPU thread's stack holds a few KB; write the recursion as a loop)
#include <tilepp/tile.h>

static float odd(int k);
static float even(int k) { return k == 0 ? 1.0f : odd(k - 1); }
static float odd(int k) { return k == 0 ? 0.0f : even(k - 1); }
#pragma tile kernel
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = even(i % 10);
}

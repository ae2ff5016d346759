// A stencil in place: the dependence is reported once, at the first read
// that conflicts (not again for a[i + 1]).
// expect: 12:24: error: loop-carried dependence: 'a[i - 1]' touches an element that another iteration writes as 'a[i]'; the iterations of a parallel loop must be independent
// expect: 12:9: note: the write is here
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *a)
{
#pragma tile parallel
    for (int i = 1; i < n - 1; i++)
        a[i] = 0.5f * (a[i - 1] + a[i + 1]);
}

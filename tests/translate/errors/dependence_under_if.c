// The conflicting write and read are under an if: still a dependence.
// expect: 12:20: error: loop-carried dependence: 'a[i - 1]' touches an element that another iteration writes as 'a[i]'; the iterations of a parallel loop must be independent
// expect: 12:13: note: the write is here
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *a)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        if (i > 0)
            a[i] = a[i - 1];
}

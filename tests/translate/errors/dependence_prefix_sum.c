// A prefix sum written as a parallel loop: each element reads the one before,
// which another iteration writes.
// expect: 12:17: error: loop-carried dependence: 'a[i - 1]' touches an element that another iteration writes as 'a[i]'; the iterations of a parallel loop must be independent
// expect: 12:9: note: the write is here
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *a)
{
#pragma tile parallel
    for (int i = 1; i < n; i++)
        a[i] += a[i - 1];
}

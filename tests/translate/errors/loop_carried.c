// A loop-carried dependence.
// expect: 11:20: error: loop-carried dependence: 'a[i]' touches an element that another iteration writes as 'a[i + 1]'; the iterations of a parallel loop must be independent
// expect: 11:9: note: the write is here
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *a)
{
#pragma tile parallel
    for (int i = 0; i < n - 1; i++)
        a[i + 1] = a[i] + 1.0f;
}

// Each row computed from the row before, in a 2-D nest: a dependence
// between iterations of the outer loop.
// expect: 13:23: error: loop-carried dependence: 'a[i - 1][j]' touches an element that another iteration writes as 'a[i][j]'; the iterations of a parallel loop must be independent
// expect: 13:13: note: the write is here
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, int m, float a[n][m])
{
#pragma tile parallel
    for (int i = 1; i < n; i++)
        for (int j = 0; j < m; j++)
            a[i][j] = a[i - 1][j] + 1.0f;
}

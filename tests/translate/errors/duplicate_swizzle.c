// swizzle given twice, the second with a comma.
// expect: 8:31: error: duplicate clause 'swizzle'
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, int m, float y[n][m])
{
#pragma tile grid swizzle(4), swizzle(8)
    for (int r = 0; r < n; r++)
        for (int c = 0; c < m; c++)
            y[r][c] = 1.0f;
}

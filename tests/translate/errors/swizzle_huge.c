// swizzle past its range (1 to 64).
// expect: 8:27: error: swizzle(65) is out of range: expected 1 to 64
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, int m, float y[n][m])
{
#pragma tile grid swizzle(65)
    for (int r = 0; r < n; r++)
        for (int c = 0; c < m; c++)
            y[r][c] = 1.0f;
}

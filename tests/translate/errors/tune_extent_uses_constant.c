// An array parameter whose extent is a tuned constant would change type from point to point.
// expect: 9:21: error: the extent of 'x' uses the tuned constant 'W': a parameter's type must be the same at every point of the space
#include <tilepp/tile.h>

enum { W = 4 };

#pragma tile kernel
#pragma tile tune W(2, 4)
void f(int n, float x[n][W])
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        for (int j = 0; j < W; j++)
            x[i][j] = 0.0f;
}

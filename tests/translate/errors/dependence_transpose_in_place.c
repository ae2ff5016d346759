// c[i][j] = c[j][i] in place: iterations (i, j) and (j, i) race.
// expect-prefix: 11:23: error: loop-carried dependence
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float c[n][n])
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            c[i][j] = c[j][i];
}

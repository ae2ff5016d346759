// A grid inside the block of another grid: blocks do not nest.
// expect: 10:1: error: '#pragma tile grid' inside a grid block: grids go at the top level of a kernel and do not nest
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int n, int m, float x[n][m])
{
#pragma tile grid
    for (int b = 0; b < n; b++) {
#pragma tile grid
        for (int c = 0; c < m; c++) {
            float v = 0.0f;
        }
    }
}

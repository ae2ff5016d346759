// In a grid block, a parallel loop over a row reads the element before in the
// same row: the block's threads race.
// expect: 14:23: error: loop-carried dependence: 'x[r][c - 1]' touches an element that another iteration writes as 'x[r][c]'; the iterations of a parallel loop must be independent
// expect: 14:13: note: the write is here
#include <tilepp/tile.h>

#pragma tile kernel
void f(int rows, int cols, float x[rows][cols])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
#pragma tile parallel
        for (int c = 1; c < cols; c++)
            x[r][c] = x[r][c - 1];
    }
}

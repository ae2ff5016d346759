// A parallel loop of a block assigning a variable of the block without
// reduce: the iterations would race.
// expect: 14:13: error: 'last' is assigned in every iteration of a parallel loop, but declared outside it: the iterations would race: declare it inside the loop, or combine the iterations' values with reduce(op: last)
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int rows, int cols, const float x[rows][cols], float out[rows])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
        float last = 0.0f;
#pragma tile parallel
        for (int c = 0; c < cols; c++)
            last = x[r][c];
        out[r] = last;
    }
}

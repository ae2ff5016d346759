// A parallel loop of a block whose iterations all write one element.
// expect: 12:13: error: every iteration of 'c' writes the same element 'out[r]': the iterations would race (to combine the iterations' values, accumulate into a variable with reduce(op: var) and store it after the loop)
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int rows, int cols, const float x[rows][cols], float out[rows])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
#pragma tile parallel
        for (int c = 0; c < cols; c++)
            out[r] = x[r][c];
    }
}

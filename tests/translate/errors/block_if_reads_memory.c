// The condition of an if around parallel loops in a block is evaluated by
// every thread before each loop: it may not read memory (a loop under it
// could change what it reads).
// expect: 13:13: error: the condition of an 'if' around parallel loops in a grid block reads 'flags': it may read only scalars (the block's variables, parameters, constants), the same for every thread
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int rows, int cols, const int flags[rows], const float x[rows][cols], float y[rows][cols])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
        const int row = r;
        if (flags[row]) {
#pragma tile parallel
            for (int c = 0; c < cols; c++)
                y[r][c] = x[r][c];
        }
    }
}

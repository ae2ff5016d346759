// A parallel loop of a block under an if: refused (parallel loops stand in
// the block or its sequential loops).
// expect: 12:1: error: '#pragma tile parallel' inside this statement of a grid block is not supported: a block's parallel loops stand in the block itself or in its sequential for loops
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int rows, int cols, const float x[rows][cols], float y[rows][cols])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
        if (r % 2 == 0) {
#pragma tile parallel
            for (int c = 0; c < cols; c++)
                y[r][c] = x[r][c];
        }
    }
}

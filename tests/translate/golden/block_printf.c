/* printf as a statement of a grid block prints once for the block, as the
 * C prints once per iteration of the grid loop: one thread of the team runs
 * it, as it runs a statement that writes memory (every thread printed). */
#include <stdio.h>
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void row_report(int rows, int cols, const float x[rows][cols], float y[rows])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
        float s = 0.0f;
#pragma tile parallel reduce(+: s)
        for (int c = 0; c < cols; c++)
            s += x[r][c];
        y[r] = s;
        printf("row %d: %f\n", r, s);
    }
}

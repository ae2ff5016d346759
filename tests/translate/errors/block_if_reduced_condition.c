// A variable that a parallel loop under the if reduces into changes between
// the loops the if guards: the condition may not read it.
// expect: 15:13: error: the condition of this 'if' reads 'total', which a parallel loop under it reduces into: it would change between the loops it guards; test a copy taken before the 'if'
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int rows, int cols, const float x[rows][cols], float y[rows][cols])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
        float total = 0.0f;
#pragma tile parallel reduce(+ : total)
        for (int c = 0; c < cols; c++)
            total += x[r][c];
        if (total > 0.0f) {
#pragma tile parallel reduce(+ : total)
            for (int c = 0; c < cols; c++)
                total += x[r][c];
#pragma tile parallel
            for (int c = 0; c < cols; c++)
                y[r][c] = x[r][c] / total;
        }
    }
}

// One statement of a block that both writes memory (one thread runs it)
// and assigns a variable of the block (every thread keeps it).
// expect: 12:9: error: this statement of a grid block writes memory and assigns variables of the block: one thread writes the memory, every thread keeps the variables; split it into two statements
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int rows, int cols, const float x[rows][cols], float out[rows])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
        float m = 0.0f;
        out[r] = m = x[r][0];
        out[r] = out[r] + m;
    }
}

// A block's parallel loop reducing a variable of the kernel (outside the
// grid): every block would update it.
// expect: 12:33: error: reduce(+: s): 's' is not a variable declared before the loop in its grid block
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int rows, int cols, const float x[rows][cols], float out[rows])
{
    float s = 0.0f;
#pragma tile grid
    for (int r = 0; r < rows; r++) {
#pragma tile parallel reduce(+: s)
        for (int c = 0; c < cols; c++)
            s += x[r][c];
        out[r] = s;
    }
}

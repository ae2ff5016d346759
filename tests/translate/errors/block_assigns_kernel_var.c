// A statement of a grid block assigning a variable of the kernel: each
// block would change its own copy.
// expect: 12:9: error: 'scale' is a variable of the kernel, outside the grid: each block would change its own copy; declare it inside the grid block
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int rows, int cols, const float x[rows][cols], float out[rows])
{
    float scale = 1.0f;
#pragma tile grid
    for (int r = 0; r < rows; r++) {
        scale = scale * 2.0f;
        out[r] = x[r][0] * scale;
    }
}

// flops(...) and bytes(...): the work of a call for the profiler, over the
// scalar parameters; enum constants and macros are folded into numbers.
#include <tilepp/tile.h>

enum { FLOPS_PER_ELEMENT = 2 };
#define ELEMENT_BYTES sizeof(float)

#pragma tile kernel threads(128) flops(FLOPS_PER_ELEMENT * (double)n) bytes(3 * ELEMENT_BYTES * (n > 0 ? n : 0))
void axpy(int n, float a, const float x[n], float y[n])
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

// Only bytes: the launcher passes -1 for the flops it was not told.
#pragma tile kernel bytes(2.0 * rows * cols * sizeof(float))
void copy2d(int rows, int cols, const float x[rows][cols], float y[rows][cols])
{
#pragma tile parallel
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            y[r][c] = x[r][c];
}

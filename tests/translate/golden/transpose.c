/* A transpose: `in` is contiguous along the inner loop, `out` is not, so
 * only `in` moves in wide loads. The strided gather moves nothing wide (a
 * warning says so). */
#include <tilepp/tile.h>

#pragma tile kernel
void transpose(int rows, int cols, const float in[rows][cols], float out[cols][rows])
{
#pragma tile parallel vector(4)
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            out[c][r] = in[r][c];
}

#pragma tile kernel
void gather_column(int rows, int cols, int col, const float in[rows][cols], float out[2 * rows])
{
#pragma tile parallel vector(4)
    for (int r = 0; r < rows; r++)
        out[2 * r] = in[r][col];
}

/* A collapsed 3-D nest: a batched, scaled copy over C99 array parameters. */
#include <tilepp/tile.h>

#pragma tile kernel threads(512)
void batch_scale(int batch, int rows, int cols, const float scale[batch], const float x[batch][rows][cols],
                 float y[batch][rows][cols])
{
#pragma tile parallel vector(2)
    for (int b = 0; b < batch; b++)
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++)
                y[b][r][c] = scale[b] * x[b][r][c];
        }
}

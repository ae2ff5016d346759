/* A collapsed 2-D nest over C99 array parameters. */
#include <tilepp/tile.h>

#pragma tile kernel
void matrix_add(int rows, int cols, const float a[rows][cols], const float b[rows][cols], float c[rows][cols])
{
#pragma tile parallel vector(4)
    for (int r = 0; r < rows; r++)
        for (int col = 0; col < cols; col++)
            c[r][col] = a[r][col] + b[r][col];
}

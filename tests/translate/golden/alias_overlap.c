/* Array parameters that may overlap: in each parallel loop an array is
 * written at one element and another array of the same element type and
 * layout is read at another element. Were the caller to pass overlapping
 * arrays, the C loop would read what earlier iterations wrote and the GPU
 * would not: tilepp warns once per pair of arrays per loop, at the first
 * such read, and translates as written (the warning is the only change;
 * 'restrict' on either parameter silences it: alias_restrict.c). */
#include <tilepp/tile.h>

/* A 3-point stencil: one warning for x and y, at x[i - 1], not again at x[i + 1]. */
#pragma tile kernel
void stencil(int n, const float *x, float *y)
{
#pragma tile parallel
    for (int i = 1; i < n - 1; i++)
        y[i] = 0.25f * x[i - 1] + 0.5f * x[i] + 0.25f * x[i + 1];
}

/* A transposed read of a square matrix of the same layout. */
#pragma tile kernel
void transpose_square(int n, const float x[n][n], float y[n][n])
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            y[i][j] = x[j][i];
}

/* In a grid block: each row reversed, and a second array read shifted by a
 * row: two pairs, two warnings. */
#pragma tile kernel threads(128)
void reverse_rows(int rows, int cols, const float x[rows][cols], const float z[rows][cols], float y[rows][cols])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
#pragma tile parallel
        for (int c = 0; c < cols; c++)
            y[r][c] = x[r][cols - 1 - c] + (r > 0 ? z[r - 1][c] : 0.0f);
    }
}

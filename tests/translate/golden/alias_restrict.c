/* The same shapes of loop as alias_overlap.c, without the aliasing
 * warning: a 'restrict' parameter (on either side, as a pointer, an array
 * '[restrict n]' or through a typedef), element-wise accesses at the same
 * index, and reads of arrays of another rank, layout or element type. */
#include <tilepp/tile.h>

typedef float *restrict out_ptr;

#pragma tile kernel
void stencil_restrict(int n, const float *restrict x, float *y)
{
#pragma tile parallel
    for (int i = 1; i < n - 1; i++)
        y[i] = 0.25f * x[i - 1] + 0.5f * x[i] + 0.25f * x[i + 1];
}

#pragma tile kernel
void stencil_restrict_typedef(int n, const float *x, out_ptr y)
{
#pragma tile parallel
    for (int i = 1; i < n - 1; i++)
        y[i] = x[i - 1] + x[i + 1];
}

#pragma tile kernel
void transpose_restrict(int n, const float x[restrict n][n], float y[n][n])
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            y[i][j] = x[j][i];
}

/* Element-wise: each iteration reads the element it writes, so even
 * arrays that are one and the same give the C's result. */
#pragma tile kernel
void scale_add(int rows, int cols, const float x[rows][cols], const float *bias, float y[rows][cols])
{
#pragma tile parallel
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            y[r][c] = 2.0f * x[r][c] + bias[c]; /* bias: another rank */
}

/* Another layout (x is rows x cols, y cols x rows) and another element type. */
#pragma tile kernel
void transpose_shift(int rows, int cols, const float x[rows][cols], const int *shift, float y[cols][rows])
{
#pragma tile parallel
    for (int r = 1; r < rows; r++)
        for (int c = 0; c < cols; c++)
            y[c][r] = x[r][c] + (float)shift[r - 1];
}

/* The qualifiers of an array parameter's first brackets are not part of
 * its extent: the in-bounds loads and the stores of a tile, which take
 * the matrix's rows from the declaration, read M alone. */
#pragma tile kernel threads(128)
void tiles_restrict(int M, int N, const float X[restrict M][N], float Y[static M][N], float Z[const M][N])
{
#pragma tile grid
    for (int by = 0; by < M / 32; by++) {
#pragma tile fragment
        float F[32][64];
        tile_load(F, X, by * 32, 0);
        tile_store(Y, F, by * 32, 0);
        tile_store(Z, F, by * 32, 0);
    }
}

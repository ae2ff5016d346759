/* Parameters whose declarations start and end in macros defined in the
 * file: the element type (ELEM) and the last extent (`h * D`, `D`). The
 * extents are found from the declarator's own tokens (a slice of heads,
 * `X[n][h * D]`, as in samples/flash_attention.c's BNHD kernel). */
#include <tilepp/tile.h>

#define ELEM half
#define D 64

#pragma tile kernel
void copy_heads(int n, int h, const ELEM X[n][h * D], ELEM Y[n][h * D], ELEM (*Z)[D])
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        for (int j = 0; j < h * D; j++)
            Y[i][j] = X[i][j];
#pragma tile parallel
    for (int i = 0; i < n; i++)
        for (int j = 0; j < D; j++)
            Z[i][j] = X[i][j];
}

/* A parameter's element type from a macro defined on the command line:
 * `ELEM x[rows][cols]` starts in the command line's buffer, so the
 * declaration's source range spans two files; the extents still come from
 * the declarator (once: "cannot find the extent of dimension 2"). */
// tilepp-args: -DELEM=bfloat16
#include <tilepp/tile.h>

#pragma tile kernel
void scale_rows(int rows, int cols, float s, const ELEM x[rows][cols], ELEM y[rows][cols])
{
#pragma tile parallel
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            y[r][c] = x[r][c] * s;
}

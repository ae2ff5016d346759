/* A conditional mixing a half and a float as the value of tile_fill: CUDA has
 * no common type for the two (half converts to and from float, int, ...), so
 * the translator casts the 16-bit operand to the conditional's C type, as it
 * does in parallel loop bodies (issue 16, finding ternary_16bit_float). */
#include <tilepp/tile.h>
#pragma tile kernel threads(128)
void fill_rows(int rows, int flag, const half hv[1], float y[rows][64])
{
#pragma tile grid
    for (int b = 0; b < tile_cdiv(rows, 16); b++) {
        half h = hv[0];
#pragma tile fragment
        float F[16][64];
        tile_fill(F, flag ? h : 0.0f);
        tile_store(y, F, b * 16, 0, rows, 64);
    }
}

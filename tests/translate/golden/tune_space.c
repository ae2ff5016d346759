/* A tuned kernel whose constants are of the three kinds tune varies: a
 * macro (VEC), an enum constant (THREADS) and a const integer variable
 * (ROWS_PER_BLOCK). threads(48) is not a multiple of 32: the four points
 * with THREADS=48 are pruned, with that reason in the table. */
#include <tilepp/tile.h>

#define VEC 4
enum { THREADS = 256 };
static const int ROWS_PER_BLOCK = 2;

#pragma tile kernel threads(THREADS)
#pragma tile tune VEC(2, 4) THREADS(48, 128, 256) ROWS_PER_BLOCK(1, 2)
void scale_rows(int rows, int cols, const float x[rows][cols], const float w[cols], float y[rows][cols])
{
#pragma tile grid
    for (int b = 0; b < tile_cdiv(rows, ROWS_PER_BLOCK); b++) {
        for (int r = b * ROWS_PER_BLOCK; r < tile_min(rows, (b + 1) * ROWS_PER_BLOCK); r++) {
#pragma tile parallel vector(VEC)
            for (int c = 0; c < cols; c++)
                y[r][c] = x[r][c] * w[c];
        }
    }
}

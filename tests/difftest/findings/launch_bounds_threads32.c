/* Finding (difftest), fixed (the compile test compile_launch_bounds_threads32 keeps it so): a grid block of a
 * threads(32) kernel gets
 * __launch_bounds__(32, 42), and ptxas warns
 *
 *   ptxas warning : Value of minnctapersm for entry tile_row_scale_grid0<...>
 *   is out of range. minnctapersm will be ignored
 *
 * for each of its team variants (an sm_80 or sm_90 multiprocessor holds at
 * most 32 resident blocks). The kernel is still correct (ptxas ignores the
 * bound), but the project promises that every generated kernel compiles
 * without a warning (tile_add_kernels adds -Werror all-warnings in tilepp's
 * tree, where this is a build error). threads(32) is within the documented
 * range (a multiple of 32 from 32 to 1024). Expected: a minimum of blocks
 * per multiprocessor that the architecture allows (at most 32), or none.
 *
 * Reproduce (tilepp at 3d30441): tilepp launch_bounds_threads32.c &&
 *   nvcc -std=c++17 -arch=sm_80 -I<build>/include -c launch_bounds_threads32.tile.cu
 * difftest's GPU build shows it in its log for every threads(32) grid of the
 * "grid" family. */
#include <math.h>
#include <tilepp/tile.h>

#pragma tile kernel threads(32)
void row_scale(int rows, int cols, const float x[rows][cols], float y[rows][cols])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
        float m = 0.0f;
#pragma tile parallel reduce(max : m)
        for (int c = 0; c < cols; c++)
            m = fmaxf(m, fabsf(x[r][c]));
#pragma tile parallel
        for (int c = 0; c < cols; c++)
            y[r][c] = x[r][c] / (m + 1.0f);
    }
}

/* tune_kernels.c — tuned kernels as a user writes them, for tune_test.c.
 * Plain C: the CPU build uses the values in the enums. */
#include <tilepp/tile.h>

/* In place (y is read and written): the tuner runs every variant on the
 * caller's y, so it must restore y before each run and leave the call's
 * result exactly one update away from what the caller passed. */
enum { VEC = 4, THREADS = 256 };

#pragma tile kernel threads(THREADS)
#pragma tile tune VEC(1, 2, 4) THREADS(128, 256)
void axpy_inplace(int n, float a, const float x[n], float y[n])
{
#pragma tile parallel vector(VEC)
    for (int i = 0; i < n; i++)
        y[i] = a * y[i] + x[i];
}

/* Deliberately wrong at one point: with SKIP = 1 the odd rows are left
 * alone, which is half the work, so that variant is the fastest by far. A
 * constant that changes what the program computes is the user's mistake
 * (pragmas are schedule, constants are C); the tuner must catch it by
 * comparing every variant with the file's own values, and never choose it. */
enum { SKIP = 0 };

#pragma tile kernel
#pragma tile tune SKIP(0, 1)
void scale_rows(int rows, int cols, const float x[rows][cols], float y[rows][cols])
{
#pragma tile parallel
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            if (!SKIP || r % 2 == 0)
                y[r][c] = 2.0f * x[r][c] + 1.0f;
}

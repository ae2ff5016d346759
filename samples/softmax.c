/* softmax.c — row softmax, written the way llm.c writes it: a grid over the
 * rows (one thread block a row), and parallel loops over a row's columns
 * (spread over the block's threads), with reductions in between.
 *
 * Only the first `valid` columns of a row take part (a padded row, as a
 * vocabulary padded to a multiple of 128 has); the padding gets 0. The
 * maximum is subtracted before exponentiating, so large inputs do not
 * overflow; e^v is computed as 2^(v log2 e), which the GPU has as one
 * instruction. The last kernel is the same softmax written on a tile in
 * registers (a fragment) for rows that fit one. Compiled as C, these
 * functions are the CPU reference. */
#include <math.h>
#include <tilepp/tile.h>

#define LOG2E 1.4426950408889634f

/* A row's block: THREADS threads, each moving VEC columns at a time. The
 * tune lines let the launchers time 128 to 512 threads and 4 or 8 columns
 * on the GPU at hand, for each class of row lengths, and keep the fastest. */
enum { THREADS = 256, VEC = 8 };

#pragma tile kernel threads(THREADS)
#pragma tile tune THREADS(128, 256, 512) VEC(4, 8)
void softmax_f32(int rows, int cols, int valid, const float x[rows][cols], float y[rows][cols])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
        float m = -INFINITY;
#pragma tile parallel vector(VEC) reduce(max : m)
        for (int c = 0; c < valid; c++)
            m = fmaxf(m, x[r][c]);
        float s = 0.0f;
#pragma tile parallel vector(VEC) reduce(+ : s)
        for (int c = 0; c < valid; c++)
            s += exp2f((x[r][c] - m) * LOG2E);
        float inv = 1.0f / s;
#pragma tile parallel vector(VEC)
        for (int c = 0; c < valid; c++)
            y[r][c] = exp2f((x[r][c] - m) * LOG2E) * inv;
#pragma tile parallel
        for (int c = valid; c < cols; c++)
            y[r][c] = 0.0f;
    }
}

/* The same on half rows: the arithmetic is float (as C does it for half),
 * and each thread moves 8 columns, 16 bytes, at a time (the fp32 kernel
 * moves 8 columns too, as two 16-byte pieces). */
#pragma tile kernel threads(THREADS)
#pragma tile tune THREADS(128, 256, 512) VEC(4, 8)
void softmax_f16(int rows, int cols, int valid, const half x[rows][cols], half y[rows][cols])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
        float m = -INFINITY;
#pragma tile parallel vector(VEC) reduce(max : m)
        for (int c = 0; c < valid; c++)
            m = fmaxf(m, x[r][c]);
        float s = 0.0f;
#pragma tile parallel vector(VEC) reduce(+ : s)
        for (int c = 0; c < valid; c++)
            s += exp2f((x[r][c] - m) * LOG2E);
        float inv = 1.0f / s;
#pragma tile parallel vector(VEC)
        for (int c = 0; c < valid; c++)
            y[r][c] = exp2f((x[r][c] - m) * LOG2E) * inv;
#pragma tile parallel
        for (int c = valid; c < cols; c++)
            y[r][c] = 0.0f;
    }
}

/* The tile form, for rows of at most TILE_COLS columns: a block loads
 * TILE_ROWS rows into a fragment (registers spread over its threads), takes
 * each row's maximum and sum with tile_reduce_max and tile_reduce_sum, and
 * stores the normalised tile; one read and one write of the rows, as in
 * the loop form above, written as operations on a tile. Rows longer than
 * TILE_COLS need softmax_f16 (here only their first TILE_COLS columns
 * would be read and written). */
enum { TILE_ROWS = 16, TILE_COLS = 1024 };

#pragma tile kernel threads(256)
void softmax_tile_f16(int rows, int cols, int valid, const half x[rows][cols], half y[rows][cols])
{
#pragma tile grid
    for (int rb = 0; rb < tile_cdiv(rows, TILE_ROWS); rb++) {
#pragma tile fragment
        float t[TILE_ROWS][TILE_COLS], m[TILE_ROWS], s[TILE_ROWS], inv[TILE_ROWS];
        tile_load(t, x, rb * TILE_ROWS, 0, rows, cols);
#pragma tile parallel
        for (int i = 0; i < TILE_ROWS; i++)
            for (int j = 0; j < TILE_COLS; j++)
                if (j >= valid)
                    t[i][j] = -INFINITY;
        tile_reduce_max(t, m, 1, 1);
#pragma tile parallel
        for (int i = 0; i < TILE_ROWS; i++)
            for (int j = 0; j < TILE_COLS; j++)
                t[i][j] = m[i] == -INFINITY ? 0.0f : exp2f((t[i][j] - m[i]) * LOG2E);
        tile_reduce_sum(t, s, 1, 1);
#pragma tile parallel
        for (int i = 0; i < TILE_ROWS; i++)
            inv[i] = s[i] > 0.0f ? 1.0f / s[i] : 0.0f; /* a division a row, not one an element */
#pragma tile parallel
        for (int i = 0; i < TILE_ROWS; i++)
            for (int j = 0; j < TILE_COLS; j++)
                t[i][j] *= inv[i];
        tile_store(y, t, rb * TILE_ROWS, 0, rows, cols);
    }
}

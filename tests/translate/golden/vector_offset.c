// 1-D tile operations on a vector moved by an offset, `x + off` (or `off +
// x`): the vector starts off elements into x, and the window's start and
// extent count from there, as in the C (tile.h), so elements before x + off
// read as 0 like those past its end. The kernel reads and writes through
// the moved pointer. Forms: a pointer parameter plus a block loop variable
// (tests/difftest/findings/tile_load_pointer_offset.c), the offset first,
// a row X[b] plus an offset, a sum of offsets, a store to y + off, the
// in-bounds 3-argument form, and a window that starts before the vector.
#include <tilepp/tile.h>

enum { L = 256 };

#pragma tile kernel threads(128)
void window_copy(int n, const float *x, half *y)
{
#pragma tile grid
    for (int i0 = 0; i0 < n; i0 += L) {
#pragma tile shared
        float xs[L];
        tile_load(xs, x + i0, 0, n - i0);
        tile_store(y + i0, xs, 0, n - i0);
    }
}

#pragma tile kernel threads(128)
void rows_shifted(int B, int n, int skip, const float X[B][n], float Y[B][n], const float *scale)
{
#pragma tile grid
    for (int b = 0; b < B; b++) {
#pragma tile shared
        float xs[L];
#pragma tile fragment
        float sf[L];
        int first = skip + b % 4;
        tile_load(xs, X[b] + first, -1, n - first);
        tile_load(sf, (b % 2) * L + scale, 0, 2 * L);
        tile_store(Y[b] + skip + 1, xs, 0, n - skip - 1);
        tile_store(Y[b], sf, 0, n);
    }
}

// A 2-D tile's matrix moved by `+` (A + 1 is A's second row onwards): not a
// form tilepp takes; the window's r0 moves it instead.
// expect: 13:22: error: argument 2 of 'tile_load' must be a matrix parameter (a 2-D array such as 'const half A[M][K]', or a 2-D slice of one such as 'Q[b][h]')
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, const float X[M][N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile fragment
        float T[64][64];
        tile_load(T, X + 1, by * 64, 0, M - 1, N);
        tile_store(Y, T, by * 64, 0, M, N);
    }
}

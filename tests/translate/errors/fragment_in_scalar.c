// A fragment's elements are in other threads' registers: no scalar statement uses them.
// expect: 14:13: error: fragment 'T' is used element by element here: its elements live in the registers of the block's threads, so only a parallel loop over its indices (f[i][j]) may use them
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, const float X[M][N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile fragment
            float T[64][64];
            tile_load(T, X, by * 64, bx * 64, M, N);
            T[0][0] = 1.0f;
            tile_store(Y, T, by * 64, bx * 64, M, N);
        }
}

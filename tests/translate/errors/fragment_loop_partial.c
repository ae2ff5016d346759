// A loop over a fragment's layout covers the fragment exactly.
// expect: 15:13: error: the loop over fragment 'T' covers it exactly: 'i' from 0 while < 64, step 1 (skip elements with an if in the body)
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
#pragma tile parallel
            for (int i = 0; i < 32; i++)
                for (int j = 0; j < 64; j++)
                    T[i][j] = 0.0f;
            tile_store(Y, T, by * 64, bx * 64, M, N);
        }
}

// Fragments of different shapes do not line up element by element.
// expect: 18:41: error: fragment 'W' (64 x 32) and fragment 'T' (64 x 64) in one loop: their elements sit in different threads; only fragments of one shape line up element by element
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, const float X[M][N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile fragment
            float T[64][64], W[64][32];
            tile_load(T, X, by * 64, bx * 64, M, N);
            tile_load(W, X, by * 64, bx * 64, M, N);
#pragma tile parallel
            for (int i = 0; i < 64; i++)
                for (int j = 0; j < 64; j++)
                    T[i][j] = T[i][j] + W[i][j / 2];
            tile_store(Y, T, by * 64, bx * 64, M, N);
        }
}

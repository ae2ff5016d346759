// vector(V) means nothing for a loop over a fragment's layout.
// expect: 14:30: error: vector(4) on a loop over fragment 'T': each thread visits the elements its registers hold; remove vector
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
#pragma tile parallel vector(4)
            for (int i = 0; i < 64; i++)
                for (int j = 0; j < 64; j++)
                    T[i][j] = 2.0f * T[i][j];
            tile_store(Y, T, by * 64, bx * 64, M, N);
        }
}

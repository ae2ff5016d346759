// A loop over a fragment's layout uses it only at the loop's own element.
// expect: 17:31: error: fragment 'T' is used at T[j][i] here: a loop over a fragment's layout uses fragments only at its own element, T[i][j] (each thread holds only its elements)
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, const float X[M][N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile fragment
            float T[64][64], U[64][64];
            tile_load(T, X, by * 64, bx * 64, M, N);
#pragma tile parallel
            for (int i = 0; i < 64; i++)
                for (int j = 0; j < 64; j++)
                    U[i][j] = T[j][i];
            tile_store(Y, U, by * 64, bx * 64, M, N);
        }
}

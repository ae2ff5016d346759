// A loop over a 2-D fragment reads a fragment of its row values; writing
// m[i] there would have every element of the row write it.
// expect: 18:17: error: every iteration of 'j' writes the same element 'm[i]': the iterations would race (to combine the iterations' values, accumulate into a variable with reduce(op: var) and store it after the loop)
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, const float X[M][N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile fragment
        float T[64][64], m[64];
        tile_load(T, X, by * 64, 0, M, N);
        tile_reduce_max(T, m, 1, 1);
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 64; j++)
                m[i] = T[i][j];
        tile_store(Y, T, by * 64, 0, M, N);
    }
}

// Row reductions of a fragment into 1-D fragments that hold one value per
// row (tile_reduce_max, tile_reduce_sum), read as m[i] and l[i] by loops
// over the fragment: a row softmax in registers.
#include <math.h>
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, const float X[M][N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile fragment
        float S[64][64], m[64], l[64];
        tile_load(S, X, by * 64, 0, M, N);
        tile_reduce_max(S, m, 1, 1);
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 64; j++)
                S[i][j] = j < N ? expf(S[i][j] - m[i]) : 0.0f;
        tile_reduce_sum(S, l, 1, 1);
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 64; j++)
                S[i][j] = S[i][j] / l[i];
        tile_store(Y, S, by * 64, 0, M, N);
    }
}

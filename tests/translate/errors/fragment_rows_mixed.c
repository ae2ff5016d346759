// A loop over a fragment of row values cannot also walk a 1-D fragment of another length.
// expect: 17:27: error: fragment 'w' and fragment 'm' (one value per row of 'T') in one loop: their elements sit in different threads
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, const float X[M][N], float mx[M])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile fragment
        float T[64][64], m[64], w[32];
        tile_load(T, X, by * 64, 0, M, N);
        tile_reduce_max(T, m, 1, 1);
        tile_clear(w);
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            m[i] = m[i] + w[i % 32];
        tile_store(mx, m, by * 64, M);
    }
}

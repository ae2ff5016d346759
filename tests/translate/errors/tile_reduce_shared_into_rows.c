// A shared tile reduced into a 1-D fragment that also holds rows of a 2-D
// fragment: the two layouts do not mix, and the refusal says so.
// expect: 17:9: error: 1-D fragment 'm' holds one value per row of 2-D fragment 'T' (it is a tile_reduce_* result or read as m[i] in a loop over one); 'Ts' here does not hold rows, and this operation cannot mix the two layouts in this version of tilepp
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, const half X[M][N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile shared
        half Ts[64][64];
#pragma tile fragment
        float T[64][64], m[64];
        tile_load(Ts, X, by * 64, 0, M, N);
        tile_copy(T, Ts);
        tile_reduce_max(Ts, m, 1, 1);
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 64; j++)
                T[i][j] -= m[i];
        tile_store(Y, T, by * 64, 0, M, N);
    }
}

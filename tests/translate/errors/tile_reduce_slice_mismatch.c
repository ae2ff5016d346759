// A 1-D fragment holds one value per row or one per column of a 2-D
// fragment, never both: the column reduction into 'm', which the loop reads
// per row, is refused with both layouts named.
// expect: 25:13: error: this reduction along dim 0 gives one value per column, but 1-D fragment 'm' holds one value per row of 'S' (from how the block uses it): give the two their own fragments
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, const float X[M][N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile fragment
            float S[64][64];
#pragma tile fragment
            float m[64];
            tile_load(S, X, by * 64, bx * 64, M, N);
            tile_clear(m);
#pragma tile parallel
            for (int i = 0; i < 64; i++)
                for (int j = 0; j < 64; j++)
                    S[i][j] -= m[i];
            tile_store(Y, S, by * 64, bx * 64, M, N);
            tile_load(S, X, by * 64, bx * 64, M, N);
            tile_reduce_max(S, m, 0, 1);
            tile_store(Y, S, by * 64, bx * 64, M, N);
        }
}

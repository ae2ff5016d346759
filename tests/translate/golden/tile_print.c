// tile_print in a grid block: scalars (of the block and of the kernel), a
// shared tile, a 2-D fragment and a 1-D fragment of one value per row. One
// thread of the selected blocks prints (TILEPP_PRINT_BLOCK); a fragment goes
// through a shared scratch buffer, some rows at a time.
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, float scale, const half X[M][N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half S[64][64];
#pragma tile fragment
            float T[64][64];
#pragma tile fragment
            float m[64];
            int base = by * 64;
            half h = (half)(scale * 0.5f);
            tile_print(base + bx);
            tile_print(N);
            tile_print(h);
            tile_print(scale > 1.0f);
            tile_load(S, X, by * 64, bx * 64, M, N);
            tile_print(S);
            tile_copy(T, S);
            tile_reduce_max(T, m, 1, 1);
            tile_print(T);
            tile_print(m);
            tile_store(Y, T, by * 64, bx * 64, M, N);
        }
}

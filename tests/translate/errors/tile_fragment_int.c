// An int fragment, kept in float registers when this was written (accepted):
// tile_fill(Cf, 16777217) stored 16777216. Refused at the tile.
// expect-prefix: 12:13: error: 
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, int C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile fragment
        int Cf[64][32];
        tile_fill(Cf, 16777217);
        tile_store(C, Cf, by * 64, 0, M, N);
    }
}

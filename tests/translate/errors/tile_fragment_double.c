// A double fragment. The reference says fragments hold float, half or
// bfloat16; when this was written tilepp accepted a double one and kept it in
// float registers: tile_fill(Cf, 0.1) stored 0.100000001490116 where the CPU
// stores 0.1. Refused at the tile.
// expect-prefix: 14:16: error: 
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, double C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile fragment
        double Cf[64][32];
        tile_fill(Cf, 0.1);
        tile_store(C, Cf, by * 64, 0, M, N);
    }
}

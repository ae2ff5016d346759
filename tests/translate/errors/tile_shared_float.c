// A float shared tile. The reference (pragmas/README.md) says shared tiles
// hold half or bfloat16; when this was written tilepp accepted a float tile
// loaded from a float matrix and copied into a fragment, and nvcc then failed
// ('tile80: 16-bit element types only'). Refused at the tile.
// expect-prefix: 14:15: error: 
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, const float A[M][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile shared
        float S[64][32];
#pragma tile fragment
        float Cf[64][32];
        tile_load(S, A, by * 64, 0, M, N);
        tile_copy(Cf, S);
        tile_store(C, Cf, by * 64, 0, M, N);
    }
}

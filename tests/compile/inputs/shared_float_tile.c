/* A float shared tile loaded from a float matrix and copied into a
 * fragment. Once an error test: tilepp accepted it while the runtime's
 * shared tiles took 16-bit elements only, and nvcc failed ('tile80: 16-bit
 * element types only'); then it was refused at the tile. Since session 17
 * float tiles are the swizzled tile's 4-byte case: the load is cp.async in
 * 16-byte chunks of 4 floats, and this must compile. */
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

// Two 256 x 256 half tiles, 4 stages deep: 1 MB of shared memory, far beyond
// the 163 KB a block may have on sm_80 (the default --arch includes 80).
// Reported at the grid, with each tile's share.
// expect: 10:1: error: this block needs 1048576 bytes of shared memory (As: 4 x 131072, Bs: 4 x 131072), more than the 166912 a block may have on sm_80: use smaller tiles or fewer stages
#include <tilepp/tile.h>

#pragma tile kernel threads(256)
void f(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half As[256][256], Bs[256][256];
#pragma tile fragment
            float Cf[64][64];
            tile_clear(Cf);
#pragma tile pipelined stages(4)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 64, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 64, K, N);
            }
            tile_store(C, Cf, by * 64, bx * 64, M, N);
        }
}

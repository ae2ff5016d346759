// Shared tiles of 2^20 rows: the block's bytes (with their stages) are
// reported against what a block may have, in 64 bits.
// expect: 9:1: error: this block needs 134225920 bytes of shared memory (As: 2 x 67108864, Bs: 2 x 4096), more than the 166912 a block may have on sm_80: use smaller tiles or fewer stages
#include <tilepp/tile.h>
enum { BM = 1 << 20 };
#pragma tile kernel threads(128)
void f(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, BM); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half As[BM][32], Bs[32][64];
#pragma tile fragment
            float Cf[BM][64];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * BM, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 64, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * BM, bx * 64, M, N);
        }
}

// policy(row) stacks the 4 warps along the rows: a 32-row accumulator has
// rows for only two 16-row warp tiles.
// expect: 15:19: error: cannot share the 32x128 fragment 'Cf' among 4 warps with policy row: each warp needs a multiple of 16x16
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 32); by++)
        for (int bx = 0; bx < tile_cdiv(N, 128); bx++) {
#pragma tile shared
            half As[32][32], Bs[32][128];
#pragma tile fragment
            float Cf[32][128];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 32, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 128, K, N);
#pragma tile gemm policy(row)
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 32, bx * 128, M, N);
        }
}

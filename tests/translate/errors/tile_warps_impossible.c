// A 48 x 48 accumulator cannot be cut among 4 warps into warp tiles that are
// multiples of 16 x 16 (4 x 1 needs 64 rows, 1 x 4 needs 64 columns, 2 x 2
// needs multiples of 32). B is given N x K so that both shared tiles have
// 64-byte rows.
// expect: 17:19: error: cannot share the 48x48 fragment 'Cf' among 4 warps: each warp needs a multiple of 16x16
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, int K, const half A[M][K], const half B[N][K], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 48); by++)
        for (int bx = 0; bx < tile_cdiv(N, 48); bx++) {
#pragma tile shared
            half As[48][32], Bs[48][32];
#pragma tile fragment
            float Cf[48][48];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 48, k * 32, M, K);
                tile_load(Bs, B, bx * 48, k * 32, N, K);
                tile_gemm_nt(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 48, bx * 48, M, N);
        }
}

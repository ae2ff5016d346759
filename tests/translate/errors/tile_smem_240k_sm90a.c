// --arch 90a: 6 stages of a 128 x 64 and a 64 x 192 half tile are 240 KB,
// more than the 227 KB (232448 bytes) of an sm_90a block. With 5 stages (200 KB)
// the same kernel is accepted: golden/gemm_smem_sm90a.c.
// tilepp-args: --arch 90a
// expect: 11:1: error: this block needs 245760 bytes of shared memory (As: 6 x 16384, Bs: 6 x 24576), more than the 232448 a block may have on sm_90a: use smaller tiles or fewer stages
#include <tilepp/tile.h>

#pragma tile kernel threads(256)
void gemm_big(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 128); by++)
        for (int bx = 0; bx < tile_cdiv(N, 192); bx++) {
#pragma tile shared
            half As[128][64], Bs[64][192];
#pragma tile fragment
            float Cf[128][192];
            tile_clear(Cf);
#pragma tile pipelined stages(6)
            for (int k = 0; k < tile_cdiv(K, 64); k++) {
                tile_load(As, A, by * 128, k * 64, M, K);
                tile_load(Bs, B, k * 64, bx * 192, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 128, bx * 192, M, N);
        }
}

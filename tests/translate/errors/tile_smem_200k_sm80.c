// The 200 KB block that --arch 90a accepts (golden/gemm_smem_sm90a.c) is
// refused when sm_80 is among the targets (the default --arch 80,90a): the
// smallest budget of the targets counts.
// expect: 10:1: error: this block needs 204800 bytes of shared memory (As: 5 x 16384, Bs: 5 x 24576), more than the 166912 a block may have on sm_80: use smaller tiles or fewer stages
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
#pragma tile pipelined stages(5)
            for (int k = 0; k < tile_cdiv(K, 64); k++) {
                tile_load(As, A, by * 128, k * 64, M, K);
                tile_load(Bs, B, k * 64, bx * 192, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 128, bx * 192, M, N);
        }
}

// tilepp-args: --arch 90a
/* A block of 200 KB of shared memory (5 stages of a 128 x 64 and a 64 x 192
 * half tile): more than the 163 KB of sm_80, within the 227 KB of sm_90a, so
 * accepted when translating for sm_90a only. (errors/tile_smem_240k_sm90a.c
 * is the same with 6 stages, 240 KB: refused.) */
#include <tilepp/tile.h>

#pragma tile kernel threads(256)
void gemm_smem_sm90a(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
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

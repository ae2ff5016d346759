/* stages(1): no overlap, each iteration loads, waits and multiplies. The
 * loads use the 4-argument form (the caller promises M, N and K are multiples
 * of the tile sizes), and the store the 6-argument one. */
#include <tilepp/tile.h>

enum { BM = 64, BN = 64, BK = 64 };

#pragma tile kernel threads(128)
void gemm_stages1(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < M / BM; by++)
        for (int bx = 0; bx < N / BN; bx++) {
#pragma tile shared
            half As[BM][BK], Bs[BK][BN];
#pragma tile fragment
            float Cf[BM][BN];
            tile_clear(Cf);
#pragma tile pipelined stages(1)
            for (int k = 0; k < K / BK; k++) {
                tile_load(As, A, by * BM, k * BK);
                tile_load(Bs, B, k * BK, bx * BN);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * BM, bx * BN, M, N);
        }
}

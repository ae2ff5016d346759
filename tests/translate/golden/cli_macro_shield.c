/* Block sizes from the command line, named as GEMM code names them: the
 * macros reach the file's code and tile.h, not tilepp's device headers,
 * whose templates have parameters called BM and BN too (a -DBM=64 before
 * them did not compile). */
// tilepp-args: -DBM=64 -DBN=64 -D BK=32
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void gemm_blocks(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, BM); by++)
        for (int bx = 0; bx < tile_cdiv(N, BN); bx++) {
#pragma tile shared
            half As[BM][BK], Bs[BK][BN];
#pragma tile fragment
            float Cf[BM][BN];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, BK); k++) {
                tile_load(As, A, by * BM, k * BK, M, K);
                tile_load(Bs, B, k * BK, bx * BN, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * BM, bx * BN, M, N);
        }
}

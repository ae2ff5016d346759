/* Batched: a 3-D grid (batch, row block, column block) over 2-D slices A[b],
 * B[b], C[b] of 3-D parameters; four stages.
 * gemm_batched.ir.expected shows the slices (`load As A[b] (...)`): when it
 * was written, `--emit ir` printed `load As A (...)`, dropping the slice, so
 * the IR of a batched load read like a load from the whole 3-D array. */
#include <tilepp/tile.h>

enum { BM = 64, BN = 64, BK = 32 };

#pragma tile kernel threads(128)
void gemm_batched(int batch, int M, int N, int K, const half A[batch][M][K], const half B[batch][K][N],
                  half C[batch][M][N])
{
#pragma tile grid swizzle(4)
    for (int b = 0; b < batch; b++)
        for (int by = 0; by < tile_cdiv(M, BM); by++)
            for (int bx = 0; bx < tile_cdiv(N, BN); bx++) {
#pragma tile shared
                half As[BM][BK], Bs[BK][BN];
#pragma tile fragment
                float Cf[BM][BN];
                tile_clear(Cf);
#pragma tile pipelined stages(4)
                for (int k = 0; k < tile_cdiv(K, BK); k++) {
                    tile_load(As, A[b], by * BM, k * BK, M, K);
                    tile_load(Bs, B[b], k * BK, bx * BN, K, N);
                    tile_gemm(As, Bs, Cf);
                }
                tile_store(C[b], Cf, by * BM, bx * BN, M, N);
            }
}

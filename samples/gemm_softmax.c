/* gemm_softmax.c — a GEMM whose epilogue is a row softmax of its output:
 * P = softmax(A B) along each row, for N up to one tile (256 columns: an
 * attention score row of a short sequence, a classifier's logits over a
 * small vocabulary). The whole row of the product is in the block's
 * accumulator, so the softmax runs there, in registers: a masked maximum,
 * the exponentials and their sum, the normalisation (a multiply by each
 * row's reciprocal sum), one store of P.
 * Nothing intermediate touches memory; the unfused pair (a GEMM into a
 * temporary, then a softmax kernel) writes and reads M x N twice more.
 *
 * The accumulator's warps are stacked along M (lowering's choice for a
 * block that reduces rows), so each row's values sit in one quad of one
 * warp, on both paths (the warp-specialized sm_90a kernel on Hopper: the
 * softmax runs in its consumer warpgroups). Columns past N are masked to
 * -inf; for N above BN only the first BN columns are computed (the C run
 * says the same). Compiled as C, this is the CPU reference. */
#include <math.h>
#include <tilepp/tile.h>

enum { BM = 128, BN = 256, BK = 64 };

/* 64-row blocks: each of the two consumer warpgroups of the sm_90a kernel
 * holds a whole block and they take turns (ping-pong), one's softmax under
 * the other's products; 128-row blocks: the two share each block. */
#pragma tile kernel threads(256)
#pragma tile tune BM(64, 128)
void gemm_softmax(int M, int N, int K, const half A[M][K], const half B[K][N], half P[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, BM); by++) {
#pragma tile shared
        half As[BM][BK], Bs[BK][BN];
#pragma tile fragment
        float S[BM][BN], row_max[BM], row_sum[BM], row_inv[BM];
        tile_clear(S);
#pragma tile pipelined stages(3)
        for (int k = 0; k < tile_cdiv(K, BK); k++) {
            tile_load(As, A, by * BM, k * BK, M, K);
            tile_load(Bs, B, k * BK, 0, K, N);
            tile_gemm(As, Bs, S);
        }
#pragma tile parallel
        for (int i = 0; i < BM; i++)
            for (int j = 0; j < BN; j++)
                if (j >= N)
                    S[i][j] = -INFINITY;
        tile_reduce_max(S, row_max, 1, 1);
#pragma tile parallel
        for (int i = 0; i < BM; i++)
            for (int j = 0; j < BN; j++)
                S[i][j] = expf(S[i][j] - row_max[i]);
        tile_reduce_sum(S, row_sum, 1, 1);
        /* one division a row, then a multiply an element: IEEE division of
         * every element is a routine of about ten instructions with a slow
         * path for subnormal quotients, which long rows of exponentials
         * take often (the fused kernel ran 1.5-1.8x longer with it) */
#pragma tile parallel
        for (int i = 0; i < BM; i++)
            row_inv[i] = 1.0f / row_sum[i];
#pragma tile parallel
        for (int i = 0; i < BM; i++)
            for (int j = 0; j < BN; j++)
                S[i][j] = S[i][j] * row_inv[i];
        tile_store(P, S, by * BM, 0, M, N);
    }
}

/* gemm_fixed.c — samples/gemm.c without its tune line: one schedule, one
 * sm_80 and one sm_90a kernel, for the tests of tilepp inspect
 * (run_inspect.cmake), which look for those kernels by name.
 *
 * The matrix product of the brief: C = A * B in half precision with
 * float accumulation, on tensor cores.
 *
 * As C this is a blocked matrix product that the CPU runs with tile.h's
 * implementations of tile_load, tile_gemm and tile_store. tilepp makes each
 * iteration of the grid nest a thread block: the tiles of A and B move into
 * shared memory with cp.async, three stages deep, while the block's four
 * warps multiply the previous ones with mma.sync; the accumulator lives in
 * registers until the single store. On an H100/H200 the launcher runs the
 * sm_90a variant of the same loop instead: a producer warpgroup copies the
 * tiles with TMA, the four warps multiply with wgmma, and the store goes out
 * through TMA.
 */
#include <tilepp/tile.h>

enum { BM = 128, BN = 128, BK = 32, STAGES = 3 };

#pragma tile kernel threads(128)
void gemm(int M, int N, int K, const half A[M][K], const half B[K][N], half C[M][N])
{
#pragma tile grid swizzle(8)
    for (int by = 0; by < tile_cdiv(M, BM); by++)
        for (int bx = 0; bx < tile_cdiv(N, BN); bx++) {
#pragma tile shared
            half As[BM][BK], Bs[BK][BN];
#pragma tile fragment
            float Cf[BM][BN];
            tile_clear(Cf);
#pragma tile pipelined stages(STAGES)
            for (int k = 0; k < tile_cdiv(K, BK); k++) {
                tile_load(As, A, by * BM, k * BK, M, K);
                tile_load(Bs, B, k * BK, bx * BN, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * BM, bx * BN, M, N);
        }
}

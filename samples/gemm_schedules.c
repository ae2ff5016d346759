/* gemm_schedules.c — one matrix product, C = A B (A M x K, B K x N, C M x N,
 * half in and out, float accumulation: the GEMM of gemm.c), as one kernel
 * with a tune space over its schedule: block tile BM x BN x BK, pipeline
 * stages and threads per block. Every point computes the same thing (pragmas
 * are schedule, never meaning): the CPU runs the file's values as the
 * reference, and gemm_schedules_main.c checks the tuned launcher and several
 * points (gemm_schedule_gpu_point, by name) on the GPU and times them.
 *
 * The space is 2 x 2 x 2 x 2 x 2 = 32 points, of which tilepp prunes 18
 * (`tilepp --list-variants gemm_schedules.c` prints each with its reason):
 * a 128 x 256 or 256 x 128 accumulator needs 256 threads (with 128, 256
 * values per thread, over the registers tilepp gives fragments), 256 x 256
 * fits in neither, and 64-deep k-tiles of a 256-wide block take more than
 * sm_80's 163 KB of shared memory at 4 stages (at 3 stages too for 256 x
 * 256). The 14 valid points include gemm.c's enum values
 * (BM=128,BN=128,BK=32,STAGES=3,THREADS=128) and the fastest schedule
 * measured on an H200 (BM=128,BN=256,BK=64,STAGES=3,THREADS=256, the file's
 * values). Two schedules this file had as kernels of their own are gone: a
 * 64 x 64 x 32 block (2 stages; the slowest, and BM and BN of 64 would
 * double the space twice) and blocks in plain row order (swizzle(P) takes
 * 1 to 64, and swizzle(1) is column order, not row order).
 *
 * The L2 swizzle panel follows the block: 8 rows of blocks up to 128 x 128,
 * 4 for the larger ones (SWIZZLE is not tuned; its definition uses BM and
 * BN, so each point's translation gets its own value). */
#include <tilepp/tile.h>

enum { BM = 128, BN = 256, BK = 64, STAGES = 3, THREADS = 256 };
enum { SWIZZLE = BM * BN > 128 * 128 ? 4 : 8 };

#pragma tile kernel threads(THREADS)
#pragma tile tune BM(128, 256) BN(128, 256) BK(32, 64) STAGES(3, 4) THREADS(128, 256)
void gemm_schedule(int M, int N, int K, const half A[M][K], const half B[K][N], half C[M][N])
{
#pragma tile grid swizzle(SWIZZLE)
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

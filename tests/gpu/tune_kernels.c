/* tune_kernels.c — tuned kernels as a user writes them, for tune_test.c.
 * Plain C: the CPU build uses the values in the enums. */
#include <tilepp/tile.h>

/* In place (y is read and written): the tuner runs every variant on the
 * caller's y, so it must restore y before each run and leave the call's
 * result exactly one update away from what the caller passed. threads(48)
 * is no multiple of 32: those three points are pruned. */
enum { VEC = 4, THREADS = 256 };

#pragma tile kernel threads(THREADS)
#pragma tile tune VEC(1, 2, 4) THREADS(48, 128, 256)
void axpy_inplace(int n, float a, const float x[n], float y[n])
{
#pragma tile parallel vector(VEC)
    for (int i = 0; i < n; i++)
        y[i] = a * y[i] + x[i];
}

/* Deliberately wrong at one point: with SKIP = 1 the odd rows are left
 * alone, which is half the work, so that variant is the fastest by far. A
 * constant that changes what the program computes is the user's mistake
 * (pragmas are schedule, constants are C); the tuner must catch it by
 * comparing every variant with the file's own values, and never choose it. */
enum { SKIP = 0 };

#pragma tile kernel
#pragma tile tune SKIP(0, 1)
void scale_rows(int rows, int cols, const float x[rows][cols], float y[rows][cols])
{
#pragma tile parallel
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            if (!SKIP || r % 2 == 0)
                y[r][c] = 2.0f * x[r][c] + 1.0f;
}

/* A GEMM with a small space of its own (the sample's has 18 variants, each
 * seconds of nvcc): block rows and pipeline depth. */
enum { GBM = 128, GBN = 128, GBK = 32, GSTAGES = 3 };

#pragma tile kernel threads(128)
#pragma tile tune GBM(64, 128) GSTAGES(2, 3)
void gemm_tuned(int M, int N, int K, const half A[M][K], const half B[K][N], half C[M][N])
{
#pragma tile grid swizzle(8)
    for (int by = 0; by < tile_cdiv(M, GBM); by++)
        for (int bx = 0; bx < tile_cdiv(N, GBN); bx++) {
#pragma tile shared
            half As[GBM][GBK], Bs[GBK][GBN];
#pragma tile fragment
            float Cf[GBM][GBN];
            tile_clear(Cf);
#pragma tile pipelined stages(GSTAGES)
            for (int k = 0; k < tile_cdiv(K, GBK); k++) {
                tile_load(As, A, by * GBM, k * GBK, M, K);
                tile_load(Bs, B, k * GBK, bx * GBN, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * GBM, bx * GBN, M, N);
        }
}

/* debug_kernels.c — kernels for debug_test.c, translated with -g
 * (tile_add_kernels DEBUG): every tile_load and tile_store checks its
 * window or its bounds against the matrix's declared extents.
 *
 * Each kernel is right for some shapes and breaks a promise for others:
 * dbg_gemm and dbg_rows cover a matrix with tile_cdiv blocks but move whole
 * tiles with the 4-argument forms, which promise the window is inside (true
 * only when the extents are multiples of the tiles); dbg_vec does the same
 * with the 3-argument 1-D load; dbg_bounds hands its 6-argument load a row
 * count that may exceed the matrix's. The comments `check: NAME` mark the
 * operations whose line and column debug_test.c expects in the reports. */
#include <tilepp/tile.h>

enum { BM = 64, BN = 64, BK = 32, TM = 64, TN = 64, VL = 256 };

#pragma tile kernel threads(128)
void dbg_gemm(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, BM); by++)
        for (int bx = 0; bx < tile_cdiv(N, BN); bx++) {
#pragma tile shared
            half As[BM][BK], Bs[BK][BN];
#pragma tile fragment
            float Cf[BM][BN];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, BK); k++) {
                tile_load(As, A, by * BM, k * BK); /* check: gemm_load_a */
                tile_load(Bs, B, k * BK, bx * BN);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * BM, bx * BN);
        }
}

#pragma tile kernel threads(128)
void dbg_rows(int M, const float X[M][TN], float Y[M][TN])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, TM); by++) {
#pragma tile fragment
        float Xf[TM][TN];
        tile_load(Xf, X, by * TM, 0, M, TN);
        tile_store(Y, Xf, by * TM, 0); /* check: rows_store */
    }
}

#pragma tile kernel threads(128)
void dbg_vec(int n, const float x[n], float y[n])
{
#pragma tile grid
    for (int b = 0; b < tile_cdiv(n, VL); b++) {
#pragma tile shared
        float xs[VL];
        tile_load(xs, x, b * VL); /* check: vec_load */
        tile_store(y, xs, b * VL, n);
    }
}

#pragma tile kernel threads(128)
void dbg_bounds(int M, int rows, const float X[M][TN], float Y[M][TN])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(rows, TM); by++) {
#pragma tile fragment
        float Xf[TM][TN];
        tile_load(Xf, X, by * TM, 0, rows, TN); /* check: bounds_load */
        tile_store(Y, Xf, by * TM, 0, M, TN);
    }
}

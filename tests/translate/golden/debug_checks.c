// tilepp-args: -g
/* The debug translation (-g): every tile_load and tile_store of a grid
 * checks its window (the forms without extents: the promise that it lies
 * inside the matrix) or the extents it was given (the 6-argument and 1-D
 * 4-argument forms) against the matrix's declared extents, and the
 * launchers wait for their kernels and report a failed check. Here: a
 * pipelined GEMM whose loads promise (its sm_90a variant is dropped: -g
 * grids take the sm_80 kernel), bounded loads and stores, a slice of a 4-D
 * matrix, 1-D windows of a declared vector, of a pointer (its length
 * unknown) and of a moved vector, and a kernel without grids (its
 * launcher waits all the same). */
#include <tilepp/tile.h>

enum { BM = 128, BN = 128, BK = 32, L = 256 };

#pragma tile kernel threads(128)
void gemm_promise(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid swizzle(8)
    for (int by = 0; by < tile_cdiv(M, BM); by++)
        for (int bx = 0; bx < tile_cdiv(N, BN); bx++) {
#pragma tile shared
            half As[BM][BK], Bs[BK][BN];
#pragma tile fragment
            float Cf[BM][BN];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, BK); k++) {
                tile_load(As, A, by * BM, k * BK);
                tile_load(Bs, B, k * BK, bx * BN, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * BM, bx * BN, M, N);
        }
}

#pragma tile kernel threads(128)
void slices(int B, int H, int S, const half Q[B][H][S][64], float O[B][H][S][64])
{
#pragma tile grid
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int s0 = 0; s0 < S; s0 += 64) {
#pragma tile shared
                half Qs[64][64];
#pragma tile fragment
                float Of[64][64];
                tile_load(Qs, Q[b][h], s0, 0);
                tile_copy(Of, Qs);
                tile_store(O[b][h], Of, s0, 0);
            }
}

#pragma tile kernel threads(128)
void vectors(int n, int off, const float x[n], const float *p, float *y)
{
#pragma tile grid
    for (int i0 = 0; i0 < n; i0 += L) {
#pragma tile shared
        float xs[L], ps[L];
        tile_load(xs, x, i0);
        tile_load(ps, p, i0);
        tile_load(ps, p + off, i0, n);
        tile_store(y, xs, i0, n);
    }
}

#pragma tile kernel
void no_grid(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = 1.0f;
}

/* tile_ops_kernels.c — the element-wise tile operations in grids: 1-D tiles
 * (shared and fragment, windows that start before the vector or end past
 * it), loads that convert elements (into shared tiles and into fragments),
 * shared tiles filled, copied to shared tiles and stored, 1-D loads in a
 * pipelined loop, 2-D windows that start before the matrix (loads and
 * stores), and a GEMM that accumulates onto a loaded C.
 * tile_ops_test.c runs each against its CPU reference (this file, compiled
 * by the C compiler). */
#include <tilepp/tile.h>

enum { L = 300, CH = 4, TM = 64, TN = 64, BM = 128, BN = 128, BK = 32 };

/* Per block of L elements:
 *   y[i] = s[i - 1] (y[0] = 0)       a 1-D shared window starting before s,
 *   z[i] = bfloat16(x[i])            shared -> fragment -> fragment (rounding),
 *   w[i] = half(s[i])                shared -> shared (float -> half),
 *   u[i] = 1.5                       a 1-D fragment filled, then stored,
 *   v[i] = half(i0 / 1000 - 0.5)     a 1-D shared tile filled with a per-block value. */
#pragma tile kernel threads(128)
void vec_moves(int n, const half *x, const float *s, float *y, bfloat16 *z, half *w, float *u, half *v)
{
#pragma tile grid
    for (int i0 = 0; i0 < n; i0 += L) {
#pragma tile shared
        half xs[L], hs[L];
#pragma tile shared
        float ss[L];
#pragma tile fragment
        float xf[L];
#pragma tile fragment
        bfloat16 zf[L];
        tile_load(xs, x, i0, n);
        tile_load(ss, s, i0 - 1, n);
        tile_store(y, ss, i0, n);
        tile_copy(xf, xs);
        tile_copy(zf, xf);
        tile_store(z, zf, i0, n);
        tile_load(ss, s, i0, n);
        tile_copy(hs, ss);
        tile_store(w, hs, i0, n);
        tile_fill(xf, 1.5f);
        tile_store(u, xf, i0, n);
        tile_fill(hs, i0 / 1000.0f - 0.5f);
        tile_store(v, hs, i0, n);
    }
}

/* y[i] = half(x[i]), in chunks of L that a pipelined loop streams through a
 * staged 1-D shared tile; CH chunks per block. */
#pragma tile kernel threads(128)
void vec_stream(int n, const float *x, half *y)
{
#pragma tile grid
    for (int b = 0; b < tile_cdiv(n, L * CH); b++) {
#pragma tile shared
        float xs[L];
#pragma tile fragment
        half yf[L];
#pragma tile pipelined stages(3)
        for (int c = 0; c < CH; c++) {
            tile_load(xs, x, (b * CH + c) * L, n);
            tile_copy(yf, xs);
            tile_store(y, yf, (b * CH + c) * L, n);
        }
    }
}

/* Per TM x TN block of X (float):
 *   Y = half(X)              a converting load into a shared tile (filled
 *                            with another value first), stored from shared,
 *   Z = bfloat16(half(X))    a converting load into a half fragment, copied
 *                            to shared, shared -> shared into bfloat16,
 *   W = float(half(X))       the fragment stored,
 *   V = half(by - bx / 2)    a shared tile filled with a per-block value. */
#pragma tile kernel threads(128)
void mat_moves(int M, int N, const float X[M][N], half Y[M][N], bfloat16 Z[M][N], float W[M][N], half V[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, TM); by++)
        for (int bx = 0; bx < tile_cdiv(N, TN); bx++) {
#pragma tile shared
            half Fs[TM][TN], Hs[TM][TN];
#pragma tile shared
            bfloat16 Zs[TM][TN];
#pragma tile fragment
            half Hf[TM][TN];
            tile_fill(Fs, 3.0f);
            tile_load(Fs, X, by * TM, bx * TN, M, N);
            tile_store(Y, Fs, by * TM, bx * TN, M, N);
            tile_load(Hf, X, by * TM, bx * TN, M, N);
            tile_copy(Hs, Hf);
            tile_copy(Zs, Hs);
            tile_store(Z, Zs, by * TM, bx * TN, M, N);
            tile_store(W, Hf, by * TM, bx * TN, M, N);
            tile_fill(Hs, by - bx * 0.5f);
            tile_store(V, Hs, by * TM, bx * TN, M, N);
        }
}

/* Windows that start before the matrix (the grid reaches past it so that
 * every element is written once):
 *   Y[i][j] = X[i - 3][j - 5], 0 where that lies outside X   (a load at a negative origin)
 *   Z[i][j] = X[i + 2][j + 1], 0 outside                     (a store at a negative origin) */
#pragma tile kernel threads(128)
void shifted_windows(int M, int N, const half X[M][N], half Y[M][N], float Z[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M + 2, TM); by++)
        for (int bx = 0; bx < tile_cdiv(N + 1, TN); bx++) {
#pragma tile shared
            half Hs[TM][TN];
#pragma tile fragment
            float Xf[TM][TN];
            tile_load(Hs, X, by * TM - 3, bx * TN - 5, M, N);
            tile_store(Y, Hs, by * TM, bx * TN, M, N);
            tile_load(Xf, X, by * TM, bx * TN, M, N);
            tile_store(Z, Xf, by * TM - 2, bx * TN - 1, M, N);
        }
}

/* D = Cin + A B: the accumulator starts as a window of Cin. */
#pragma tile kernel threads(128)
void gemm_acc(int M, int N, int K, const half A[M][K], const half B[K][N], const float Cin[M][N], float D[M][N])
{
#pragma tile grid swizzle(8)
    for (int by = 0; by < tile_cdiv(M, BM); by++)
        for (int bx = 0; bx < tile_cdiv(N, BN); bx++) {
#pragma tile shared
            half As[BM][BK], Bs[BK][BN];
#pragma tile fragment
            float Cf[BM][BN];
            tile_load(Cf, Cin, by * BM, bx * BN, M, N);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, BK); k++) {
                tile_load(As, A, by * BM, k * BK, M, K);
                tile_load(Bs, B, k * BK, bx * BN, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(D, Cf, by * BM, bx * BN, M, N);
        }
}

/* D = As B where As is A moved down by `shift` rows (up, for a negative
 * shift), zeros where it has no row: the loads of A start before the
 * matrix in the first blocks (or run past it in the last), which tilepp
 * cannot rule out from the parameter; on sm_90a they are TMA copies, which
 * fill what lies outside the matrix with zeros as tile_load does. */
#pragma tile kernel threads(128)
void gemm_shifted(int M, int N, int K, int shift, const half A[M][K], const half B[K][N], float D[M][N])
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
                tile_load(As, A, by * BM - shift, k * BK, M, K);
                tile_load(Bs, B, k * BK, bx * BN, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(D, Cf, by * BM, bx * BN, M, N);
        }
}

/* D = (A B) moved up by sr rows and left by sc columns, in half: the
 * accumulator of each block goes out at a window that starts before the
 * matrix in the first blocks (sr, sc >= 0, parameters, which tilepp cannot
 * tell apart from negative ones), past it in the last, where A and B give
 * zeros. The grid reaches sr rows and sc columns past the product so that
 * every element of D is written once. */
#pragma tile kernel threads(128)
void gemm_store_shifted(int M, int N, int K, int sr, int sc, const half A[M][K], const half B[K][N], half D[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M + sr, BM); by++)
        for (int bx = 0; bx < tile_cdiv(N + sc, BN); bx++) {
#pragma tile shared
            half As[BM][BK], Bs[BK][BN];
#pragma tile fragment
            float Cf[BM][BN];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, BK); k++) {
                tile_load(As, A, by * BM, k * BK, M, K);
                tile_load(Bs, B, k * BK, bx * BN, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(D, Cf, by * BM - sr, bx * BN - sc, M, N);
        }
}

/* 2-D shared tiles of float: a transpose through one (read by the block's
 * threads in the other order), loads in a pipelined loop reduced by
 * columns into a 1-D shared tile, a plain loop that copies each loaded tile
 * into a fragment and back into another shared tile (fragment to shared),
 * a half tile widened into a float one, and stores of both. */
#pragma tile kernel threads(256)
void transpose_f32(int M, int N, const float X[M][N], float Y[N][M])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 32); by++)
        for (int bx = 0; bx < tile_cdiv(N, 32); bx++) {
#pragma tile shared
            float Ts[32][32];
            tile_load(Ts, X, by * 32, bx * 32, M, N);
#pragma tile parallel
            for (int j = 0; j < 32; j++)
                for (int i = 0; i < 32; i++)
                    if (bx * 32 + j < N && by * 32 + i < M)
                        Y[bx * 32 + j][by * 32 + i] = Ts[i][j];
        }
}

#pragma tile kernel threads(128)
void float_shared(int M, int N, const float X[M][N], const half H[M][N], float cmax[N], float Y[M][N], float W[M][N])
{
#pragma tile grid
    for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
        float Ts[64][64], Us[64][64], Vs[64][64];
#pragma tile shared
        half Hs[64][64];
#pragma tile shared
        float cm[64];
#pragma tile fragment
        float F[64][64];
        tile_fill(cm, -INFINITY);
#pragma tile pipelined stages(3)
        for (int rb = 0; rb < tile_cdiv(M, 64); rb++) {
            tile_load(Ts, X, rb * 64, bx * 64, M, N);
            tile_reduce_max(Ts, cm, 0, 0);
        }
        tile_store(cmax, cm, bx * 64, N);
        for (int rb = 0; rb < tile_cdiv(M, 64); rb++) {
            tile_load(Us, X, rb * 64, bx * 64, M, N);
            tile_copy(F, Us);
#pragma tile parallel
            for (int i = 0; i < 64; i++)
                for (int j = 0; j < 64; j++)
                    F[i][j] = F[i][j] * 2.0f - 1.0f;
            tile_copy(Vs, F);
            tile_store(Y, Vs, rb * 64, bx * 64, M, N);
            tile_load(Hs, H, rb * 64, bx * 64, M, N);
            tile_copy(Vs, Hs);
            tile_store(W, Vs, rb * 64, bx * 64, M, N);
        }
    }
}

/* A product whose k range grows with the block row (row block `by` takes
 * A's columns below (by + 1) * 128: A's lower block triangle): the tiles'
 * work varies, so on sm_90a the blocks take them from a counter; one
 * product an iteration from shared tiles, 128 x 128 on 256 threads, so the
 * two consumer warpgroups take turns on whole tiles (ping-pong). */
#pragma tile kernel threads(256)
void gemm_band(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 128); by++)
        for (int bx = 0; bx < tile_cdiv(N, 128); bx++) {
#pragma tile shared
            half As[128][64], Bs[64][128];
#pragma tile fragment
            float Cf[128][128];
            const int kend = (by + 1) * 128 < K ? (by + 1) * 128 : K;
            tile_clear(Cf);
#pragma tile pipelined stages(4)
            for (int k = 0; k < tile_cdiv(kend, 64); k++) {
                tile_load(As, A, by * 128, k * 64, M, K);
                tile_load(Bs, B, k * 64, bx * 128, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 128, bx * 128, M, N);
        }
}

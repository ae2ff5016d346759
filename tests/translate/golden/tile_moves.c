// The element-wise tile operations: a 1-D window of a vector in shared memory
// and in a fragment (the 3- and 4-argument forms), a row slice X[b] as the
// vector, a converting load into a 2-D shared tile, shared -> shared copies,
// shared fills and stores, and an accumulator loaded from global memory
// (4-argument form) before a product.
#include <tilepp/tile.h>

enum { L = 256, TM = 32, TN = 64 };

#pragma tile kernel threads(128)
void rows_to_half(int B, int n, const float X[B][n], half Y[B][n], const half *scale)
{
#pragma tile grid
    for (int b = 0; b < B; b++)
        for (int i0 = 0; i0 < n; i0 += L) {
#pragma tile shared
            float xs[L];
#pragma tile fragment
            half yf[L];
#pragma tile fragment
            float sf[L];
            tile_load(xs, X[b], i0, n);
            tile_copy(yf, xs);
            tile_store(Y[b], yf, i0, n);
            tile_load(sf, scale, 0);
            tile_store(Y[b], sf, i0 + L, n);
        }
}

#pragma tile kernel threads(128)
void convert_tiles(int M, int N, const float X[M][N], bfloat16 Z[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, TM); by++)
        for (int bx = 0; bx < tile_cdiv(N, TN); bx++) {
#pragma tile shared
            half Hs[TM][TN];
#pragma tile shared
            bfloat16 Zs[TM][TN];
            tile_fill(Zs, -1.0f);
            tile_load(Hs, X, by * TM, bx * TN, M, N);
            tile_copy(Zs, Hs);
            tile_store(Z, Zs, by * TM, bx * TN, M, N);
            tile_clear(Hs);
        }
}

#pragma tile kernel threads(128)
void gemm_onto(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half As[64][32], Bs[32][64];
#pragma tile fragment
            float Cf[64][64];
            tile_load(Cf, C, by * 64, bx * 64);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 64, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 64, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 64, bx * 64, M, N);
        }
}

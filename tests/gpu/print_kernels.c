/* print_kernels.c — kernels for print_test.c: tile_print of a GEMM's
 * accumulator (a 2-D fragment), of shared tiles (2-D half, 1-D float), of
 * 1-D fragments (one value per row of a 2-D fragment; spread over the
 * threads) and of scalars (int, float, half, a comparison). The inputs
 * print_test.c gives are small integers and halves, so that the products
 * and sums are exact in float and the CPU and GPU print the same digits. */
#include <tilepp/tile.h>

enum { TM = 64, TN = 64, TK = 32 };

/* C = A B, printing the accumulator of each block and its origin. */
#pragma tile kernel threads(128)
void print_gemm(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, TM); by++)
        for (int bx = 0; bx < tile_cdiv(N, TN); bx++) {
#pragma tile shared
            half As[TM][TK], Bs[TK][TN];
#pragma tile fragment
            float Cf[TM][TN];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, TK); k++) {
                tile_load(As, A, by * TM, k * TK, M, K);
                tile_load(Bs, B, k * TK, bx * TN, K, N);
                tile_gemm(As, Bs, Cf);
            }
            int row0 = by * TM;
            tile_print(row0);
            tile_print(bx * TN);
            tile_print(Cf);
            tile_store(C, Cf, by * TM, bx * TN, M, N);
        }
}

/* A shared half tile and a 1-D shared float tile, with scalars of the
 * kernel and of the block around them. */
#pragma tile kernel threads(128)
void print_shared(int M, int N, float scale, const half X[M][N], const float w[N], half Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, TM); by++)
        for (int bx = 0; bx < tile_cdiv(N, TN); bx++) {
#pragma tile shared
            half S[TM][TN];
#pragma tile shared
            float ws[TN];
            half h = (half)(scale * (float)(by + 1));
            float s = scale / 4.0f + (float)bx;
            tile_print(scale);
            tile_print(h);
            tile_print(s);
            tile_print(by < bx);
            tile_load(S, X, by * TM, bx * TN, M, N);
            tile_load(ws, w, bx * TN, N);
            tile_print(S);
            tile_print(ws);
            tile_store(Y, S, by * TM, bx * TN, M, N);
        }
}

/* A 2-D fragment, its rows' maxima (a 1-D fragment, one value per row) and
 * a 1-D fragment spread over the threads; the maxima printed again in a
 * sequential loop of the block, once per iteration. */
#pragma tile kernel threads(128)
void print_rows(int M, int N, const float X[M][N], const float v[N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 32); by++)
        for (int bx = 0; bx < tile_cdiv(N, TN); bx++) {
#pragma tile fragment
            float T[32][TN];
#pragma tile fragment
            float mx[32];
#pragma tile fragment
            half vs[TN];
            tile_load(T, X, by * 32, bx * TN, M, N);
            tile_reduce_max(T, mx, 1, 1);
            tile_load(vs, v, bx * TN, N);
            tile_print(T);
            tile_print(mx);
            tile_print(vs);
            for (int pass = 0; pass < 2; pass++) { /* the second pass prints the maxima of T - max: 0 */
#pragma tile parallel
                for (int i = 0; i < 32; i++)
                    for (int j = 0; j < TN; j++)
                        T[i][j] -= mx[i];
                tile_reduce_max(T, mx, 1, 1);
                tile_print(mx);
            }
            tile_store(Y, T, by * 32, bx * TN, M, N);
        }
}

// Arithmetic between two half (or two bfloat16) operands means two things in
// C: clang rounds the result to 16 bits at once, gcc and the GPU keep it in
// float until it is stored. tilepp warns, at the operator, where the two
// differ: where the result is not stored straight into a 16-bit object (a
// float variable, an operand of another operation, an argument). Stored
// straight into a half (or cast to one) both give the same value, and
// `(float)a + b` is float everywhere: no warning (pragmas/README.md, "half,
// bfloat16"; tests/difftest/findings/half_plus_half.c).
#include <tilepp/tile.h>

#pragma tile kernel
void mixed(int n, const half *a, const half *b, const bfloat16 *c, const bfloat16 *d, float *y, half *h,
           bfloat16 *z)
{
#pragma tile parallel
    for (int i = 0; i < n; i++) {
        y[i] = a[i] + b[i];                  /* warns: '+' kept in float or not */
        h[i] = a[i] * b[i];                  /* stored straight into a half: same value either way */
        float s = (float)a[i] - b[i];        /* float everywhere */
        half t = a[i] / b[i];                /* stored straight */
        z[i] = c[i] - d[i] + 1.0f;           /* warns: '-' is an operand of '+' */
        y[i] += expf(a[i] * b[i]) + s + t;   /* warns: '*' is an argument */
        h[i] = (half)(a[i] + b[i]) * b[i];   /* cast to half, then stored: no warning */
        z[i] = c[i] * d[i] + c[i];           /* warns: '*' (the '+' is stored straight) */
    }
}

enum { BM = 64, BN = 64, BK = 32 };

/* A written-out product over half tiles: the cast keeps the products in
 * float, as the tensor cores compute them, and tilepp still sees the
 * product (casts of the operands are allowed). */
#pragma tile kernel threads(128)
void gemm_cast(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, BM); by++)
        for (int bx = 0; bx < tile_cdiv(N, BN); bx++) {
#pragma tile shared
            half As[BM][BK], Bs[BK][BN];
#pragma tile fragment
            float Cf[BM][BN];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, BK); k++) {
                tile_load(As, A, by * BM, k * BK, M, K);
                tile_load(Bs, B, k * BK, bx * BN, K, N);
#pragma tile gemm
                for (int i = 0; i < BM; i++)
                    for (int j = 0; j < BN; j++)
                        for (int kk = 0; kk < BK; kk++)
                            Cf[i][j] += (float)As[i][kk] * Bs[kk][j];
            }
            tile_store(C, Cf, by * BM, bx * BN, M, N);
        }
}

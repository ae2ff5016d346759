/* The GEMM of the product brief, exactly as a user writes it, run on the CPU
 * (the C compiler ignores the `#pragma tile` lines) on random data with
 * M = 100, N = 70, K = 50 (partial tiles in every dimension), against a naive
 * triple loop in the order tile_gemm documents: float products and sums,
 * k = 0, 1, ..., K-1, one rounding to half at the end. The zeros tile_load
 * reads past the edges add +0.0, so the two agree bit for bit.
 */
#include <tilepp/tile.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `tile tune` explores STAGES; as C it needs a value (it appears only in a
 * pragma here, so the CPU run does not depend on it). */
enum { STAGES = 3 };

/* ---- from the brief ---- */
enum { BM = 128, BN = 128, BK = 32 };

#pragma tile kernel threads(128)
#pragma tile tune BM(64, 128) BN(128, 256) BK(32, 64) STAGES(2, 3, 4)
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
/* ---- end of the brief's code ---- */

static unsigned long long state = 12345;
static float rnd(void)
{
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float)((int)(state >> 40) % 2001 - 1000) / 250.0f;
}

static int run(int M, int N, int K)
{
    half *a = malloc(sizeof(half) * (size_t)M * (size_t)K);
    half *b = malloc(sizeof(half) * (size_t)K * (size_t)N);
    half *c = malloc(sizeof(half) * (size_t)M * (size_t)N);
    half *r = malloc(sizeof(half) * (size_t)M * (size_t)N);
    int bad = 0;
    if (!a || !b || !c || !r)
        return 1;
    for (int i = 0; i < M * K; i++)
        a[i] = (half)rnd();
    for (int i = 0; i < K * N; i++)
        b[i] = (half)rnd();
    for (int i = 0; i < M * N; i++)
        c[i] = (half)12345.0f; /* every element must be overwritten */
    gemm(M, N, K, (const half(*)[K])a, (const half(*)[N])b, (half(*)[N])c);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0.0f;
            for (int k = 0; k < K; k++) {
                volatile float p = (float)a[i * K + k] * (float)b[k * N + j];
                acc = acc + p;
            }
            r[i * N + j] = (half)acc;
        }
    for (int i = 0; i < M * N; i++)
        if ((float)c[i] != (float)r[i]) {
            if (bad < 5)
                fprintf(stderr, "C[%d][%d] = %g, expected %g\n", i / N, i % N, (double)(float)c[i],
                        (double)(float)r[i]);
            bad++;
        }
    printf("gemm %d x %d x %d: %d of %d elements differ\n", M, N, K, bad, M * N);
    free(a);
    free(b);
    free(c);
    free(r);
    return bad != 0;
}

int main(void)
{
    int failed = run(100, 70, 50);
    failed |= run(128, 128, 32); /* exactly one tile */
    failed |= run(1, 1, 1);
    failed |= run(257, 129, 97);
    return failed;
}

/* edge_kernels.c — kernels as users write them, for edge_test.c's shapes:
 * empty dimensions, one element, sizes past 2^31 elements (64-bit index
 * arithmetic), misaligned pointers and leading dimensions. Each is its own
 * CPU reference (this file, compiled by the C compiler). */
#include <math.h>
#include <tilepp/tile.h>

/* y = a x + y over a length that may pass 2^31. */
#pragma tile kernel
void saxpy_long(long long n, float a, const float *x, float *y)
{
#pragma tile parallel vector(4)
    for (long long i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

/* The sum of squares of a half vector, and its largest magnitude. */
#pragma tile kernel
void norm_long(long long n, const half *x, float out[2])
{
    float s = 0.0f, big = 0.0f;
#pragma tile parallel vector(8) reduce(+: s) reduce(max: big)
    for (long long i = 0; i < n; i++) {
        float v = x[i];
        s += v * v;
        big = fmaxf(big, fabsf(v));
    }
#pragma tile parallel
    for (int j = 0; j < 2; j++)
        out[j] = j == 0 ? s : big;
}

/* The largest element of each row, and the row scaled by it; an empty row's
 * maximum is -INFINITY, as the loop leaves it. */
#pragma tile kernel threads(256)
void row_max_scale(int rows, int cols, const float x[rows][cols], float y[rows][cols], float top[rows])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
        float m = -INFINITY;
#pragma tile parallel vector(4) reduce(max: m)
        for (int c = 0; c < cols; c++)
            m = fmaxf(m, x[r][c]);
        top[r] = m;
        float inv = 1.0f / m;
#pragma tile parallel vector(4)
        for (int c = 0; c < cols; c++)
            y[r][c] = x[r][c] * inv;
    }
}

enum { EM = 128, EN = 128, EK = 32 };

/* C = A B with a leading dimension of A's own (lda >= K): a window of a
 * larger matrix, as BLAS users pass one. */
#pragma tile kernel threads(128)
void gemm_lda(int M, int N, int K, int lda, const half A[M][lda], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, EM); by++)
        for (int bx = 0; bx < tile_cdiv(N, EN); bx++) {
#pragma tile shared
            half As[EM][EK], Bs[EK][EN];
#pragma tile fragment
            float Cf[EM][EN];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, EK); k++) {
                tile_load(As, A, by * EM, k * EK, M, K);
                tile_load(Bs, B, k * EK, bx * EN, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * EM, bx * EN, M, N);
        }
}

/* Loops whose conditions compare unsigned values, as C code writes them: a
 * reversed copy counting an unsigned index down until it wraps (`i < n` with
 * `i--`), and a signed start against an unsigned bound, which C converts to
 * unsigned (start = -1 is the largest value: no iteration). */
#pragma tile kernel
void reverse_unsigned(unsigned n, const float *restrict x, float *restrict y)
{
#pragma tile parallel
    for (unsigned i = n - 1; i < n; i--)
        y[n - 1 - i] = 2.0f * x[i] + (float)sizeof('c');
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare" /* the conversion is the case */
#pragma tile kernel
void mixed_sign_bound(int start, unsigned n, float *y)
{
#pragma tile parallel
    for (int i = start; i < n; i++)
        y[i] = (float)i;
}
#pragma GCC diagnostic pop

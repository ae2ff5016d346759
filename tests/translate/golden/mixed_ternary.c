// Conditionals between a half or bfloat16 operand and one of another type
// (tests/difftest/findings/ternary_16bit_float.c). C converts both operands to
// one type by the usual arithmetic conversions; in CUDA half and bfloat16
// convert from and to float, and nvcc finds `c ? h : 0.0f` ambiguous. The
// operand whose type is not the conditional's gets a cast to it: `(float)(h)`,
// `(half)(0)`. tile_max/tile_min are functions of C's type in the generated
// code (tile_runtime.cuh).
#include <math.h>
#include <tilepp/tile.h>

// A helper of the file (a device function in the CUDA) and a declaration at
// the kernel's top level get their casts too.
static float or_zero(half h, int keep) { return keep ? h : 0.0f; }

// In parallel loop bodies: half with float is float, bfloat16 with float is
// float, half with int is half, half with double is double.
#pragma tile kernel
void select(int n, int valid, const half *h, const bfloat16 *b, float *y, half *z, double *d)
{
    float first = n > 0 ? h[0] : 1.0f;
#pragma tile parallel
    for (int c = 0; c < n; c++) {
        y[c] = c < valid ? h[c] : 0.0f;
        y[c] += c < valid ? 1.0f : b[c];
        z[c] = c < valid ? h[c] : 0;
        d[c] = c < valid ? 0.5 : (h[c]);
        y[c] += tile_max(h[c], 0.25f) + tile_min(b[c], 1);
        y[c] += tile_min(c < valid ? h[c] : 0.0f, 2.0f);
        y[c] += or_zero(h[c], c & 1) * first;
    }
}

// Reduction updates: the conditional form and tile_max, over half inputs.
#pragma tile kernel
void running_max(int n, const half *x, const bfloat16 *w, float *y)
{
    float m = -INFINITY, lo = INFINITY;
#pragma tile parallel reduce(max : m) reduce(min : lo)
    for (int i = 0; i < n; i++) {
        m = m > x[i] ? m : x[i];
        lo = tile_min(lo, w[i]);
    }
#pragma tile parallel
    for (int i = 0; i < 1; i++)
        y[i] = m - lo;
}

// In a block: a scalar statement, a parallel loop with a reduction, and a
// fragment epilogue (a loop over the fragment's elements).
#pragma tile kernel threads(128)
void rows(int M, int N, const half X[M][64], const half *bias, float Y[M][64], float *amax)
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile fragment
        float F[64][64];
        tile_load(F, X, by * 64, 0, M, 64);
        float s = by < N ? bias[by] : 1.0f;
        float m = 0.0f;
#pragma tile parallel reduce(max : m)
        for (int c = 0; c < 64; c++)
            m = tile_max(m, c < N ? bias[c] : 0.0f);
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 64; j++)
                F[i][j] = s * F[i][j] + (j < N ? bias[j] : 0.0f) + m;
        tile_store(Y, F, by * 64, 0, M, 64);
        if (by == 0)
            amax[0] = m;
    }
}

/* l1_kernels.c — level-1 constructs inside `#pragma tile parallel` bodies.
 *
 * Each kernel is a small, plausible user kernel exercising one or two
 * constructs the translator must carry into CUDA unchanged in meaning. The
 * CPU run of this file is the reference; l1_test.c compares every kernel's
 * launcher against it on several shapes. */
#include <math.h>
#include <tilepp/tile.h>

/* A #define macro and an enum constant, used in kernel bodies. */
#define LEAKY_SLOPE 0.01f
enum { CLIP_LIMIT = 3 };

/* A static helper function called from a kernel body. */
static inline float sigmoid(float v)
{
    return 1.0f / (1.0f + expf(-v));
}

/* Locals, a ternary and if/else: a leaky ReLU6 on scaled inputs. */
#pragma tile kernel
void leaky_relu6(int n, float scale, const float *x, float *y)
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++) {
        float v = x[i] * scale;
        float r;
        if (v > 0.0f)
            r = v > 6.0f ? 6.0f : v;
        else
            r = v * 0.1f;
        y[i] = r;
    }
}

/* Math functions: expf, tanhf, erff, fmaxf, sqrtf (and fabsf). */
#pragma tile kernel threads(128)
void math_mix(int n, const float *x, float *y)
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++) {
        float v = x[i];
        y[i] = expf(-v * v) + tanhf(2.0f * v) + erff(v) + fmaxf(v, 0.25f) + sqrtf(fabsf(v));
    }
}

/* An inner sequential for loop: each thread sums one row. The nest is not
 * perfect (acc lives between the loops), so only the row loop is parallel. */
#pragma tile kernel
void row_sum(int rows, int cols, const float x[rows][cols], float out[rows])
{
#pragma tile parallel
    for (int r = 0; r < rows; r++) {
        float acc = 0.0f;
        for (int c = 0; c < cols; c++)
            acc += x[r][c];
        out[r] = acc;
    }
}

/* Casts: float -> int -> float (fake quantisation to a fixed-point grid). */
#pragma tile kernel
void fake_quant(int n, float scale, const float *x, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++) {
        int q = (int)(x[i] * scale);
        y[i] = (float)q / scale;
    }
}

/* half loads and stores: out = alpha * x + y. */
#pragma tile kernel
void half_axpy(int n, float alpha, const half *x, const half *y, half *out)
{
#pragma tile parallel vector(8)
    for (int i = 0; i < n; i++)
        out[i] = alpha * x[i] + y[i];
}

/* bfloat16 loads and stores, and half -> float -> bfloat16 conversions, on
 * 2-D C99 arrays: y = bf16(x * scale[c]). The products go through float on
 * purpose: clang 19 crashes ("Do not know how to soft promote this
 * operator") on a direct _Float16 -> __bf16 conversion, which `half * bfloat16`
 * also implies, on x86-64. */
#pragma tile kernel
void half_to_bf16_scaled(int rows, int cols, const half x[rows][cols], const bfloat16 scale[cols],
                         bfloat16 y[rows][cols])
{
#pragma tile parallel vector(8)
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            y[r][c] = (bfloat16)((float)x[r][c] * (float)scale[c]);
}

/* A 3-D collapsed nest over C99 arrays: per-channel affine transform of a
 * [batch][channel][width] tensor. */
#pragma tile kernel
void channel_affine(int nb, int nc, int nw, const float x[nb][nc][nw], const float gamma[nc],
                    const float beta[nc], float y[nb][nc][nw])
{
#pragma tile parallel
    for (int b = 0; b < nb; b++)
        for (int c = 0; c < nc; c++)
            for (int w = 0; w < nw; w++)
                y[b][c][w] = x[b][c][w] * gamma[c] + beta[c];
}

/* A non-zero lower bound, step 2 and a `<=` condition: differences of
 * neighbouring pairs, x has 2n elements, d has n. */
#pragma tile kernel
void pair_diff(int n, const float *x, float *d)
{
#pragma tile parallel
    for (int i = 1; i <= 2 * n - 1; i += 2)
        d[i / 2] = x[i] - x[i - 1];
}

/* A bound computed from a scalar parameter: fold the second half of x onto
 * the first (y has n / 2 elements; for odd n the middle element is unused). */
#pragma tile kernel
void fold_half(int n, const float *x, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n / 2; i++)
        y[i] = x[i] + x[n - 1 - i];
}

/* A call to a static helper: a sigmoid-gated linear unit. */
#pragma tile kernel
void sigmoid_gate(int n, const float *x, const float *gate, float *y)
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++)
        y[i] = x[i] * sigmoid(gate[i]);
}

/* An enum constant and a #define macro in the body: clip, then leaky ReLU. */
#pragma tile kernel
void clip_leaky(int n, const float *x, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++) {
        float v = fminf(fmaxf(4.0f * x[i], -CLIP_LIMIT), CLIP_LIMIT);
        y[i] = v >= 0.0f ? v : LEAKY_SLOPE * v;
    }
}

/* Two parallel loops in one kernel; the second reads what the first wrote,
 * including neighbours written by other threads: exp, then a 3-point blur. */
#pragma tile kernel
void exp_blur(int n, const float *x, float *t, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        t[i] = expf(x[i]);
#pragma tile parallel
    for (int i = 0; i < n; i++) {
        float left = t[i > 0 ? i - 1 : i];
        float right = t[i < n - 1 ? i + 1 : i];
        y[i] = (left + t[i] + right) * (1.0f / 3.0f);
    }
}

/* A per-thread array (`#pragma tile local`) and a constant table, read both
 * directly and through a helper (which becomes __host__ __device__): a
 * 4-tap FIR filter over a clamped window. */
static const float fir_taps[4] = {0.125f, 0.375f, 0.375f, 0.125f};

static float tap(int k) { return fir_taps[k & 3]; }

#pragma tile kernel threads(128)
void fir4(int n, const float *x, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++) {
#pragma tile local
        float window[4];
        for (int k = 0; k < 4; k++) {
            int j = i + k - 1;
            window[k] = x[j < 0 ? 0 : j >= n ? n - 1 : j];
        }
        float acc = 0.0f;
        for (int k = 0; k < 4; k++)
            acc += tap(k) * window[k] + 0.0f * fir_taps[k];
        y[i] = acc;
    }
}

/* l1_test.c — each kernel of l1_kernels.c against its CPU reference, on
 * several shapes: tiny, odd, and larger than one wave, including sizes that
 * are no multiple of the vector width (4 or 8) or the block size.
 *
 * Tolerances: fp32 outputs 1e-5 (the device math library's expf, tanhf, erff
 * differ from glibc's by a few ulp, and nvcc contracts a * b + c into an
 * fma); half and bfloat16 outputs 1e-2 (a float differing in its last bit can
 * round to the neighbouring half / bfloat16; one ulp is ~1e-3 / ~8e-3).
 *
 * Prints one line per case and "N passed, N failed"; exits 0 when all
 * passed, 1 otherwise, 77 (SKIPPED) without a CUDA device. */
#include "gpu_check.h"

#include "l1_kernels.tile.h"

#define TOL_F32 1e-5
#define TOL_LOW 1e-2

/* The CPU references, compiled from l1_kernels.c by the C compiler. */
void leaky_relu6(int n, float scale, const float *x, float *y);
void math_mix(int n, const float *x, float *y);
void row_sum(int rows, int cols, const float x[rows][cols], float out[rows]);
void fake_quant(int n, float scale, const float *x, float *y);
void half_axpy(int n, float alpha, const half *x, const half *y, half *out);
void half_to_bf16_scaled(int rows, int cols, const half x[rows][cols], const bfloat16 scale[cols],
                         bfloat16 y[rows][cols]);
void channel_affine(int nb, int nc, int nw, const float x[nb][nc][nw], const float gamma[nc],
                    const float beta[nc], float y[nb][nc][nw]);
void pair_diff(int n, const float *x, float *d);
void fold_half(int n, const float *x, float *y);
void sigmoid_gate(int n, const float *x, const float *gate, float *y);
void clip_leaky(int n, const float *x, float *y);
void exp_blur(int n, const float *x, float *t, float *y);
void fir4(int n, const float *x, float *y);

/* 1-D lengths: 1, odd and prime-ish sizes, one just past 2^20. */
static const int lengths[] = {1, 7, 257, 1003, 65539, (1 << 20) + 5};
#define NLENGTHS (int)(sizeof lengths / sizeof *lengths)

static const int shapes2[][2] = {{1, 1}, {3, 7}, {17, 129}, {333, 1001}, {4099, 33}};
#define NSHAPES2 (int)(sizeof shapes2 / sizeof *shapes2)

static const int shapes3[][3] = {{1, 1, 1}, {2, 3, 5}, {7, 13, 129}, {16, 64, 257}};
#define NSHAPES3 (int)(sizeof shapes3 / sizeof *shapes3)

static void test_leaky_relu6(int n)
{
    gc_case c;
    gc_begin(&c);
    const float scale = 8.0f; /* inputs reach past 6 and below 0 */
    gc_buf *x = gc_in(&c, GC_F32, n, 0), *y = gc_out(&c, GC_F32, n, 0, TOL_F32);
    leaky_relu6(n, scale, x->host, y->host);
    gc_finish(&c, leaky_relu6_gpu(n, scale, x->dev, y->dev), "leaky_relu6 n=%d", n);
}

static void test_math_mix(int n)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, n, 0), *y = gc_out(&c, GC_F32, n, 0, TOL_F32);
    math_mix(n, x->host, y->host);
    gc_finish(&c, math_mix_gpu(n, x->dev, y->dev), "math_mix n=%d", n);
}

static void test_row_sum(int rows, int cols)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, (size_t)rows * cols, 0);
    gc_buf *out = gc_out(&c, GC_F32, rows, 0, TOL_F32);
    row_sum(rows, cols, x->host, out->host);
    gc_finish(&c, row_sum_gpu(rows, cols, x->dev, out->dev), "row_sum %dx%d", rows, cols);
}

static void test_fake_quant(int n)
{
    gc_case c;
    gc_begin(&c);
    const float scale = 100.0f;
    gc_buf *x = gc_in(&c, GC_F32, n, 0), *y = gc_out(&c, GC_F32, n, 0, TOL_F32);
    fake_quant(n, scale, x->host, y->host);
    gc_finish(&c, fake_quant_gpu(n, scale, x->dev, y->dev), "fake_quant n=%d", n);
}

static void test_half_axpy(int n)
{
    gc_case c;
    gc_begin(&c);
    const float alpha = 0.75f;
    gc_buf *x = gc_in(&c, GC_F16, n, 0), *y = gc_in(&c, GC_F16, n, 0);
    gc_buf *out = gc_out(&c, GC_F16, n, 0, TOL_LOW);
    half_axpy(n, alpha, x->host, y->host, out->host);
    gc_finish(&c, half_axpy_gpu(n, alpha, x->dev, y->dev, out->dev), "half_axpy n=%d", n);
}

static void test_half_to_bf16_scaled(int rows, int cols)
{
    gc_case c;
    gc_begin(&c);
    size_t count = (size_t)rows * cols;
    gc_buf *x = gc_in(&c, GC_F16, count, 0), *scale = gc_in(&c, GC_BF16, cols, 0);
    gc_buf *y = gc_out(&c, GC_BF16, count, 0, TOL_LOW);
    half_to_bf16_scaled(rows, cols, x->host, scale->host, y->host);
    gc_finish(&c, half_to_bf16_scaled_gpu(rows, cols, x->dev, scale->dev, y->dev),
              "half_to_bf16_scaled %dx%d", rows, cols);
}

static void test_channel_affine(int nb, int nc, int nw)
{
    gc_case c;
    gc_begin(&c);
    size_t count = (size_t)nb * nc * nw;
    gc_buf *x = gc_in(&c, GC_F32, count, 0);
    gc_buf *gamma = gc_in(&c, GC_F32, nc, 0), *beta = gc_in(&c, GC_F32, nc, 0);
    gc_buf *y = gc_out(&c, GC_F32, count, 0, TOL_F32);
    channel_affine(nb, nc, nw, x->host, gamma->host, beta->host, y->host);
    gc_finish(&c, channel_affine_gpu(nb, nc, nw, x->dev, gamma->dev, beta->dev, y->dev),
              "channel_affine %dx%dx%d", nb, nc, nw);
}

static void test_pair_diff(int n)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, 2 * (size_t)n, 0), *d = gc_out(&c, GC_F32, n, 0, TOL_F32);
    pair_diff(n, x->host, d->host);
    gc_finish(&c, pair_diff_gpu(n, x->dev, d->dev), "pair_diff n=%d", n);
}

static void test_fold_half(int n)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, n, 0), *y = gc_out(&c, GC_F32, n / 2, 0, TOL_F32);
    fold_half(n, x->host, y->host);
    gc_finish(&c, fold_half_gpu(n, x->dev, y->dev), "fold_half n=%d", n);
}

static void test_sigmoid_gate(int n)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, n, 0), *g = gc_in(&c, GC_F32, n, 0);
    gc_buf *y = gc_out(&c, GC_F32, n, 0, TOL_F32);
    sigmoid_gate(n, x->host, g->host, y->host);
    gc_finish(&c, sigmoid_gate_gpu(n, x->dev, g->dev, y->dev), "sigmoid_gate n=%d", n);
}

static void test_clip_leaky(int n)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, n, 0), *y = gc_out(&c, GC_F32, n, 0, TOL_F32);
    clip_leaky(n, x->host, y->host);
    gc_finish(&c, clip_leaky_gpu(n, x->dev, y->dev), "clip_leaky n=%d", n);
}

static void test_exp_blur(int n)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, n, 0);
    gc_buf *t = gc_out(&c, GC_F32, n, 0, TOL_F32), *y = gc_out(&c, GC_F32, n, 0, TOL_F32);
    exp_blur(n, x->host, t->host, y->host);
    gc_finish(&c, exp_blur_gpu(n, x->dev, t->dev, y->dev), "exp_blur n=%d", n);
}

static void test_fir4(int n)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, n, 0), *y = gc_out(&c, GC_F32, n, 0, TOL_F32);
    fir4(n, x->host, y->host);
    gc_finish(&c, fir4_gpu(n, x->dev, y->dev), "fir4 n=%d", n);
}

int main(void)
{
    gc_require_gpu();

    for (int i = 0; i < NLENGTHS; i++) {
        int n = lengths[i];
        test_leaky_relu6(n);
        test_math_mix(n);
        test_fake_quant(n);
        test_half_axpy(n);
        test_pair_diff(n);
        test_fold_half(n);
        test_sigmoid_gate(n);
        test_clip_leaky(n);
        test_exp_blur(n);
        test_fir4(n);
    }
    test_fold_half(2); /* odd and even n, and n / 2 == 1 */
    for (int i = 0; i < NSHAPES2; i++) {
        test_row_sum(shapes2[i][0], shapes2[i][1]);
        test_half_to_bf16_scaled(shapes2[i][0], shapes2[i][1]);
    }
    for (int i = 0; i < NSHAPES3; i++)
        test_channel_affine(shapes3[i][0], shapes3[i][1], shapes3[i][2]);

    return gc_summary();
}

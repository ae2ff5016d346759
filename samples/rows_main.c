/* rows_main.c — runs the row samples: softmax.c (fp32 and fp16), layernorm.c
 * and normalize.c, each as its CPU reference (the plain C functions) and,
 * when a CUDA device is present, through the launchers tilepp generated, and
 * compares the two on random inputs whose rows are no multiple of the
 * vector widths or the block size.
 *
 * Tolerances (pragmas/README.md, "Floating-point order"): the GPU sums a row
 * in another order than the CPU, so float results differ by rounding, far
 * below 1e-5 relative here; half outputs by up to one half ulp (1e-3), after
 * float math whose last bits may differ (the device's expf): 1e-2.
 *
 * Exit status: 0 when every GPU result matches (or no GPU is present and
 * only the CPU part ran), 1 on a mismatch or a CUDA error. */
#include <stdio.h>

#include <tilepp/check.h>

#include "layernorm.tile.h"
#include "normalize.tile.h"
#include "softmax.tile.h"

void softmax_f32(int rows, int cols, int valid, const float x[rows][cols], float y[rows][cols]);
void softmax_f16(int rows, int cols, int valid, const half x[rows][cols], half y[rows][cols]);
void layernorm(int rows, int cols, const float x[rows][cols], const float weight[cols], const float bias[cols],
               float y[rows][cols], float mean[rows], float rstd[rows]);
void normalize(int n, const float *x, float *y);

enum { ROWS = 777, COLS = 3003, VALID = 2990, N = 100003 };

/* A device copy of n bytes of host data (NULL: poisoned, for an output). */
static void *dev(const void *host, size_t bytes)
{
    if (host)
        return tile_check_to_device(host, bytes);
    void *p = NULL;
    TILE_CHECK_CUDA(cudaMalloc(&p, bytes));
    TILE_CHECK_CUDA(tile_check_poison(p, bytes)); /* an element not written stays NaN */
    return p;
}

static void *back(void *d, size_t bytes)
{
    void *h = tile_check_xmalloc(bytes);
    TILE_CHECK_CUDA(cudaDeviceSynchronize());
    TILE_CHECK_CUDA(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
    TILE_CHECK_CUDA(cudaFree(d));
    return h;
}

static int check_f32(const char *what, const float *gpu, const float *cpu, size_t n, double tol)
{
    size_t first, unwritten = tile_check_count_nan(TILE_CHECK_F32, gpu, n, &first);
    double err = tile_check_rel_err(TILE_CHECK_F32, gpu, TILE_CHECK_F32, cpu, n);
    int ok = unwritten == 0 && err < tol;
    printf("GPU: %-22s %s  relative error %.3g (tolerance %.0e)%s\n", what, ok ? "PASS" : "FAIL", err, tol,
           unwritten ? ", elements not written" : "");
    free((void *)gpu);
    return ok;
}

int main(void)
{
    const size_t count = (size_t)ROWS * COLS, fbytes = count * sizeof(float), hbytes = count * sizeof(half);
    float *x = tile_check_xmalloc(fbytes), *y = tile_check_xmalloc(fbytes), *ln = tile_check_xmalloc(fbytes);
    float *wb = tile_check_xmalloc(2 * COLS * sizeof(float)), *stats = tile_check_xmalloc(2 * ROWS * sizeof(float));
    half *xh = tile_check_xmalloc(hbytes), *yh = tile_check_xmalloc(hbytes);
    float *v = tile_check_xmalloc(N * sizeof(float)), *vn = tile_check_xmalloc(N * sizeof(float));
    tile_check_rng rng = tile_check_rng_seed(7);
    tile_check_fill(TILE_CHECK_F32, x, count, &rng);
    tile_check_fill(TILE_CHECK_F16, xh, count, &rng);
    tile_check_fill(TILE_CHECK_F32, wb, 2 * COLS, &rng);
    tile_check_fill(TILE_CHECK_F32, v, N, &rng);

    printf("softmax over the first %d of %d columns of %d rows (fp32 and fp16), layernorm of %d x %d,\n"
           "normalize a vector of %d\n",
           VALID, COLS, ROWS, ROWS, COLS, N);
    softmax_f32(ROWS, COLS, VALID, (const float(*)[COLS])x, (float(*)[COLS])y);
    softmax_f16(ROWS, COLS, VALID, (const half(*)[COLS])xh, (half(*)[COLS])yh);
    layernorm(ROWS, COLS, (const float(*)[COLS])x, wb, wb + COLS, (float(*)[COLS])ln, stats, stats + ROWS);
    normalize(N, v, vn);
    double row0 = 0.0;
    for (int c = 0; c < COLS; c++)
        row0 += y[c];
    printf("CPU: softmax row 0 sums to %.6f; layernorm row 0: mean %.5f, rstd %.5f; normalize y[0] = %.6f\n", row0,
           (double)stats[0], (double)stats[ROWS], (double)vn[0]);

    char reason[256];
    if (!tile_check_gpu_available(reason, sizeof reason)) {
        printf("GPU: skipped (no CUDA device)\n     (%s)\n", reason);
        return 0;
    }
    tile_check_print_device(stdout);
    int ok = 1;

    float *dx = dev(x, fbytes), *dy = dev(NULL, fbytes);
    TILE_CHECK_CUDA(softmax_f32_gpu(ROWS, COLS, VALID, dx, dy));
    ok &= check_f32("softmax fp32", back(dy, fbytes), y, count, 1e-5);

    half *dxh = dev(xh, hbytes), *dyh = dev(NULL, hbytes);
    TILE_CHECK_CUDA(softmax_f16_gpu(ROWS, COLS, VALID, dxh, dyh));
    half *outh = back(dyh, hbytes);
    size_t first, unwritten = tile_check_count_nan(TILE_CHECK_F16, outh, count, &first);
    double err = tile_check_rel_err(TILE_CHECK_F16, outh, TILE_CHECK_F16, yh, count);
    int ok16 = unwritten == 0 && err < 1e-2;
    printf("GPU: %-22s %s  relative error %.3g (tolerance 1e-02)%s\n", "softmax fp16", ok16 ? "PASS" : "FAIL", err,
           unwritten ? ", elements not written" : "");
    ok &= ok16;
    free(outh);

    float *dwb = dev(wb, 2 * COLS * sizeof(float)), *dln = dev(NULL, fbytes);
    float *dstats = dev(NULL, 2 * ROWS * sizeof(float));
    TILE_CHECK_CUDA(layernorm_gpu(ROWS, COLS, dx, dwb, dwb + COLS, dln, dstats, dstats + ROWS));
    ok &= check_f32("layernorm y", back(dln, fbytes), ln, count, 1e-5);
    ok &= check_f32("layernorm mean, rstd", back(dstats, 2 * ROWS * sizeof(float)), stats, 2 * ROWS, 1e-5);

    float *dv = dev(v, N * sizeof(float)), *dvn = dev(NULL, N * sizeof(float));
    TILE_CHECK_CUDA(normalize_gpu(N, dv, dvn));
    ok &= check_f32("normalize", back(dvn, N * sizeof(float)), vn, N, 1e-5);

    TILE_CHECK_CUDA(cudaFree(dx));
    TILE_CHECK_CUDA(cudaFree(dxh));
    TILE_CHECK_CUDA(cudaFree(dwb));
    TILE_CHECK_CUDA(cudaFree(dv));
    free(x), free(y), free(ln), free(wb), free(stats), free(xh), free(yh), free(v), free(vn);
    return ok ? 0 : 1;
}

/* bench_rows.c — row-wise kernels written as grids with parallel loops
 * (samples/softmax.c, samples/layernorm.c) against the device's copy
 * bandwidth, side by side in one process, in turns (bench_pair):
 *
 *   softmax fp32 and fp16 at 4096 x 4096, 16384 x 8192 and 65536 x 1024;
 *   layernorm fp32 at 8192 x 768 and 16384 x 4096.
 *
 * Bytes: the input read once and the output written once (layernorm's
 * weight, bias, mean and rstd are left out: under 0.3%). The copy moves the
 * same bytes, input onto output, with cudaMemcpyAsync. Each kernel is
 * checked once against its CPU reference before it is timed. Prints a
 * markdown table (bench/RESULTS.md); with --csv FILE also one CSV record per
 * row (bench/plot.py). Without a CUDA device prints "SKIPPED: ..." and
 * exits 77. */
#include <stdio.h>
#include <stdlib.h>

#include <tilepp/bench.h>

#include "layernorm.tile.h"
#include "softmax.tile.h"

void softmax_f32(int rows, int cols, int valid, const float x[rows][cols], float y[rows][cols]);
void softmax_f16(int rows, int cols, int valid, const half x[rows][cols], half y[rows][cols]);
void softmax_tile_f16(int rows, int cols, int valid, const half x[rows][cols], half y[rows][cols]);
void layernorm(int rows, int cols, const float x[rows][cols], const float weight[cols], const float bias[cols],
               float y[rows][cols], float mean[rows], float rstd[rows]);

static FILE *csv; /* --csv FILE, or NULL */

typedef enum { SOFTMAX_F32, SOFTMAX_F16, LAYERNORM, SOFTMAX_TILE_F16 } kernel_kind;
static const char *kernel_names[] = {"softmax f32", "softmax f16", "layernorm f32", "softmax tile"};

/* One buffer set: x | y | (layernorm) weight | bias | mean | rstd. */
typedef struct {
    kernel_kind kind;
    int rows, cols, nsets;
    size_t elem, xbytes, set_bytes;
    char **base;
} rows_ctx;

static float *extra(const rows_ctx *r, int set, int which) /* weight, bias, mean, rstd */
{
    float *p = (float *)(r->base[set] + 2 * r->xbytes);
    return which < 2 ? p + (size_t)which * r->cols : p + 2 * (size_t)r->cols + (size_t)(which - 2) * r->rows;
}

static cudaError_t run_kernel(void *ctx, int set)
{
    const rows_ctx *r = ctx;
    void *x = r->base[set], *y = r->base[set] + r->xbytes;
    switch (r->kind) {
    case SOFTMAX_F32:
        return softmax_f32_gpu(r->rows, r->cols, r->cols, x, y);
    case SOFTMAX_F16:
        return softmax_f16_gpu(r->rows, r->cols, r->cols, x, y);
    case SOFTMAX_TILE_F16:
        return softmax_tile_f16_gpu(r->rows, r->cols, r->cols, x, y);
    default:
        return layernorm_gpu(r->rows, r->cols, x, extra(r, set, 0), extra(r, set, 1), y, extra(r, set, 2),
                             extra(r, set, 3));
    }
}

static cudaError_t run_copy(void *ctx, int set)
{
    const rows_ctx *r = ctx;
    return cudaMemcpyAsync(r->base[set] + r->xbytes, r->base[set], r->xbytes, cudaMemcpyDeviceToDevice, 0);
}

/* Runs the CPU reference on set 0's inputs and the kernel once; the
 * relative error of y. */
static double check_once(rows_ctx *r)
{
    size_t count = (size_t)r->rows * r->cols;
    char *x = tile_check_xmalloc(r->xbytes), *ref = tile_check_xmalloc(r->xbytes), *out = tile_check_xmalloc(r->xbytes);
    float *wb = tile_check_xmalloc(2 * (size_t)r->cols * sizeof(float));
    float *stats = tile_check_xmalloc(2 * (size_t)r->rows * sizeof(float));
    tile_check_rng rng = tile_check_rng_seed((uint64_t)r->rows * 31 + (uint64_t)r->cols);
    if (r->kind == SOFTMAX_F16 || r->kind == SOFTMAX_TILE_F16)
        tile_check_fill(TILE_CHECK_F16, (half *)x, count, &rng);
    else
        tile_check_fill(TILE_CHECK_F32, (float *)x, count, &rng);
    tile_check_fill(TILE_CHECK_F32, wb, 2 * (size_t)r->cols, &rng);
    TILE_CHECK_CUDA(cudaMemcpy(r->base[0], x, r->xbytes, cudaMemcpyHostToDevice));
    if (r->kind == LAYERNORM)
        TILE_CHECK_CUDA(cudaMemcpy(extra(r, 0, 0), wb, 2 * (size_t)r->cols * sizeof(float), cudaMemcpyHostToDevice));
    TILE_CHECK_CUDA(tile_check_poison(r->base[0] + r->xbytes, r->xbytes));
    TILE_CHECK_CUDA(run_kernel(r, 0));
    TILE_CHECK_CUDA(cudaDeviceSynchronize());
    TILE_CHECK_CUDA(cudaMemcpy(out, r->base[0] + r->xbytes, r->xbytes, cudaMemcpyDeviceToHost));
    int R = r->rows, C = r->cols;
    double err;
    if (r->kind == SOFTMAX_F32) {
        softmax_f32(R, C, C, (const float(*)[C])x, (float(*)[C])ref);
        err = tile_check_rel_err(TILE_CHECK_F32, out, TILE_CHECK_F32, ref, count);
    } else if (r->kind == SOFTMAX_F16 || r->kind == SOFTMAX_TILE_F16) {
        if (r->kind == SOFTMAX_F16)
            softmax_f16(R, C, C, (const half(*)[C])x, (half(*)[C])ref);
        else
            softmax_tile_f16(R, C, C, (const half(*)[C])x, (half(*)[C])ref);
        err = tile_check_rel_err(TILE_CHECK_F16, out, TILE_CHECK_F16, ref, count);
    } else {
        layernorm(R, C, (const float(*)[C])x, wb, wb + C, (float(*)[C])ref, stats, stats + R);
        err = tile_check_rel_err(TILE_CHECK_F32, out, TILE_CHECK_F32, ref, count);
    }
    free(x), free(ref), free(out), free(wb), free(stats);
    return err;
}

static int bench_rows(kernel_kind kind, int rows, int cols)
{
    rows_ctx r = {.kind = kind, .rows = rows, .cols = cols};
    const int f16 = kind == SOFTMAX_F16 || kind == SOFTMAX_TILE_F16;
    r.elem = f16 ? sizeof(half) : sizeof(float);
    r.xbytes = (size_t)rows * cols * r.elem;
    r.set_bytes = 2 * r.xbytes + (kind == LAYERNORM ? 2 * ((size_t)rows + cols) * sizeof(float) : 0);
    r.nsets = tile_bench_sets(r.set_bytes);
    r.base = tile_check_xmalloc((size_t)r.nsets * sizeof *r.base);
    for (int i = 0; i < r.nsets; i++)
        TILE_CHECK_CUDA(cudaMalloc((void **)&r.base[i], r.set_bytes));
    double err = check_once(&r);
    double tol = f16 ? 1e-2 : 1e-5; /* tests/gpu/reduce_test.c says why */
    int failed = !(err < tol);
    if (failed)
        printf("| %-13s | %5d x %-5d | WRONG RESULT: relative error %.3g; not timed |\n", kernel_names[kind], rows,
               cols, err);
    else {
        for (int i = 1; i < r.nsets; i++)
            TILE_CHECK_CUDA(cudaMemcpy(r.base[i], r.base[0], r.set_bytes, cudaMemcpyDeviceToDevice));
        tile_bench_result k, c;
        tile_bench_pair(run_kernel, &r, run_copy, &r, r.nsets, &k, &c);
        double bytes = 2.0 * (double)r.xbytes, kg = tile_bench_gbps(bytes, k.median_ms),
               cg = tile_bench_gbps(bytes, c.median_ms);
        printf("| %-13s | %5d x %-5d | %11.1f | %9.1f | %5.2f | %7.4f | %4d |\n", kernel_names[kind], rows, cols, kg,
               cg, kg / cg, k.median_ms, r.nsets);
        char shape[32];
        snprintf(shape, sizeof shape, "%d x %d", rows, cols);
        tile_bench_record rec = tile_bench_record_make("rows", kernel_names[kind], shape, f16 ? "f16" : "f32", "GB/s");
        rec.ms = k.median_ms, rec.rate = kg, rec.reference = "copy", rec.ref_ms = c.median_ms, rec.ref_rate = cg;
        rec.rel_err = err;
        tile_bench_csv_write(csv, &rec);
    }
    fflush(stdout);
    for (int i = 0; i < r.nsets; i++)
        TILE_CHECK_CUDA(cudaFree(r.base[i]));
    free(r.base);
    return failed;
}

int main(int argc, char **argv)
{
    const char *title = "tilepp row kernels (grids with parallel loops) vs device copy";
    const char *csv_path = tile_bench_csv_arg(argc, argv, title);
    tile_check_require_gpu();
    tile_bench_print_header(stdout, title);
    csv = tile_bench_csv_open(csv_path, title);
    printf("GB/s = 10^9 bytes read + written per second (input once, output once); median of %d\n"
           "batches, kernel and copy timed in turns; buffer sets rotate over %dx the L2 cache.\n\n",
           TILE_BENCH_REPS, TILE_BENCH_L2_FACTOR);
    printf("| kernel        | rows x cols   | tilepp GB/s | copy GB/s | ratio | ms/call | sets |\n");
    printf("|---------------|---------------|------------:|----------:|------:|--------:|-----:|\n");
    static const int shapes[][2] = {{4096, 4096}, {16384, 8192}, {65536, 1024}};
    int failures = 0;
    for (int kind = SOFTMAX_F32; kind <= SOFTMAX_F16; kind++)
        for (int i = 0; i < 3; i++)
            failures += bench_rows((kernel_kind)kind, shapes[i][0], shapes[i][1]);
    failures += bench_rows(LAYERNORM, 8192, 768);
    failures += bench_rows(LAYERNORM, 16384, 4096);
    /* the tile form of samples/softmax.c, at the shape whose rows fill its tile */
    failures += bench_rows(SOFTMAX_TILE_F16, 65536, 1024);
    failures += tile_bench_csv_close(csv, csv_path) != 0;
    return failures ? 1 : 0;
}

/* bench_vector_add.c — memory-bound tilepp kernels against the device's copy
 * bandwidth, side by side in one process:
 *
 *   vector_add (fp32, 12 bytes per element: two reads, one write) at 2^22
 *   and 2^28 elements, and bias_gelu (half in and out) at 8192 x 8192,
 *   each next to a cudaMemcpyAsync device-to-device copy moving the same
 *   number of bytes (read + written).
 *
 * Each kernel's result is checked once against its CPU reference before it
 * is timed. Prints a markdown table (see bench/RESULTS.md); with --csv FILE
 * also one CSV record per row (bench/plot.py). Without a CUDA device prints
 * "SKIPPED: ..." and exits 77. */
#include <stdio.h>
#include <stdlib.h>

#include <tilepp/bench.h>

#include "bias_gelu.tile.h"
#include "vector_add.tile.h"

/* The CPU references, compiled from samples/vector_add.c and bias_gelu.c. */
void vector_add(int n, const float *a, const float *b, float *c);
void bias_gelu(int rows, int cols, const half x[rows][cols], const float bias[cols],
               half y[rows][cols]);

/* Buffer sets: each one allocation, so a copy can move the same bytes. */
typedef struct {
    int nsets;
    size_t set_bytes;
    char **base;
} sets;

static sets sets_alloc(size_t set_bytes)
{
    sets s = {.nsets = tile_bench_sets(set_bytes), .set_bytes = set_bytes};
    s.base = tile_check_xmalloc((size_t)s.nsets * sizeof *s.base);
    for (int i = 0; i < s.nsets; i++) {
        TILE_CHECK_CUDA(cudaMalloc((void **)&s.base[i], set_bytes));
        TILE_CHECK_CUDA(cudaMemset(s.base[i], 0, set_bytes));
    }
    return s;
}

/* Set 0 holds the data; the others get copies of it. */
static void sets_replicate(const sets *s)
{
    for (int i = 1; i < s->nsets; i++)
        TILE_CHECK_CUDA(cudaMemcpy(s->base[i], s->base[0], s->set_bytes, cudaMemcpyDeviceToDevice));
}

static void sets_free(sets *s)
{
    for (int i = 0; i < s->nsets; i++)
        TILE_CHECK_CUDA(cudaFree(s->base[i]));
    free(s->base);
}

/* The copy comparison: the first half of a set onto its second half. */
static cudaError_t run_copy(void *ctx, int set)
{
    const sets *s = ctx;
    size_t half_bytes = s->set_bytes / 2;
    return cudaMemcpyAsync(s->base[set] + half_bytes, s->base[set], half_bytes,
                           cudaMemcpyDeviceToDevice, 0);
}

static FILE *csv; /* --csv FILE, or NULL */

static void print_row(const char *kernel, const char *dtype, const char *size, double bytes, const tile_bench_result *k,
                      const tile_bench_result *copy, int nsets, double err)
{
    double kg = tile_bench_gbps(bytes, k->median_ms), cg = tile_bench_gbps(bytes, copy->median_ms);
    printf("| %-10s | %-11s | %11.1f | %9.1f | %5.2f | %7.3f | %4d |\n", kernel, size, kg, cg,
           kg / cg, k->median_ms, nsets);
    fflush(stdout);
    tile_bench_record r = tile_bench_record_make("vector_add", kernel, size, dtype, "GB/s");
    r.ms = k->median_ms, r.rate = kg, r.reference = "copy", r.ref_ms = copy->median_ms, r.ref_rate = cg;
    r.rel_err = err;
    tile_bench_csv_write(csv, &r);
}

/* ---- vector_add: a | b | c in one set ---------------------------------- */

typedef struct {
    sets s;
    int n;
} vadd_ctx;

static cudaError_t run_vector_add(void *ctx, int set)
{
    const vadd_ctx *v = ctx;
    float *a = (float *)v->s.base[set];
    return vector_add_gpu(v->n, a, a + v->n, a + 2 * (size_t)v->n);
}

static int bench_vector_add(int log2n)
{
    vadd_ctx v = {.n = 1 << log2n};
    size_t n = (size_t)v.n, bytes = n * sizeof(float);
    v.s = sets_alloc(3 * bytes);

    /* Data in set 0; check the kernel once against the CPU reference. */
    float *a = tile_check_xmalloc(2 * bytes), *ref = tile_check_xmalloc(bytes), *out = tile_check_xmalloc(bytes);
    tile_check_rng rng = tile_check_rng_seed((uint64_t)log2n);
    tile_check_fill(TILE_CHECK_F32, a, 2 * n, &rng);
    vector_add(v.n, a, a + n, ref);
    float *dev = (float *)v.s.base[0];
    TILE_CHECK_CUDA(cudaMemcpy(dev, a, 2 * bytes, cudaMemcpyHostToDevice));
    TILE_CHECK_CUDA(tile_check_poison(dev + 2 * n, bytes));
    TILE_CHECK_CUDA(run_vector_add(&v, 0));
    TILE_CHECK_CUDA(cudaDeviceSynchronize());
    TILE_CHECK_CUDA(cudaMemcpy(out, dev + 2 * n, bytes, cudaMemcpyDeviceToHost));
    double err = tile_check_rel_err(TILE_CHECK_F32, out, TILE_CHECK_F32, ref, n);
    free(a), free(ref), free(out);
    if (!(err < 1e-6)) {
        printf("vector_add 2^%d: WRONG RESULT, relative error %.3g; not timed\n", log2n, err);
        sets_free(&v.s);
        return 1;
    }
    sets_replicate(&v.s);

    tile_bench_result k = tile_bench_time(run_vector_add, &v, v.s.nsets);
    tile_bench_result c = tile_bench_time(run_copy, &v.s, v.s.nsets);
    char size[32];
    snprintf(size, sizeof size, "2^%d", log2n);
    print_row("vector_add", "f32", size, 3.0 * (double)bytes, &k, &c, v.s.nsets, err);
    sets_free(&v.s);
    return 0;
}

/* ---- bias_gelu: x | y | bias in one set --------------------------------- */

typedef struct {
    sets s;
    int rows, cols;
} gelu_ctx;

static cudaError_t run_bias_gelu(void *ctx, int set)
{
    const gelu_ctx *g = ctx;
    size_t count = (size_t)g->rows * (size_t)g->cols;
    half *x = (half *)g->s.base[set], *y = x + count;
    const float *bias = (const float *)(y + count);
    return bias_gelu_gpu(g->rows, g->cols, x, bias, y);
}

/* The copy for bias_gelu moves x's bytes onto y: as many as the kernel
 * reads and writes, apart from the bias row. */
static cudaError_t run_gelu_copy(void *ctx, int set)
{
    const gelu_ctx *g = ctx;
    size_t bytes = (size_t)g->rows * (size_t)g->cols * sizeof(half);
    return cudaMemcpyAsync(g->s.base[set] + bytes, g->s.base[set], bytes,
                           cudaMemcpyDeviceToDevice, 0);
}

static int bench_bias_gelu(int rows, int cols)
{
    gelu_ctx g = {.rows = rows, .cols = cols};
    size_t count = (size_t)rows * (size_t)cols, xbytes = count * sizeof(half);
    size_t bias_bytes = (size_t)cols * sizeof(float);
    g.s = sets_alloc(2 * xbytes + bias_bytes);

    half *x = tile_check_xmalloc(xbytes), *ref = tile_check_xmalloc(xbytes), *out = tile_check_xmalloc(xbytes);
    float *bias = tile_check_xmalloc(bias_bytes);
    tile_check_rng rng = tile_check_rng_seed(99);
    tile_check_fill(TILE_CHECK_F16, x, count, &rng);
    tile_check_fill(TILE_CHECK_F32, bias, (size_t)cols, &rng);
    bias_gelu(rows, cols, (const half(*)[cols])x, bias, (half(*)[cols])ref);
    char *dev = g.s.base[0];
    TILE_CHECK_CUDA(cudaMemcpy(dev, x, xbytes, cudaMemcpyHostToDevice));
    TILE_CHECK_CUDA(cudaMemcpy(dev + 2 * xbytes, bias, bias_bytes, cudaMemcpyHostToDevice));
    TILE_CHECK_CUDA(tile_check_poison(dev + xbytes, xbytes));
    TILE_CHECK_CUDA(run_bias_gelu(&g, 0));
    TILE_CHECK_CUDA(cudaDeviceSynchronize());
    TILE_CHECK_CUDA(cudaMemcpy(out, dev + xbytes, xbytes, cudaMemcpyDeviceToHost));
    double err = tile_check_rel_err(TILE_CHECK_F16, out, TILE_CHECK_F16, ref,
                                    count); /* tolerance: see samples/bias_gelu_main.c */
    free(x), free(ref), free(out), free(bias);
    if (!(err < 1e-2)) {
        printf("bias_gelu %dx%d: WRONG RESULT, relative error %.3g; not timed\n", rows, cols, err);
        sets_free(&g.s);
        return 1;
    }
    sets_replicate(&g.s);

    tile_bench_result k = tile_bench_time(run_bias_gelu, &g, g.s.nsets);
    tile_bench_result c = tile_bench_time(run_gelu_copy, &g, g.s.nsets);
    char size[32];
    snprintf(size, sizeof size, "%dx%d", rows, cols);
    /* Bytes: x read, y written (bias, 32 KB, is left out of both). */
    print_row("bias_gelu", "f16", size, 2.0 * (double)xbytes, &k, &c, g.s.nsets, err);
    sets_free(&g.s);
    return 0;
}

int main(int argc, char **argv)
{
    const char *title = "tilepp memory-bound kernels vs device copy";
    const char *csv_path = tile_bench_csv_arg(argc, argv, title);
    tile_check_require_gpu();
    tile_bench_print_header(stdout, title);
    csv = tile_bench_csv_open(csv_path, title);
    printf("GB/s = 10^9 bytes read + written per second; median of %d batches; the copy moves\n"
           "the same bytes with cudaMemcpyAsync device to device; buffer sets rotate so that\n"
           "they exceed %dx the L2 cache.\n\n",
           TILE_BENCH_REPS, TILE_BENCH_L2_FACTOR);
    printf("| kernel     | size        | tilepp GB/s | copy GB/s | ratio | ms/call | sets |\n");
    printf("|------------|-------------|------------:|----------:|------:|--------:|-----:|\n");

    int failures = 0;
    failures += bench_vector_add(22);
    failures += bench_vector_add(28);
    failures += bench_bias_gelu(8192, 8192);
    failures += tile_bench_csv_close(csv, csv_path) != 0;
    return failures ? 1 : 0;
}

/* sample_check.h — what the fused samples' drivers (gemm_bias_gelu_main.c,
 * gemm_softmax_main.c, flash_attention_main.c) share on top of
 * <tilepp/check.h> and <tilepp/bench.h>: a half output on the device
 * between two poisoned guard zones, its verdict against a reference (the
 * FAIL lines every driver prints the same way), and the rotating buffer sets
 * of the timed part. Header-only (static inline), C11; each driver keeps
 * only what is its own (shapes, tolerances, the PASS line, the table).
 *
 * Why not tile_check_case (<tilepp/check.h>'s own harness): the drivers
 * check one output by both its norm-wise error and each element, name the
 * elements in the output's own indices and print their own report; they
 * use check.h's parts (poison, tile_check_count_nan, tile_check_rel_err,
 * tile_check_allclose, the random inputs) and bench.h's timing instead.
 *
 * Elements are named by a sample_where (a function and its context), so
 * that a matrix says "[r][c]" and an attention output "batch b, head h,
 * ...": the messages stay those of each driver. */
#ifndef TILEPP_SAMPLE_CHECK_H
#define TILEPP_SAMPLE_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tilepp/bench.h>
#include <tilepp/tile.h>

/* Wall-clock seconds, for the CPU runs' times. */
static inline double sample_seconds(void)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The root mean square of n halves, in double (0 when n is 0). */
static inline double sample_rms(const half *x, size_t n)
{
    double sum2 = 0.0;
    for (size_t i = 0; i < n; i++)
        sum2 += (double)x[i] * (double)x[i];
    return sqrt(sum2 / (double)(n ? n : 1));
}

/* bytes rounded up to a multiple of 256 (the alignment of cudaMalloc), to
 * lay several arrays out in one allocation. */
static inline size_t sample_up256(size_t bytes) { return (bytes + 255) / 256 * 256; }

/* ---- naming an element in the messages -------------------------------------- */

typedef void sample_where_fn(const void *ctx, size_t i, char *buf, size_t len);

typedef struct {
    sample_where_fn *fn;
    const void *ctx;
} sample_where;

static inline void sample_where_rc_(const void *ctx, size_t i, char *buf, size_t len)
{
    const int *cols = ctx;
    snprintf(buf, len, "[%zu][%zu]", i / (size_t)*cols, i % (size_t)*cols);
}

/* A row-major matrix of *cols columns: "[row][col]". */
static inline sample_where sample_where_matrix(const int *cols)
{
    sample_where w = {sample_where_rc_, cols};
    return w;
}

/* ---- outputs on the device: poisoned, between two guard zones ------------ */

enum { SAMPLE_GUARD = 256 }; /* bytes of poison on each side of an output */

/* Poisons an output and its guard zones (0xFF bytes: NaN in half), so that
 * an element the kernel does not write stays NaN and one it writes outside
 * the output shows in a guard. */
static inline void sample_output_poison(void *d, size_t bytes)
{
    TILE_CHECK_CUDA(tile_check_poison((char *)d - SAMPLE_GUARD, bytes + 2 * SAMPLE_GUARD));
}

/* A poisoned output of `bytes` bytes between its guard zones. */
static inline void *sample_output_alloc(size_t bytes)
{
    char *p = NULL;
    TILE_CHECK_CUDA(cudaMalloc((void **)&p, bytes + 2 * SAMPLE_GUARD));
    sample_output_poison(p + SAMPLE_GUARD, bytes);
    return p + SAMPLE_GUARD;
}

static inline void sample_output_free(void *d) { TILE_CHECK_CUDA(cudaFree((char *)d - SAMPLE_GUARD)); }

/* Waits for the device, copies the output back (malloc'ed); *damage: NULL,
 * or what happened to the guard zones. */
static inline void *sample_output_fetch(const void *d, size_t bytes, const char **damage)
{
    unsigned char *all = tile_check_xmalloc(bytes + 2 * SAMPLE_GUARD);
    TILE_CHECK_CUDA(cudaDeviceSynchronize());
    TILE_CHECK_CUDA(cudaMemcpy(all, (const char *)d - SAMPLE_GUARD, bytes + 2 * SAMPLE_GUARD, cudaMemcpyDeviceToHost));
    *damage = !tile_check_is_poisoned(all, SAMPLE_GUARD)                          ? "written before its first element"
              : !tile_check_is_poisoned(all + SAMPLE_GUARD + bytes, SAMPLE_GUARD) ? "written past its last element"
                                                                                  : NULL;
    void *out = tile_check_xmalloc(bytes);
    memcpy(out, all + SAMPLE_GUARD, bytes);
    free(all);
    return out;
}

/* ---- the verdict of an output against a reference ------------------------- */

/* The comparison of n halves out (the GPU's) with ref. */
typedef struct {
    size_t n;
    size_t unwritten, first; /* elements still NaN (the poison), the first of them */
    double err;              /* ||out - ref|| / ||ref|| */
    int close_ok;            /* every element close (or not checked) */
    char why[400];           /* when !close_ok: which are not */
} sample_cmp;

/* Elementwise (rtol > 0): every element within rtol of the reference, or
 * within atol_rms times the reference's rms (for the elements near 0): a
 * single wrong element shows, which the norm-wise relative error of a large
 * output can hide. Returns 1 when all are; otherwise 0, with why in
 * why[0..len). */
static inline int sample_check_elements(const half *out, const half *ref, size_t n, double rtol, double atol_rms,
                                        sample_where where, char *why, size_t len)
{
    double atol = atol_rms * sample_rms(ref, n);
    tile_check_close close;
    if (tile_check_allclose(TILE_CHECK_F16, out, TILE_CHECK_F16, ref, n, rtol, atol, 0, &close))
        return 1;
    char at[128];
    where.fn(where.ctx, close.first, at, sizeof at);
    snprintf(why, len,
             "%zu of %zu elements differ by more than %.1e x |reference| + %.1e, the first at\n"
             "            %s: GPU %.6g, reference %.6g (largest difference %.3g)",
             close.mismatches, n, rtol, atol, at, close.first_out, close.first_ref, close.max_abs_err);
    return 0;
}

/* Compares out with ref: the elements not written, the norm-wise relative
 * error and, with rtol > 0 and every element written, each element
 * (sample_check_elements). */
static inline sample_cmp sample_compare(const half *out, const half *ref, size_t n, double rtol, double atol_rms,
                                        sample_where where)
{
    sample_cmp c;
    c.n = n;
    c.unwritten = tile_check_count_nan(TILE_CHECK_F16, out, n, &c.first);
    c.err = tile_check_rel_err(TILE_CHECK_F16, out, TILE_CHECK_F16, ref, n);
    c.close_ok =
        c.unwritten || !(rtol > 0.0) || sample_check_elements(out, ref, n, rtol, atol_rms, where, c.why, sizeof c.why);
    return c;
}

/* Only the elements not written, for an output checked otherwise (no
 * reference of the same size): a sample_cmp for sample_print_failures. */
static inline sample_cmp sample_written(const half *out, size_t n)
{
    sample_cmp c;
    c.n = n;
    c.unwritten = tile_check_count_nan(TILE_CHECK_F16, out, n, &c.first);
    c.err = NAN;
    c.close_ok = 1;
    c.why[0] = '\0';
    return c;
}

/* The FAIL lines of a comparison, after its PASS/FAIL line: the guard
 * zones (damage from sample_output_fetch), the elements not written, the
 * elements not close. */
static inline void sample_print_failures(const sample_cmp *c, const char *damage, sample_where where)
{
    if (damage)
        printf("      FAIL: the output was %s (the poisoned %d-byte guard zone changed)\n", damage, SAMPLE_GUARD);
    if (c->unwritten) {
        char at[128];
        where.fn(where.ctx, c->first, at, sizeof at);
        printf("      FAIL: %zu of %zu elements not written (still the NaN poison), the first at %s\n", c->unwritten,
               c->n, at);
    }
    if (!c->close_ok)
        printf("      FAIL: %s\n", c->why);
}

/* The element of out farthest from ref (a NaN first), named. */
static inline void sample_print_worst(const half *out, const half *ref, size_t n, sample_where where)
{
    size_t worst = n;
    double worst_d = -1.0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)out[i] - (double)ref[i]);
        if (isnan(d)) {
            worst = i;
            break;
        }
        if (d > worst_d)
            worst = i, worst_d = d;
    }
    if (worst < n) {
        char at[128];
        where.fn(where.ctx, worst, at, sizeof at);
        printf("      largest difference at %s: GPU %.6g, reference %.6g\n", at, (double)out[worst],
               (double)ref[worst]);
    }
}

/* A reference computed on the device (the unfused kernels) that is itself
 * broken: NaN elements, or (damage) written outside `name`. Says so after
 * the verdict, so that a FAIL is not blamed on tilepp alone. */
static inline void sample_note_broken_reference(const half *ref, size_t n, const char *damage, const char *name)
{
    size_t bad = tile_check_count_nan(TILE_CHECK_F16, ref, n, NULL);
    if (bad || damage)
        printf("      (the reference itself is broken: %zu NaN elements%s%s)\n", bad,
               damage ? ", written outside " : "", damage ? name : "");
}

/* ---- the timed part: buffer sets that rotate (<tilepp/bench.h>) ----------- */

enum { SAMPLE_MAX_PARTS = 8 };

/* nsets copies of one buffer set in device memory: the arrays (parts) a
 * call reads and writes, each at a multiple of 256 bytes in one
 * allocation. Enough sets that together they exceed the L2 cache
 * (tile_bench_sets), so that each call reads its inputs from memory, as in
 * a real program. */
typedef struct {
    int nsets;
    size_t off[SAMPLE_MAX_PARTS]; /* where each part starts in a set */
    size_t set_bytes;
    char **base; /* base[i]: set i */
} sample_sets;

/* Lays out nparts arrays of bytes[i] bytes, in that order; the part
 * `guarded` (the output checked, after all the inputs) between SAMPLE_GUARD
 * bytes on each side. Sets off, set_bytes and nsets; allocates nothing. */
static inline void sample_sets_layout(sample_sets *s, const size_t *bytes, int nparts, int guarded)
{
    size_t at = 0;
    for (int i = 0; i < nparts && i < SAMPLE_MAX_PARTS; i++) {
        at += i == guarded ? SAMPLE_GUARD : 0;
        s->off[i] = at;
        at += sample_up256(bytes[i]) + (i == guarded ? SAMPLE_GUARD : 0);
    }
    s->set_bytes = at;
    s->nsets = tile_bench_sets(at);
    s->base = NULL;
}

/* Allocates the sets, each starting with the same host_bytes from host
 * (the inputs: the same data in every set). */
static inline void sample_sets_upload(sample_sets *s, const void *host, size_t host_bytes)
{
    s->base = tile_check_xmalloc((size_t)s->nsets * sizeof *s->base);
    for (int i = 0; i < s->nsets; i++) {
        TILE_CHECK_CUDA(cudaMalloc((void **)&s->base[i], s->set_bytes));
        TILE_CHECK_CUDA(cudaMemcpy(s->base[i], host, host_bytes, cudaMemcpyHostToDevice));
    }
}

/* Part `which` of set `set`. */
static inline void *sample_sets_part(const sample_sets *s, int set, int which) { return s->base[set] + s->off[which]; }

/* Set 0's part `which`, the guarded output of `bytes` bytes, after
 * fn(ctx, 0): poisoned first, guards too; copied back (malloc'ed) with what
 * happened to the guards in *damage (see sample_output_fetch). */
static inline void *sample_sets_result(const sample_sets *s, int which, size_t bytes, tile_bench_fn fn, void *ctx,
                                       const char **damage)
{
    void *out = sample_sets_part(s, 0, which);
    sample_output_poison(out, bytes);
    TILE_CHECK_CUDA(fn(ctx, 0));
    return sample_output_fetch(out, bytes, damage);
}

static inline void sample_sets_free(sample_sets *s)
{
    for (int i = 0; i < s->nsets; i++)
        TILE_CHECK_CUDA(cudaFree(s->base[i]));
    free(s->base);
    s->base = NULL;
}

/* ---- the timed part: the table ----------------------------------------------- */

/* The title line of a table of sample_print_timed_row rows, the first two
 * columns kernel_w and reference_w wide. */
static inline void sample_print_timed_header(int kernel_w, const char *kernel, int reference_w, const char *reference)
{
    printf("  %-*s %-*s %9s %8s %9s %8s %8s\n", kernel_w, kernel, reference_w, reference, "tilepp ms", "TFLOP/s",
           "ref ms", "TFLOP/s", "ref/tile");
}

/* One row: tilepp's median time (`digits` decimals) and TFLOP/s for `flop`
 * operations a call, the reference's, and the reference's time over
 * tilepp's (above 1: tilepp is faster). */
static inline void sample_print_timed_row(int kernel_w, const char *kernel, int reference_w, const char *reference,
                                          int digits, double flop, const tile_bench_result *k,
                                          const tile_bench_result *ref)
{
    printf("  %-*s %-*s %9.*f %8.1f %9.*f %8.1f %8.2f\n", kernel_w, kernel, reference_w, reference, digits,
           k->median_ms, tile_bench_tflops(flop, k->median_ms), digits, ref->median_ms,
           tile_bench_tflops(flop, ref->median_ms), ref->median_ms / k->median_ms);
}

#endif /* TILEPP_SAMPLE_CHECK_H */

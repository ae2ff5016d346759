/* bench_util.h — the benchmark harness: CUDA-event timing of a callable.
 *
 *   bench_result r = bench_time(fn, ctx, nsets);
 *   bench_pair(fa, ca, fb, cb, nsets, &ra, &rb);   (two callables in turns)
 *
 * fn(ctx, set) enqueues one run (a launch, a copy) on the default stream
 * using buffer set `set` and returns its status. The harness
 *   - warms up (first launches, clocks ramping up),
 *   - times batches of consecutive calls between two CUDA events, each batch
 *     long enough (>= BENCH_MIN_BATCH_MS) that event resolution and launch
 *     gaps do not dominate, cycling through the nsets buffer sets,
 *   - repeats BENCH_REPS times and reports the median time per call.
 * bench_sets() picks nsets so that the sets together are at least
 * BENCH_L2_FACTOR times the L2 cache: a set is touched again only after
 * several L2-sizes of other traffic, so the cache does not flatter the
 * bandwidth. Every CUDA call is checked (SU_CHECK exits on failure). */
#ifndef TILEPP_BENCH_UTIL_H
#define TILEPP_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sample_util.h"

enum { BENCH_WARMUP = 10, BENCH_REPS = 21, BENCH_L2_FACTOR = 4 };
#define BENCH_MIN_BATCH_MS 2.0

/* Exits with SU_EXIT_SKIP (a skipped test) after "SKIPPED: ..." when there
 * is no CUDA device. */
static inline void bench_require_gpu(void)
{
    char reason[256];
    if (!su_gpu_available(reason, sizeof reason)) {
        printf("SKIPPED: no CUDA device (%s)\n", reason);
        exit(SU_EXIT_SKIP);
    }
}

typedef cudaError_t (*bench_fn)(void *ctx, int set);

typedef struct {
    double median_ms; /* per call */
    double min_ms;    /* per call, the fastest batch */
    int batch;        /* calls per timed batch */
    int reps;         /* batches */
} bench_result;

/* How many buffer sets of set_bytes each to rotate through on device 0. */
static inline int bench_sets(size_t set_bytes)
{
    int l2 = 0;
    SU_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    size_t want = (size_t)BENCH_L2_FACTOR * (size_t)l2;
    size_t sets = (want + set_bytes - 1) / set_bytes;
    return sets < 1 ? 1 : (int)sets;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Times `count` calls starting at set *next; returns milliseconds. */
static inline float bench_batch(bench_fn fn, void *ctx, int nsets, int count, int *next, cudaEvent_t start,
                                cudaEvent_t stop)
{
    SU_CHECK(cudaEventRecord(start, 0));
    for (int i = 0; i < count; i++) {
        SU_CHECK(fn(ctx, *next));
        *next = (*next + 1) % nsets;
    }
    SU_CHECK(cudaEventRecord(stop, 0));
    SU_CHECK(cudaEventSynchronize(stop));
    SU_CHECK(cudaGetLastError());
    float ms = 0.0f;
    SU_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
}

/* Warms up, and estimates one call's time to size the batches: calls per
 * batch, whole cycles over the sets so that every set runs equally often. */
static inline int bench_warm_up(bench_fn fn, void *ctx, int nsets, int *next, cudaEvent_t start, cudaEvent_t stop)
{
    bench_batch(fn, ctx, nsets, BENCH_WARMUP, next, start, stop);
    double per_call = bench_batch(fn, ctx, nsets, nsets, next, start, stop) / nsets;
    int batch = nsets;
    while (batch * per_call < BENCH_MIN_BATCH_MS && batch < (1 << 20))
        batch += nsets;
    return batch;
}

static inline bench_result bench_time(bench_fn fn, void *ctx, int nsets)
{
    cudaEvent_t start, stop;
    SU_CHECK(cudaEventCreate(&start));
    SU_CHECK(cudaEventCreate(&stop));
    int next = 0;
    int batch = bench_warm_up(fn, ctx, nsets, &next, start, stop);

    bench_result r = {.batch = batch, .reps = BENCH_REPS};
    double samples[BENCH_REPS];
    for (int i = 0; i < BENCH_REPS; i++)
        samples[i] = bench_batch(fn, ctx, nsets, batch, &next, start, stop) / batch;
    qsort(samples, BENCH_REPS, sizeof *samples, bench_cmp_double);
    r.median_ms = samples[BENCH_REPS / 2];
    r.min_ms = samples[0];

    SU_CHECK(cudaEventDestroy(start));
    SU_CHECK(cudaEventDestroy(stop));
    return r;
}

/* Two callables timed in turns: a batch of a, a batch of b, BENCH_REPS
 * times, so that both see the same clocks (which drift over a run as the
 * chip warms) and neither benefits from running first or second. */
static inline void bench_pair(bench_fn fa, void *ca, bench_fn fb, void *cb, int nsets, bench_result *ra,
                              bench_result *rb)
{
    cudaEvent_t start, stop;
    SU_CHECK(cudaEventCreate(&start));
    SU_CHECK(cudaEventCreate(&stop));
    int next_a = 0, next_b = 0, batch[2];
    bench_fn fn[2] = {fa, fb};
    void *ctx[2] = {ca, cb};
    int *next[2] = {&next_a, &next_b};
    for (int k = 0; k < 2; k++)
        batch[k] = bench_warm_up(fn[k], ctx[k], nsets, next[k], start, stop);
    double samples[2][BENCH_REPS];
    for (int i = 0; i < BENCH_REPS; i++)
        for (int k = 0; k < 2; k++)
            samples[k][i] = bench_batch(fn[k], ctx[k], nsets, batch[k], next[k], start, stop) / batch[k];
    bench_result *out[2] = {ra, rb};
    for (int k = 0; k < 2; k++) {
        qsort(samples[k], BENCH_REPS, sizeof samples[k][0], bench_cmp_double);
        *out[k] = (bench_result){
            .median_ms = samples[k][BENCH_REPS / 2], .min_ms = samples[k][0], .batch = batch[k], .reps = BENCH_REPS};
    }
    SU_CHECK(cudaEventDestroy(start));
    SU_CHECK(cudaEventDestroy(stop));
}

/* GB/s (10^9 bytes per second) for `bytes` moved per call. */
static inline double bench_gbps(double bytes, const bench_result *r) { return bytes / (r->median_ms * 1e-3) / 1e9; }

/* "<device>, sm_XY, <N> SMs, L2 <M> MB, CUDA runtime X.Y, driver X.Y" and
 * the date (UTC). */
static inline void bench_print_header(FILE *out, const char *title)
{
    struct cudaDeviceProp prop;
    int runtime = 0, driver = 0;
    SU_CHECK(cudaGetDeviceProperties(&prop, 0));
    SU_CHECK(cudaRuntimeGetVersion(&runtime));
    SU_CHECK(cudaDriverGetVersion(&driver));
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    fprintf(out, "## %s\n\n", title);
    fprintf(out, "Device: %s (sm_%d%d, %d SMs, L2 %d MB), CUDA runtime %d.%d, driver %d.%d\n", prop.name, prop.major,
            prop.minor, prop.multiProcessorCount, prop.l2CacheSize >> 20, runtime / 1000, runtime % 1000 / 10,
            driver / 1000, driver % 1000 / 10);
    fprintf(out, "Date: %s\n\n", date);
}

#endif /* TILEPP_BENCH_UTIL_H */

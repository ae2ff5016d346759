/* tilepp/bench.h — benchmark helpers: CUDA-event timing of a kernel (or
 * anything enqueued on the default stream), rates, and results in CSV.
 *
 * Header-only (every function is static inline), plain C11 that also
 * compiles as C++ and in CUDA files; needs the CUDA runtime API (link
 * cudart) and the C library (-lm). Includes <tilepp/check.h>.
 *
 *   static cudaError_t run(void *ctx, int set) { ...; return my_kernel_gpu(...set's buffers...); }
 *   int nsets = tile_bench_sets(bytes_of_one_set);    // sets together > 4x the L2 cache
 *   tile_bench_result r = tile_bench_time(run, ctx, nsets);
 *   printf("%.3f ms, %.1f TFLOP/s\n", r.median_ms, tile_bench_tflops(tile_bench_gemm_flops(M, N, K), r.median_ms));
 *
 * fn(ctx, set) enqueues one run using buffer set `set` (0 <= set < nsets)
 * and returns its status. tile_bench_time
 *   - warms up (TILE_BENCH_WARMUP calls: first launches, clocks ramping up),
 *   - times batches of consecutive calls between two CUDA events, each batch
 *     long enough (>= TILE_BENCH_MIN_BATCH_MS) that event resolution and
 *     launch gaps do not dominate, cycling through the buffer sets,
 *   - repeats TILE_BENCH_REPS times and reports the median time per call.
 * Rotating over sets that together exceed TILE_BENCH_L2_FACTOR times the L2
 * cache means that a set is touched again only after several L2-sizes of
 * other traffic, so the cache does not flatter the bandwidth.
 * tile_bench_pair times two callables in turns (a batch of one, a batch of
 * the other), so that both see the same clocks, which drift as the chip
 * warms. tile_bench_time_flushed is for work that cannot rotate buffers:
 * each call is timed alone, after a write over twice the L2 cache (the L2
 * then holds the flush buffer's lines: dirty, so the first misses of the
 * timed call may write some back; rotating sets have no such cost).
 * The constants may be defined before including this header.
 *
 * Results: tile_bench_csv_arg() reads `--csv FILE` (and --help) from the
 * command line, tile_bench_csv_open() starts the file, tile_bench_csv_write()
 * adds one tile_bench_record per measured row: the bench, kernel, shape,
 * dtype, the tilepp time and rate, a reference's name, time and rate, their
 * ratio (reference time / tilepp time: above 1, tilepp is faster) and the
 * checked error. bench/plot.py turns a folder of such files into charts.
 *
 * Every CUDA call is checked; a failure prints file:line and exits 1. */
#ifndef TILEPP_BENCH_H
#define TILEPP_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

#ifndef TILE_BENCH_WARMUP
#define TILE_BENCH_WARMUP 10 /* calls before timing */
#endif
#ifndef TILE_BENCH_REPS
#define TILE_BENCH_REPS 21 /* timed batches (odd: the median is one of them) */
#endif
#ifndef TILE_BENCH_MIN_BATCH_MS
#define TILE_BENCH_MIN_BATCH_MS 2.0 /* the shortest timed batch */
#endif
#ifndef TILE_BENCH_L2_FACTOR
#define TILE_BENCH_L2_FACTOR 4 /* buffer sets together exceed this many L2 caches */
#endif
#define TILE_BENCH_MAX_BATCH (1 << 20)

typedef cudaError_t (*tile_bench_fn)(void *ctx, int set);

typedef struct tile_bench_result {
    double median_ms; /* per call */
    double min_ms;    /* per call, the fastest batch */
    int batch;        /* calls per timed batch */
    int reps;         /* timed batches */
} tile_bench_result;

/* ---- arithmetic (host only) -------------------------------------------------- */

static inline int tile_bench_cmp_double_(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n): sorts v; the mean of the middle two when n is
 * even; NaN when n is 0. */
static inline double tile_bench_median(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, tile_bench_cmp_double_);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* How many buffer sets of set_bytes each together reach
 * TILE_BENCH_L2_FACTOR times an L2 cache of l2_bytes (at least 1). */
static inline int tile_bench_sets_for(size_t set_bytes, size_t l2_bytes)
{
    size_t want = (size_t)TILE_BENCH_L2_FACTOR * l2_bytes;
    if (set_bytes == 0)
        return 1;
    size_t sets = (want + set_bytes - 1) / set_bytes;
    return sets < 1 ? 1 : sets > 1000000 ? 1000000 : (int)sets;
}

/* Calls per timed batch: the fewest whole cycles over nsets sets that last
 * at least TILE_BENCH_MIN_BATCH_MS at per_call_ms a call (every set runs
 * equally often), at most about TILE_BENCH_MAX_BATCH calls. */
static inline int tile_bench_batch_size(double per_call_ms, int nsets)
{
    if (nsets < 1)
        nsets = 1;
    int max_cycles = (TILE_BENCH_MAX_BATCH + nsets - 1) / nsets;
    if (!(per_call_ms > 0.0)) /* 0 or NaN: as long as allowed */
        return max_cycles * nsets;
    double cycle_ms = per_call_ms * nsets, want = ceil(TILE_BENCH_MIN_BATCH_MS / cycle_ms);
    int cycles = want < 1.0 ? 1 : want > (double)max_cycles ? max_cycles : (int)want;
    /* the division may round either way: settle on the fewest cycles that suffice */
    while (cycles > 1 && (cycles - 1) * cycle_ms >= TILE_BENCH_MIN_BATCH_MS)
        cycles--;
    while (cycles < max_cycles && cycles * cycle_ms < TILE_BENCH_MIN_BATCH_MS)
        cycles++;
    return cycles * nsets;
}

/* 10^12 floating-point operations per second for `flops` per call. */
static inline double tile_bench_tflops(double flops, double ms) { return flops / (ms * 1e-3) / 1e12; }

/* 10^9 bytes per second for `bytes` read plus written per call. */
static inline double tile_bench_gbps(double bytes, double ms) { return bytes / (ms * 1e-3) / 1e9; }

/* The operations of an M x N x K matrix product: 2 M N K. */
static inline double tile_bench_gemm_flops(double M, double N, double K) { return 2.0 * M * N * K; }

/* ---- timing ---------------------------------------------------------------- */

/* The L2 cache of the current device, in bytes. */
static inline size_t tile_bench_l2_bytes(void)
{
    int dev = 0, l2 = 0;
    TILE_CHECK_CUDA(cudaGetDevice(&dev));
    TILE_CHECK_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    return (size_t)l2;
}

/* How many buffer sets of set_bytes each to rotate through on the current
 * device (tile_bench_sets_for its L2 cache). */
static inline int tile_bench_sets(size_t set_bytes) { return tile_bench_sets_for(set_bytes, tile_bench_l2_bytes()); }

/* Times `count` calls starting at set *next; returns milliseconds. */
static inline double tile_bench_batch_(tile_bench_fn fn, void *ctx, int nsets, int count, int *next, cudaEvent_t start,
                                       cudaEvent_t stop)
{
    TILE_CHECK_CUDA(cudaEventRecord(start, 0));
    for (int i = 0; i < count; i++) {
        TILE_CHECK_CUDA(fn(ctx, *next));
        *next = (*next + 1) % nsets;
    }
    TILE_CHECK_CUDA(cudaEventRecord(stop, 0));
    TILE_CHECK_CUDA(cudaEventSynchronize(stop));
    TILE_CHECK_CUDA(cudaGetLastError());
    float ms = 0.0f;
    TILE_CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    return ms;
}

/* Warms up and estimates one call's time; returns the batch size. */
static inline int tile_bench_warm_up_(tile_bench_fn fn, void *ctx, int nsets, int *next, cudaEvent_t start,
                                      cudaEvent_t stop)
{
    tile_bench_batch_(fn, ctx, nsets, TILE_BENCH_WARMUP, next, start, stop);
    double per_call = tile_bench_batch_(fn, ctx, nsets, nsets, next, start, stop) / nsets;
    return tile_bench_batch_size(per_call, nsets);
}

static inline tile_bench_result tile_bench_result_of_(double *samples, int reps, int batch)
{
    tile_bench_result r;
    r.median_ms = tile_bench_median(samples, reps); /* sorts */
    r.min_ms = samples[0];
    r.batch = batch;
    r.reps = reps;
    return r;
}

/* The median time per call of fn over nsets rotating buffer sets. */
static inline tile_bench_result tile_bench_time(tile_bench_fn fn, void *ctx, int nsets)
{
    cudaEvent_t start, stop;
    TILE_CHECK_CUDA(cudaEventCreate(&start));
    TILE_CHECK_CUDA(cudaEventCreate(&stop));
    int next = 0;
    int batch = tile_bench_warm_up_(fn, ctx, nsets, &next, start, stop);
    double samples[TILE_BENCH_REPS];
    for (int i = 0; i < TILE_BENCH_REPS; i++)
        samples[i] = tile_bench_batch_(fn, ctx, nsets, batch, &next, start, stop) / batch;
    TILE_CHECK_CUDA(cudaEventDestroy(start));
    TILE_CHECK_CUDA(cudaEventDestroy(stop));
    return tile_bench_result_of_(samples, TILE_BENCH_REPS, batch);
}

/* Two callables timed in turns, TILE_BENCH_REPS batches each. */
static inline void tile_bench_pair(tile_bench_fn fa, void *ca, tile_bench_fn fb, void *cb, int nsets,
                                   tile_bench_result *ra, tile_bench_result *rb)
{
    cudaEvent_t start, stop;
    TILE_CHECK_CUDA(cudaEventCreate(&start));
    TILE_CHECK_CUDA(cudaEventCreate(&stop));
    int next[2] = {0, 0}, batch[2];
    tile_bench_fn fn[2] = {fa, fb};
    void *ctx[2] = {ca, cb};
    for (int k = 0; k < 2; k++)
        batch[k] = tile_bench_warm_up_(fn[k], ctx[k], nsets, &next[k], start, stop);
    double samples[2][TILE_BENCH_REPS];
    for (int i = 0; i < TILE_BENCH_REPS; i++)
        for (int k = 0; k < 2; k++)
            samples[k][i] = tile_bench_batch_(fn[k], ctx[k], nsets, batch[k], &next[k], start, stop) / batch[k];
    *ra = tile_bench_result_of_(samples[0], TILE_BENCH_REPS, batch[0]);
    *rb = tile_bench_result_of_(samples[1], TILE_BENCH_REPS, batch[1]);
    TILE_CHECK_CUDA(cudaEventDestroy(start));
    TILE_CHECK_CUDA(cudaEventDestroy(stop));
}

/* Each call timed alone, after a cudaMemsetAsync over twice the L2 cache
 * (at least 64 MB): the median of TILE_BENCH_REPS such calls, after the
 * warm-up. For work without buffer sets to rotate (nsets may be 1); short
 * calls read high, since the events' resolution is about a microsecond. */
static inline tile_bench_result tile_bench_time_flushed(tile_bench_fn fn, void *ctx, int nsets)
{
    size_t bytes = 2 * tile_bench_l2_bytes();
    if (bytes < ((size_t)64 << 20))
        bytes = (size_t)64 << 20;
    void *scratch = NULL;
    cudaEvent_t start, stop;
    TILE_CHECK_CUDA(cudaMalloc(&scratch, bytes));
    TILE_CHECK_CUDA(cudaEventCreate(&start));
    TILE_CHECK_CUDA(cudaEventCreate(&stop));
    int next = 0;
    tile_bench_batch_(fn, ctx, nsets, TILE_BENCH_WARMUP, &next, start, stop);
    double samples[TILE_BENCH_REPS];
    for (int i = 0; i < TILE_BENCH_REPS; i++) {
        TILE_CHECK_CUDA(cudaMemsetAsync(scratch, i & 0xFF, bytes, 0));
        samples[i] = tile_bench_batch_(fn, ctx, nsets, 1, &next, start, stop);
    }
    TILE_CHECK_CUDA(cudaEventDestroy(start));
    TILE_CHECK_CUDA(cudaEventDestroy(stop));
    TILE_CHECK_CUDA(cudaFree(scratch));
    return tile_bench_result_of_(samples, TILE_BENCH_REPS, 1);
}

/* ---- the board under sustained load ---------------------------------------- */

/* The SM clock, the board's power draw and why the clocks are held down,
 * read through NVML while a kernel runs for seconds on end. A chip that
 * meets its power limit lowers its clock, so two kernels timed in turns can
 * differ by the energy they spend, not only by the cycles they take: the
 * clock, and the work done per cycle, tell the two apart.
 *
 * NVML is opened at run time (libnvidia-ml.so.1 comes with the driver; the
 * toolkit need not have nvml.h), so a program that never calls
 * tile_bench_board_open does not depend on it, and one that does still
 * runs where it is missing: the board is then not `ok` and every reading
 * is 0. Linux only. */
#if defined(__linux__)
#include <dlfcn.h>
#endif

enum {
    TILE_BENCH_NVML_CLOCK_SM = 1,        /* nvmlClockType_t NVML_CLOCK_SM */
    TILE_BENCH_NVML_TEMPERATURE_GPU = 0, /* nvmlTemperatureSensors_t NVML_TEMPERATURE_GPU */
};

/* Bits of the clocks' reasons (nvmlClocksEventReasons). */
#define TILE_BENCH_REASON_SW_POWER_CAP 0x4ull
#define TILE_BENCH_REASON_HW_SLOWDOWN 0x8ull
#define TILE_BENCH_REASON_SW_THERMAL 0x20ull
#define TILE_BENCH_REASON_HW_THERMAL 0x40ull
#define TILE_BENCH_REASON_HW_POWER_BRAKE 0x80ull

typedef struct tile_bench_board {
    int ok;    /* NVML opened and the current device found */
    void *dev; /* nvmlDevice_t */
    int (*clock)(void *dev, int type, unsigned *mhz);
    int (*power)(void *dev, unsigned *milliwatts);
    int (*reasons)(void *dev, unsigned long long *bits);
    int (*temperature)(void *dev, int sensor, unsigned *celsius);
} tile_bench_board;

typedef struct tile_bench_board_reading {
    unsigned sm_mhz, celsius;
    double watts;               /* NVML's reading: on recent boards an average over about a second */
    unsigned long long reasons; /* TILE_BENCH_REASON_* bits; 0 when not readable */
} tile_bench_board_reading;

/* Opens NVML for the current CUDA device (matched by PCI bus id). */
static inline tile_bench_board tile_bench_board_open(void)
{
    tile_bench_board b;
    memset(&b, 0, sizeof b);
#if defined(__linux__)
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return b;
    int (*init)(void);
    int (*by_bus)(const char *, void **);
    /* POSIX: a symbol's address converts to a function pointer of the same size */
#define TILE_BENCH_SYM_(fp, name)                                                                                      \
    do {                                                                                                               \
        void *sym_ = dlsym(lib, name);                                                                                 \
        memcpy(&(fp), &sym_, sizeof(fp));                                                                              \
    } while (0)
    TILE_BENCH_SYM_(init, "nvmlInit_v2");
    TILE_BENCH_SYM_(by_bus, "nvmlDeviceGetHandleByPciBusId_v2");
    TILE_BENCH_SYM_(b.clock, "nvmlDeviceGetClockInfo");
    TILE_BENCH_SYM_(b.power, "nvmlDeviceGetPowerUsage");
    TILE_BENCH_SYM_(b.temperature, "nvmlDeviceGetTemperature");
    TILE_BENCH_SYM_(b.reasons, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!b.reasons) /* the name before NVML 12.2 */
        TILE_BENCH_SYM_(b.reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
#undef TILE_BENCH_SYM_
    char bus[32];
    int cuda_dev = 0;
    if (!init || !by_bus || !b.clock || !b.power || init() != 0 || cudaGetDevice(&cuda_dev) != cudaSuccess ||
        cudaDeviceGetPCIBusId(bus, (int)sizeof bus, cuda_dev) != cudaSuccess || by_bus(bus, &b.dev) != 0) {
        (void)cudaGetLastError();
        memset(&b, 0, sizeof b);
        return b; /* the library stays loaded: NVML is not meant to be unloaded mid-run */
    }
    b.ok = 1;
#endif
    return b;
}

/* The board now; zeros for what cannot be read. */
static inline tile_bench_board_reading tile_bench_board_read(const tile_bench_board *b)
{
    tile_bench_board_reading r;
    memset(&r, 0, sizeof r);
    unsigned mw = 0;
    if (!b || !b->ok)
        return r;
    if (b->clock(b->dev, TILE_BENCH_NVML_CLOCK_SM, &r.sm_mhz) != 0)
        r.sm_mhz = 0;
    if (b->power(b->dev, &mw) == 0)
        r.watts = mw / 1000.0;
    if (b->temperature && b->temperature(b->dev, TILE_BENCH_NVML_TEMPERATURE_GPU, &r.celsius) != 0)
        r.celsius = 0;
    if (b->reasons && b->reasons(b->dev, &r.reasons) != 0)
        r.reasons = 0;
    return r;
}

/* "power cap", "power cap, HW slowdown", ...; "none" for 0. */
static inline void tile_bench_reasons_text(unsigned long long bits, char *buf, size_t len)
{
    static const struct {
        unsigned long long bit;
        const char *name;
    } names[] = {{TILE_BENCH_REASON_SW_POWER_CAP, "power cap"},
                 {TILE_BENCH_REASON_HW_SLOWDOWN, "HW slowdown"},
                 {TILE_BENCH_REASON_SW_THERMAL, "SW thermal"},
                 {TILE_BENCH_REASON_HW_THERMAL, "HW thermal"},
                 {TILE_BENCH_REASON_HW_POWER_BRAKE, "power brake"}};
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((bits & names[i].bit) && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", names[i].name);
    if (!used && len)
        snprintf(buf, len, "none");
}

/* One kernel run back to back for `seconds` (of its own time): the median
 * time per call over the batches after the first `settle` seconds (the
 * clock and NVML's power average reach the kernel's steady state), and the
 * board read about every TILE_BENCH_BOARD_EVERY_MS meanwhile: the median SM
 * clock, the mean power, the highest temperature and every reason seen.
 * Batches are queued two ahead, so the GPU does not idle while the host
 * waits for a batch or reads the board. */
#ifndef TILE_BENCH_BOARD_EVERY_MS
#define TILE_BENCH_BOARD_EVERY_MS 20.0
#endif

typedef struct tile_bench_sustained {
    double median_ms, watts;
    unsigned sm_mhz, celsius;
    unsigned long long reasons;
    int batches;  /* timed after settling */
    int readings; /* of the board, after settling */
} tile_bench_sustained;

static inline tile_bench_sustained tile_bench_sustain(tile_bench_fn fn, void *ctx, int nsets, double seconds,
                                                      double settle, const tile_bench_board *board)
{
    enum { AHEAD = 3 }; /* batches in flight */
    tile_bench_sustained s;
    memset(&s, 0, sizeof s);
    cudaEvent_t start[AHEAD], stop[AHEAD];
    for (int i = 0; i < AHEAD; i++) {
        TILE_CHECK_CUDA(cudaEventCreate(&start[i]));
        TILE_CHECK_CUDA(cudaEventCreate(&stop[i]));
    }
    int next = 0, batch = tile_bench_warm_up_(fn, ctx, nsets, &next, start[0], stop[0]);
    double per_batch_ms = TILE_BENCH_MIN_BATCH_MS; /* about a batch, until one is timed */
    int cap = (int)(seconds * 1e3 / TILE_BENCH_MIN_BATCH_MS) + 16;
    double *ms = (double *)tile_check_xmalloc((size_t)cap * sizeof *ms);
    double *mhz = (double *)tile_check_xmalloc((size_t)cap * sizeof *mhz);
    double watts = 0.0, elapsed = 0.0, last_read = -1e9;
    int queued = 0, done = 0;
    for (;;) {
        int more = elapsed + (queued - done) * per_batch_ms * 1e-3 < seconds && s.batches < cap;
        if (more) { /* enqueue one batch */
            int e = queued % AHEAD;
            TILE_CHECK_CUDA(cudaEventRecord(start[e], 0));
            for (int i = 0; i < batch; i++) {
                TILE_CHECK_CUDA(fn(ctx, next));
                next = (next + 1) % nsets;
            }
            TILE_CHECK_CUDA(cudaEventRecord(stop[e], 0));
            queued++;
        }
        if (done == queued)
            break;
        if (more && queued - done < AHEAD)
            continue;
        int e = done % AHEAD; /* the oldest batch in flight */
        TILE_CHECK_CUDA(cudaEventSynchronize(stop[e]));
        TILE_CHECK_CUDA(cudaGetLastError());
        float t = 0.0f;
        TILE_CHECK_CUDA(cudaEventElapsedTime(&t, start[e], stop[e]));
        done++;
        per_batch_ms = t;
        elapsed += t * 1e-3;
        if (elapsed < settle || s.batches == cap) /* cap: batches shorter than estimated, still in flight */
            continue;
        ms[s.batches++] = (double)t / batch;
        if ((elapsed - last_read) * 1e3 >= TILE_BENCH_BOARD_EVERY_MS) {
            tile_bench_board_reading r = tile_bench_board_read(board);
            mhz[s.readings++] = r.sm_mhz;
            watts += r.watts, s.reasons |= r.reasons;
            s.celsius = r.celsius > s.celsius ? r.celsius : s.celsius;
            last_read = elapsed;
        }
    }
    s.median_ms = tile_bench_median(ms, s.batches);
    s.sm_mhz = s.readings ? (unsigned)tile_bench_median(mhz, s.readings) : 0;
    s.watts = s.readings ? watts / s.readings : 0.0;
    free(ms), free(mhz);
    for (int i = 0; i < AHEAD; i++) {
        TILE_CHECK_CUDA(cudaEventDestroy(start[i]));
        TILE_CHECK_CUDA(cudaEventDestroy(stop[i]));
    }
    return s;
}

/* "<device> (sm_XY, N SMs, L2 M MB), CUDA runtime X.Y, driver X.Y"; "" when
 * the runtime cannot tell. */
static inline void tile_bench_device_line(char *buf, size_t len)
{
    struct cudaDeviceProp prop;
    int dev = 0, runtime = 0, driver = 0;
    if (len)
        buf[0] = '\0';
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess ||
        cudaRuntimeGetVersion(&runtime) != cudaSuccess || cudaDriverGetVersion(&driver) != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    snprintf(buf, len, "%s (sm_%d%d, %d SMs, L2 %d MB), CUDA runtime %d.%d, driver %d.%d", prop.name, prop.major,
             prop.minor, prop.multiProcessorCount, prop.l2CacheSize >> 20, runtime / 1000, runtime % 1000 / 10,
             driver / 1000, driver % 1000 / 10);
}

/* "## <title>", the device line and the date (UTC), as markdown. */
static inline void tile_bench_print_header(FILE *out, const char *title)
{
    char device[256], date[64];
    tile_bench_device_line(device, sizeof device);
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    fprintf(out, "## %s\n\n", title);
    fprintf(out, "Device: %s\n", device);
    fprintf(out, "Date: %s\n\n", date);
}

/* ---- results in CSV ---------------------------------------------------------- */

/* One measured row. Text fields may be NULL (written empty); numbers that
 * are NaN are written empty, and so are times and rates that are not > 0. */
typedef struct tile_bench_record {
    const char *bench;     /* the program or table: "gemm", "rows", ... */
    const char *kernel;    /* the tilepp kernel */
    const char *shape;     /* "4096x4096x4096", "8192 x 768", ... */
    const char *dtype;     /* "fp16", "f32", ... */
    const char *metric;    /* the rates' unit: "TFLOP/s", "GB/s"; NULL: times only */
    double ms, rate;       /* tilepp: time per call, rate */
    const char *reference; /* "cuBLAS", "copy", "PyTorch SDPA flash", ...; NULL: none */
    double ref_ms, ref_rate;
    double rel_err; /* the check before timing; NaN: none */
} tile_bench_record;

/* A record with these names and every number NaN (not given). */
static inline tile_bench_record tile_bench_record_make(const char *bench, const char *kernel, const char *shape,
                                                       const char *dtype, const char *metric)
{
    tile_bench_record r;
    r.bench = bench;
    r.kernel = kernel;
    r.shape = shape;
    r.dtype = dtype;
    r.metric = metric;
    r.ms = r.rate = r.ref_ms = r.ref_rate = r.rel_err = NAN;
    r.reference = NULL;
    return r;
}

#define TILE_BENCH_CSV_COLUMNS                                                                                         \
    "bench,kernel,shape,dtype,metric,tilepp_ms,tilepp_rate,reference,reference_ms,reference_rate,ratio,rel_err"

/* A text field, in double quotes (doubled inside) when it holds a comma, a
 * quote or a line break. */
static inline void tile_bench_csv_text_(FILE *f, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static inline void tile_bench_csv_number_(FILE *f, double v, int positive)
{
    if (!isnan(v) && (!positive || v > 0.0))
        fprintf(f, "%.6g", v);
}

static inline void tile_bench_csv_write_header(FILE *f) { fputs(TILE_BENCH_CSV_COLUMNS "\n", f); }

/* One line of TILE_BENCH_CSV_COLUMNS; ratio = ref_ms / ms when both are
 * given. Nothing when f is NULL (no --csv). */
static inline void tile_bench_csv_write(FILE *f, const tile_bench_record *r)
{
    if (!f)
        return;
    const char *text[5] = {r->bench, r->kernel, r->shape, r->dtype, r->metric};
    for (int i = 0; i < 5; i++) {
        tile_bench_csv_text_(f, text[i]);
        fputc(',', f);
    }
    tile_bench_csv_number_(f, r->ms, 1);
    fputc(',', f);
    tile_bench_csv_number_(f, r->rate, 1);
    fputc(',', f);
    tile_bench_csv_text_(f, r->reference);
    fputc(',', f);
    tile_bench_csv_number_(f, r->ref_ms, 1);
    fputc(',', f);
    tile_bench_csv_number_(f, r->ref_rate, 1);
    fputc(',', f);
    if (r->ms > 0.0 && r->ref_ms > 0.0)
        tile_bench_csv_number_(f, r->ref_ms / r->ms, 1);
    fputc(',', f);
    tile_bench_csv_number_(f, r->rel_err, 0);
    fputc('\n', f);
    fflush(f);
}

/* The path of `--csv FILE` (or --csv=FILE) on the command line, NULL when
 * not given. -h/--help prints the usage with `about` and exits 0; any other
 * argument prints it to stderr and exits 2. */
static inline const char *tile_bench_csv_arg(int argc, char **argv, const char *about)
{
    const char *path = NULL, *prog = argc > 0 ? argv[0] : "bench";
    for (int i = 1; i < argc; i++) {
        int help = !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help");
        if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            path = argv[++i];
        } else if (!strncmp(argv[i], "--csv=", 6) && argv[i][6]) {
            path = argv[i] + 6;
        } else {
            FILE *out = help ? stdout : stderr;
            if (!help)
                fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[i]);
            fprintf(out,
                    "usage: %s [--csv FILE]\n\n%s\n\n"
                    "  --csv FILE  also write one CSV record per measured row to FILE\n"
                    "              (bench/plot.py turns a folder of them into charts)\n"
                    "  -h, --help  this text\n",
                    prog, about ? about : "");
            exit(help ? 0 : 2);
        }
    }
    return path;
}

/* Starts a CSV file: "# <title>", "# <device line>, <date>" and the column
 * line. NULL when path is NULL; exits 1 when the file cannot be written. */
static inline FILE *tile_bench_csv_open(const char *path, const char *title)
{
    if (!path)
        return NULL;
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    char device[256], date[64];
    tile_bench_device_line(device, sizeof device);
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    if (title)
        fprintf(f, "# %s\n", title);
    fprintf(f, "# %s%s%s\n", device, device[0] ? ", " : "", date);
    tile_bench_csv_write_header(f);
    return f;
}

/* Closes the file; 0, or -1 (with a message) when a write failed. */
static inline int tile_bench_csv_close(FILE *f, const char *path)
{
    if (!f)
        return 0;
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "%s: writing failed\n", path ? path : "CSV file");
        return -1;
    }
    return 0;
}

#endif /* TILEPP_BENCH_H */

/* tile_tune.cuh — the autotuner's run-time side (issue 13), C++17 host code,
 * header-only, included by the generated .cu files of a tuned kernel.
 *
 * A tuned kernel's launcher (`gemm_gpu_stream`) calls tile_tune_launch with
 * its space (every variant's name, pruned ones with their reason), its
 * integer parameters, its array parameters (bytes, element type, written
 * or not) and two lambdas: run(v, stream) launches variant v, cpu(host
 * pointers) runs the C reference. tile_tune_offline does the same for
 * `tilepp-tune` on buffers it allocates and fills itself; tile_tune_arg
 * reads a scalar parameter from "NAME=VALUE" arguments.
 *
 * Environment, read once per process:
 *   TILEPP_TUNE=off|on|force       off: the source's point; on (default):
 *                                  tune on a miss; force: tune on first use
 *                                  in this process, rewrite the cache
 *   TILEPP_TUNE_CACHE=DIR|off      default $XDG_CACHE_HOME/tilepp/tune, else
 *                                  $HOME/.cache/tilepp/tune
 *   TILEPP_TUNE_PIN=k:V;k2:V2      that variant of kernel k, no tuning
 *   TILEPP_TUNE_CHECK=first|cpu    the reference the variants must match
 *   TILEPP_TUNE_RTOL=x             relative L2 tolerance of float outputs
 *   TILEPP_TUNE_VERBOSE=1          the table on stderr after each tuning
 *
 * Decisions where the contract (TUNE_SPEC.md) is silent:
 * - An unknown value of an environment variable: one warning, the default.
 *   TILEPP_TUNE_CACHE=off (or empty) is no cache without a warning; a cache
 *   directory that cannot be made or written: one warning per process, then
 *   no persistent cache. TILEPP_TUNE_PIN is ignored by tile_tune_offline.
 * - The process-wide table, its lock and the warnings given live in one
 *   object behind an inline function's static (one per program, like the
 *   profiler's state; never destroyed, so no launch at exit finds it gone).
 *   The lock is held during a tuning, so two threads wanting the same entry
 *   tune once; the real launch runs after the lock is released.
 * - TILEPP_PROFILE: tuning launches are muted on the tuning thread only
 *   (tile_profile_muted is thread_local); their failures are not reported
 *   by the launcher either: the tuner's table says what happened.
 * - A failed launch (run returns an error): the error is cleared with
 *   cudaGetLastError, then the stream is synchronized; an error from that
 *   (an execution fault: illegal address, trap, ...) is sticky and fatal:
 *   reported on stderr and returned. Under TILEPP_DEBUG the launcher
 *   already synchronizes, which comes to the same.
 * - Reference `first`: when the source's (or first valid) point fails to
 *   launch, the next point that launches gives the reference. `cpu`
 *   without a CPU function or with a buffer of unknown size: one warning,
 *   then `first`.
 * - Comparison: relative L2 error sqrt(sum (x-r)^2 / sum r^2) over the
 *   elements where the reference is finite (an output that is not finite
 *   there counts as an infinite error); when sum r^2 == 0 the absolute
 *   L2 error is used. A NaN or infinity mismatch: "wrong result (NaN or
 *   infinity differs in C)".
 * - Timing: the first (checked) launch, also bracketed by events, sets R;
 *   then R runs, each after a restore of the written buffers and a
 *   cudaMemsetAsync of a 2 x L2 buffer (allocated for the tuning and freed
 *   after it, like the saved outputs); the median of the R event times.
 *   A point with a wrong result is not timed. No device memory for the
 *   saved outputs: one line on stderr, the source's point, nothing stored.
 * - The table goes to stderr (verbose, or when no point is ok) or to stdout
 *   (offline). The progress bar (offline only, stderr a terminal) is one
 *   line redrawn with \r and erased at the end.
 * - Offline buffers are filled from a fixed-seed generator, so two runs of
 *   tilepp-tune see the same data; it tunes on a stream of its own. */
#ifndef TILEPP_TILE_TUNE_CUH
#define TILEPP_TILE_TUNE_CUH

#include "tile_runtime.cuh" /* tile_device, and tile_profile.cuh */
#include "tile_tune_cache.h"

#include <algorithm>
#include <ctype.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <errno.h>
#include <limits>
#include <math.h>
#include <mutex>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <type_traits>
#include <unistd.h>
#include <vector>

/* ---- the contract's types ------------------------------------------------ */

enum tile_tune_elem { TILE_TUNE_F16, TILE_TUNE_BF16, TILE_TUNE_F32, TILE_TUNE_F64, TILE_TUNE_BYTES };

/* An array parameter: ptr is a device pointer; bytes == 0 when its size is
 * not known (then no CPU check and no offline tuning). */
struct tile_tune_buf {
    const char *name;
    void *ptr;
    size_t bytes;
    tile_tune_elem elem;
    bool written;
};

/* What the translator says about a tuned kernel. pruned[i] == nullptr: point
 * i is valid (pruned itself may be nullptr: every point is). */
struct tile_tune_space {
    const char *kernel, *where, *key;
    int npoints;
    const char *const *names;
    const char *const *pruned;
    int source_point;
    int nints;
    const char *const *int_names;
};

/* ---- environment --------------------------------------------------------- */

enum { TILE_TUNE_MODE_OFF, TILE_TUNE_MODE_ON, TILE_TUNE_MODE_FORCE };

struct tile_tune_config {
    int mode = TILE_TUNE_MODE_ON;
    bool cache = false; /* a cache directory is configured */
    char cache_dir[TILE_TUNE_CACHE_PATH_MAX] = "";
    std::string pin;
    bool check_cpu = false;
    bool verbose = false;
    double rtol = -1; /* < 0: the tolerance of the element type */
};

inline tile_tune_config tile_tune_config_read()
{
    tile_tune_config c;
    const char *v = getenv("TILEPP_TUNE");
    if (v && strcmp(v, "off") == 0)
        c.mode = TILE_TUNE_MODE_OFF;
    else if (v && strcmp(v, "force") == 0)
        c.mode = TILE_TUNE_MODE_FORCE;
    else if (v && *v && strcmp(v, "on") != 0)
        fprintf(stderr, "tilepp: TILEPP_TUNE=%s: expected off, on or force; using on\n", v);
    c.cache = tile_tune_cache_default_dir(c.cache_dir, sizeof c.cache_dir) != 0;
    v = getenv("TILEPP_TUNE_PIN");
    c.pin = v ? v : "";
    v = getenv("TILEPP_TUNE_CHECK");
    if (v && strcmp(v, "cpu") == 0)
        c.check_cpu = true;
    else if (v && *v && strcmp(v, "first") != 0)
        fprintf(stderr, "tilepp: TILEPP_TUNE_CHECK=%s: expected first or cpu; using first\n", v);
    v = getenv("TILEPP_TUNE_VERBOSE");
    c.verbose = v && *v && strcmp(v, "0") != 0;
    v = getenv("TILEPP_TUNE_RTOL");
    if (v && *v) {
        char *end;
        double x = strtod(v, &end);
        if (*end || !(x >= 0) || isinf(x))
            fprintf(stderr, "tilepp: TILEPP_TUNE_RTOL=%s: expected a number >= 0; ignored\n", v);
        else
            c.rtol = x;
    }
    return c;
}

inline const tile_tune_config &tile_tune_config_get()
{
    static const tile_tune_config c = tile_tune_config_read();
    return c;
}

/* ---- process-wide state -------------------------------------------------- */

/* The in-process table: one choice per (space, device, shape class);
 * point TILE_TUNE_NONE_OK when no variant ran correctly (not retried). */
enum { TILE_TUNE_NONE_OK = -2 };
struct tile_tune_choice {
    const tile_tune_space *space;
    int device;
    std::string shape;
    int point;
};

struct tile_tune_state {
    std::mutex lock; /* guards everything here, and a tuning */
    std::vector<tile_tune_choice> table;
    std::vector<std::string> warned; /* warnings already given, by text */
    bool cache_broken = false;       /* the cache directory proved unusable */
};

inline tile_tune_state &tile_tune_state_get()
{
    static tile_tune_state *state = new tile_tune_state; /* never destroyed */
    return *state;
}

/* Prints a warning once per process (the caller holds the lock). */
inline void tile_tune_warn_once(tile_tune_state &st, const std::string &text)
{
    if (std::find(st.warned.begin(), st.warned.end(), text) != st.warned.end())
        return;
    st.warned.push_back(text);
    fprintf(stderr, "%s\n", text.c_str());
}

inline int tile_tune_find_choice(tile_tune_state &st, const tile_tune_space *sp, int device, const std::string &shape)
{
    for (const auto &c : st.table)
        if (c.space == sp && c.device == device && c.shape == shape)
            return c.point;
    return -1;
}

inline void tile_tune_set_choice(tile_tune_state &st, const tile_tune_space *sp, int device, const std::string &shape,
                                 int point)
{
    for (auto &c : st.table)
        if (c.space == sp && c.device == device && c.shape == shape) {
            c.point = point;
            return;
        }
    st.table.push_back({sp, device, shape, point});
}

/* ---- the space ----------------------------------------------------------- */

inline bool tile_tune_valid(const tile_tune_space *sp, int i)
{
    return i >= 0 && i < sp->npoints && (!sp->pruned || !sp->pruned[i]);
}

/* The source's point when valid, else the first valid one, else -1. */
inline int tile_tune_default_point(const tile_tune_space *sp)
{
    if (tile_tune_valid(sp, sp->source_point))
        return sp->source_point;
    for (int i = 0; i < sp->npoints; i++)
        if (tile_tune_valid(sp, i))
            return i;
    return -1;
}

/* The index of the variant called `name`, or -1. */
inline int tile_tune_lookup(const tile_tune_space *sp, const char *name, size_t len)
{
    for (int i = 0; i < sp->npoints; i++)
        if (strlen(sp->names[i]) == len && strncmp(sp->names[i], name, len) == 0)
            return i;
    return -1;
}

/* The point TILEPP_TUNE_PIN asks for this kernel, or -1 (a bad pin: one
 * warning). The caller holds the lock. */
inline int tile_tune_pinned(tile_tune_state &st, const tile_tune_space *sp, const std::string &pin)
{
    size_t k = strlen(sp->kernel);
    for (size_t at = 0; at <= pin.size();) {
        size_t end = pin.find(';', at);
        end = end == std::string::npos ? pin.size() : end;
        const std::string item = pin.substr(at, end - at);
        at = end + 1;
        if (item.size() <= k || item.compare(0, k, sp->kernel) != 0 || item[k] != ':')
            continue;
        const char *name = item.c_str() + k + 1;
        int i = tile_tune_lookup(sp, name, strlen(name));
        if (tile_tune_valid(sp, i))
            return i;
        tile_tune_warn_once(st, std::string("tilepp: TILEPP_TUNE_PIN: ") + sp->kernel + ":" + name +
                                    (i < 0 ? " is not a variant of the kernel" : " is pruned: ") +
                                    (i < 0 ? "" : sp->pruned[i]) + "; ignored");
        return -1;
    }
    return -1;
}

/* ---- the GPU ------------------------------------------------------------- */

struct tile_tune_gpu {
    int device = 0;
    char name[256] = "";
    int major = 0, minor = 0, sms = 0;
    size_t l2 = 0;
};

inline cudaError_t tile_tune_gpu_get(tile_tune_gpu *g)
{
    cudaError_t err = cudaGetDevice(&g->device);
    cudaDeviceProp prop;
    if (err == cudaSuccess)
        err = cudaGetDeviceProperties(&prop, g->device);
    if (err != cudaSuccess)
        return err;
    snprintf(g->name, sizeof g->name, "%s", prop.name);
    g->major = prop.major;
    g->minor = prop.minor;
    g->sms = prop.multiProcessorCount;
    g->l2 = prop.l2CacheSize > 0 ? (size_t)prop.l2CacheSize : 0;
    return cudaSuccess;
}

/* The cache entry's key fields for this call. */
inline void tile_tune_want(const tile_tune_space *sp, const tile_tune_gpu &g, const std::string &shape,
                           tile_tune_entry *e)
{
    memset(e, 0, sizeof *e);
    snprintf(e->kernel, sizeof e->kernel, "%s", sp->kernel);
    snprintf(e->key, sizeof e->key, "%s", sp->key);
    snprintf(e->gpu, sizeof e->gpu, "%s", g.name);
    e->cc_major = g.major;
    e->cc_minor = g.minor;
    e->sms = g.sms;
    snprintf(e->shape, sizeof e->shape, "%s", shape.c_str());
}

/* ---- comparing outputs --------------------------------------------------- */

inline double tile_tune_elem_value(const unsigned char *p, tile_tune_elem e)
{
    switch (e) {
    case TILE_TUNE_F16: {
        __half h;
        memcpy(&h, p, sizeof h);
        return (double)__half2float(h);
    }
    case TILE_TUNE_BF16: {
        __nv_bfloat16 h;
        memcpy(&h, p, sizeof h);
        return (double)__bfloat162float(h);
    }
    case TILE_TUNE_F32: {
        float f;
        memcpy(&f, p, sizeof f);
        return (double)f;
    }
    default: {
        double d;
        memcpy(&d, p, sizeof d);
        return d;
    }
    }
}

inline size_t tile_tune_elem_size(tile_tune_elem e)
{
    return e == TILE_TUNE_F16 || e == TILE_TUNE_BF16 ? 2 : e == TILE_TUNE_F32 ? 4 : e == TILE_TUNE_F64 ? 8 : 1;
}

inline double tile_tune_tolerance(tile_tune_elem e, double rtol)
{
    if (e == TILE_TUNE_BYTES)
        return 0;
    if (rtol >= 0)
        return rtol;
    return e == TILE_TUNE_F16 ? 5e-3 : e == TILE_TUNE_BF16 ? 3e-2 : 1e-4;
}

/* The error of got against ref: relative L2 over the finite reference
 * elements; infinity when a NaN or infinity differs (*special set). BYTES:
 * 0 or infinity. */
inline double tile_tune_error(const void *got, const void *ref, size_t bytes, tile_tune_elem e, bool *special)
{
    *special = false;
    if (e == TILE_TUNE_BYTES)
        return memcmp(got, ref, bytes) == 0 ? 0 : INFINITY;
    const size_t size = tile_tune_elem_size(e);
    double diff = 0, norm = 0;
    for (size_t i = 0; i + size <= bytes; i += size) {
        double x = tile_tune_elem_value((const unsigned char *)got + i, e);
        double r = tile_tune_elem_value((const unsigned char *)ref + i, e);
        if (isnan(r) || isinf(r)) {
            if (!(isnan(r) ? isnan(x) : x == r))
                *special = true;
            continue;
        }
        if (!isfinite(x)) {
            *special = true;
            continue;
        }
        diff += (x - r) * (x - r);
        norm += r * r;
    }
    if (*special)
        return INFINITY;
    return norm > 0 ? sqrt(diff / norm) : sqrt(diff);
}

/* ---- one tuning ---------------------------------------------------------- */

enum { TILE_TUNE_OK, TILE_TUNE_WRONG, TILE_TUNE_PRUNED, TILE_TUNE_FAILED, TILE_TUNE_NOT_RUN };

struct tile_tune_row {
    int status = TILE_TUNE_NOT_RUN;
    double ms = 0;
    std::string what;
};

/* What a tuning allocates, freed when it ends. */
struct tile_tune_scratch {
    std::vector<void *> saved; /* device copies of the written buffers, by buffer */
    void *flush = nullptr;
    size_t flush_bytes = 0;
    std::vector<cudaEvent_t> events;
    int flush_value = 0;

    tile_tune_scratch() = default;
    tile_tune_scratch(const tile_tune_scratch &) = delete;
    tile_tune_scratch &operator=(const tile_tune_scratch &) = delete;
    ~tile_tune_scratch()
    {
        for (void *p : saved)
            if (p)
                (void)cudaFree(p);
        if (flush)
            (void)cudaFree(flush);
        for (cudaEvent_t e : events)
            (void)cudaEventDestroy(e);
    }
};

/* Mutes the profiler on this thread for the scope's life. */
struct tile_tune_mute {
    bool was = tile_profile_muted;
    tile_tune_mute() { tile_profile_muted = true; }
    ~tile_tune_mute() { tile_profile_muted = was; }
};

inline cudaError_t tile_tune_restore(tile_tune_scratch &s, const tile_tune_buf *bufs, int nbufs, cudaStream_t stream)
{
    for (int i = 0; i < nbufs; i++)
        if (s.saved[i]) {
            cudaError_t err = cudaMemcpyAsync(bufs[i].ptr, s.saved[i], bufs[i].bytes, cudaMemcpyDeviceToDevice, stream);
            if (err != cudaSuccess)
                return err;
        }
    return cudaSuccess;
}

/* Evicts the L2 cache: writes a buffer twice its size. */
inline cudaError_t tile_tune_flush(tile_tune_scratch &s, cudaStream_t stream)
{
    if (!s.flush)
        return cudaSuccess;
    s.flush_value = (s.flush_value + 1) & 0xff;
    return cudaMemsetAsync(s.flush, s.flush_value, s.flush_bytes, stream);
}

/* Allocates the scratch and saves the written buffers (on the stream). */
inline cudaError_t tile_tune_prepare(tile_tune_scratch &s, const tile_tune_gpu &g, const tile_tune_buf *bufs, int nbufs,
                                     cudaStream_t stream)
{
    s.saved.assign((size_t)nbufs, nullptr);
    for (int i = 0; i < nbufs; i++) {
        if (!bufs[i].written || !bufs[i].bytes)
            continue;
        cudaError_t err = cudaMalloc(&s.saved[i], bufs[i].bytes);
        if (err == cudaSuccess)
            err = cudaMemcpyAsync(s.saved[i], bufs[i].ptr, bufs[i].bytes, cudaMemcpyDeviceToDevice, stream);
        if (err != cudaSuccess)
            return err;
    }
    if (g.l2 && cudaMalloc(&s.flush, 2 * g.l2) == cudaSuccess)
        s.flush_bytes = 2 * g.l2;
    else
        (void)cudaGetLastError(); /* no flush: the timings are warm-cache ones */
    s.events.assign(2 * 51, nullptr);
    for (auto &e : s.events) {
        cudaError_t err = cudaEventCreate(&e);
        if (err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

/* Host copies of the written buffers (all buffers when `all`). */
inline cudaError_t tile_tune_download(const tile_tune_buf *bufs, int nbufs, bool all, cudaStream_t stream,
                                      std::vector<std::vector<unsigned char>> &out)
{
    out.assign((size_t)nbufs, {});
    for (int i = 0; i < nbufs; i++) {
        if (!(all || bufs[i].written) || !bufs[i].bytes)
            continue;
        out[i].resize(bufs[i].bytes);
        cudaError_t err = cudaMemcpyAsync(out[i].data(), bufs[i].ptr, bufs[i].bytes, cudaMemcpyDeviceToHost, stream);
        if (err != cudaSuccess)
            return err;
    }
    return cudaStreamSynchronize(stream);
}

/* After run() returned err: a launch error is cleared; a fault that the
 * stream then shows is sticky, and returned. */
inline cudaError_t tile_tune_after_failure(cudaStream_t stream)
{
    (void)cudaGetLastError();
    cudaError_t err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess)
        (void)cudaGetLastError();
    return err;
}

/* Checks the written buffers against the reference; "" when they match. */
inline std::string tile_tune_check(const tile_tune_buf *bufs, int nbufs,
                                   const std::vector<std::vector<unsigned char>> &got,
                                   const std::vector<std::vector<unsigned char>> &ref, double rtol)
{
    for (int i = 0; i < nbufs; i++) {
        if (!bufs[i].written || !bufs[i].bytes)
            continue;
        bool special = false;
        double err = tile_tune_error(got[i].data(), ref[i].data(), bufs[i].bytes, bufs[i].elem, &special);
        if (err <= tile_tune_tolerance(bufs[i].elem, rtol))
            continue;
        char text[256];
        if (special)
            snprintf(text, sizeof text, "wrong result (NaN or infinity differs in %s)", bufs[i].name);
        else if (bufs[i].elem == TILE_TUNE_BYTES)
            snprintf(text, sizeof text, "wrong result (bytes differ in %s)", bufs[i].name);
        else
            snprintf(text, sizeof text, "wrong result (rel. error %.1e in %s)", err, bufs[i].name);
        return text;
    }
    return "";
}

inline void tile_tune_progress(const tile_tune_space *sp, int done, bool on)
{
    if (!on)
        return;
    if (done < 0) {
        fprintf(stderr, "\r%*s\r", 100, "");
        return;
    }
    const int width = 30, fill = sp->npoints ? done * width / sp->npoints : width;
    fprintf(stderr, "\rtilepp-tune: %s [%.*s%*s] %d/%d %.40s", sp->kernel, fill,
            "==============================", width - fill, "", done, sp->npoints,
            done < sp->npoints ? sp->names[done] : "");
    fflush(stderr);
}

inline void tile_tune_print_table(FILE *f, const tile_tune_space *sp, const tile_tune_gpu &g, const long long *ints,
                                  int nints, double flops, const std::vector<tile_tune_row> &rows, int chosen)
{
    fprintf(f, "tilepp tune: %s (%s) on %s (cc %d.%d, %d SMs), shape", sp->kernel, sp->where, g.name, g.major, g.minor,
            g.sms);
    for (int i = 0; i < nints; i++)
        fprintf(f, " %s=%lld", sp->int_names && i < sp->nints ? sp->int_names[i] : "?", ints[i]);
    fprintf(f, "\n  %-40s %10s %9s  %s\n", "variant", "median ms", flops > 0 ? "TFLOP/s" : "", "status");
    for (int i = 0; i < sp->npoints; i++) {
        const tile_tune_row &r = rows[(size_t)i];
        fprintf(f, "%c %-40s", i == chosen ? '*' : ' ', sp->names[i]);
        if (r.status == TILE_TUNE_OK)
            fprintf(f, " %10.4f", r.ms);
        else
            fprintf(f, " %10s", "-");
        if (flops > 0 && r.status == TILE_TUNE_OK && r.ms > 0)
            fprintf(f, " %9.1f", flops / (r.ms * 1e-3) / 1e12);
        else
            fprintf(f, " %9s", flops > 0 ? "-" : "");
        fprintf(f, "  %s%s\n", r.what.c_str(), i == chosen ? " (chosen)" : "");
    }
}

/* Launches point p once on restored buffers, timed by two events; a
 * failed launch sets row.status (and returns a fatal error, if sticky). */
template <class Run>
cudaError_t tile_tune_once(tile_tune_scratch &s, const tile_tune_buf *bufs, int nbufs, cudaStream_t stream, Run &run,
                           int p, int slot, bool flush, bool *launched, tile_tune_row &row)
{
    cudaError_t err = tile_tune_restore(s, bufs, nbufs, stream);
    if (err == cudaSuccess && flush)
        err = tile_tune_flush(s, stream);
    if (err == cudaSuccess)
        err = cudaEventRecord(s.events[2 * (size_t)slot], stream);
    if (err != cudaSuccess)
        return err;
    cudaError_t launch = run(p, stream);
    *launched = launch == cudaSuccess;
    if (!*launched) {
        row.status = TILE_TUNE_FAILED;
        row.what = std::string("launch failed: ") + cudaGetErrorString(launch);
        return tile_tune_after_failure(stream);
    }
    return cudaEventRecord(s.events[2 * (size_t)slot + 1], stream);
}

/* The event time of slot; sets *ms. */
inline cudaError_t tile_tune_elapsed(tile_tune_scratch &s, int slot, double *ms)
{
    float t = 0;
    cudaError_t err = cudaEventElapsedTime(&t, s.events[2 * (size_t)slot], s.events[2 * (size_t)slot + 1]);
    *ms = t;
    return err;
}

/* Checks and times point p into row; a fatal error is returned. */
template <class Run>
cudaError_t tile_tune_point(tile_tune_scratch &s, const tile_tune_buf *bufs, int nbufs, cudaStream_t stream, Run &run,
                            int p, const std::vector<std::vector<unsigned char>> &ref, double rtol, tile_tune_row &row)
{
    bool launched = false;
    cudaError_t err = tile_tune_once(s, bufs, nbufs, stream, run, p, 0, false, &launched, row);
    if (err != cudaSuccess || !launched)
        return err;
    std::vector<std::vector<unsigned char>> got;
    if ((err = tile_tune_download(bufs, nbufs, false, stream, got)) != cudaSuccess)
        return err;
    double first = 0;
    if ((err = tile_tune_elapsed(s, 0, &first)) != cudaSuccess)
        return err;
    row.what = tile_tune_check(bufs, nbufs, got, ref, rtol);
    row.status = row.what.empty() ? TILE_TUNE_OK : TILE_TUNE_WRONG;
    if (row.status == TILE_TUNE_WRONG)
        return cudaSuccess; /* not timed */
    row.what = "ok";
    const int runs = std::min(50, std::max(5, first > 0 ? (int)ceil(20.0 / first) : 50));
    for (int r = 0; r < runs; r++) {
        if ((err = tile_tune_once(s, bufs, nbufs, stream, run, p, r + 1, true, &launched, row)) != cudaSuccess ||
            !launched)
            return err;
    }
    if ((err = cudaStreamSynchronize(stream)) != cudaSuccess)
        return err;
    std::vector<double> ms((size_t)runs);
    for (int r = 0; r < runs; r++)
        if ((err = tile_tune_elapsed(s, r + 1, &ms[(size_t)r])) != cudaSuccess)
            return err;
    std::sort(ms.begin(), ms.end());
    row.ms = runs % 2 ? ms[(size_t)runs / 2] : 0.5 * (ms[(size_t)runs / 2 - 1] + ms[(size_t)runs / 2]);
    return cudaSuccess;
}

/* The reference outputs: the CPU's, or those of the first point that
 * launches (the source's point first). */
template <class Run, class Cpu>
cudaError_t tile_tune_reference(const tile_tune_space *sp, tile_tune_scratch &s, tile_tune_buf *bufs, int nbufs,
                                cudaStream_t stream, Run &run, Cpu &cpu, bool use_cpu,
                                std::vector<std::vector<unsigned char>> &ref, bool *have,
                                std::vector<tile_tune_row> &rows)
{
    *have = false;
    cudaError_t err;
    if (use_cpu) {
        if ((err = tile_tune_download(bufs, nbufs, true, stream, ref)) != cudaSuccess)
            return err;
        std::vector<void *> host((size_t)nbufs);
        for (int i = 0; i < nbufs; i++)
            host[(size_t)i] = ref[(size_t)i].data();
        cpu((void *const *)host.data());
        *have = true;
        return cudaSuccess;
    }
    std::vector<int> order;
    order.push_back(tile_tune_default_point(sp));
    for (int i = 0; i < sp->npoints; i++)
        if (i != order[0] && tile_tune_valid(sp, i))
            order.push_back(i);
    for (int p : order) {
        tile_tune_row &row = rows[(size_t)p]; /* a failed launch is this point's result */
        bool launched = false;
        if ((err = tile_tune_once(s, bufs, nbufs, stream, run, p, 0, false, &launched, row)) != cudaSuccess)
            return err;
        if (launched) {
            *have = true;
            return tile_tune_download(bufs, nbufs, false, stream, ref);
        }
    }
    return cudaSuccess;
}

/* Tunes: checks and times every valid point on the caller's buffers and
 * stream, leaves the written buffers as they were, sets *chosen (-1 when
 * no point is ok) and *chosen_ms (-1 when there was no memory to tune in:
 * then *chosen is the default point, not to be stored). A fatal CUDA error
 * is returned. */
template <class Run, class Cpu>
cudaError_t tile_tune_search(const tile_tune_space *sp, const tile_tune_gpu &g, const long long *ints, int nints,
                             tile_tune_buf *bufs, int nbufs, double flops, cudaStream_t stream, Run &run, Cpu &cpu,
                             bool has_cpu, bool progress, FILE *table, int *chosen, double *chosen_ms)
{
    const tile_tune_config &cfg = tile_tune_config_get();
    tile_tune_mute mute;
    tile_tune_scratch s;
    *chosen = -1;
    bool sized = true;
    for (int i = 0; i < nbufs; i++)
        sized &= bufs[i].bytes > 0;
    const bool use_cpu = cfg.check_cpu && has_cpu && sized;
    if (cfg.check_cpu && !use_cpu)
        fprintf(stderr,
                "tilepp: %s: TILEPP_TUNE_CHECK=cpu needs the C function and every array's size; "
                "checking against the first variant instead\n",
                sp->kernel);
    cudaError_t err = tile_tune_prepare(s, g, bufs, nbufs, stream);
    if (err == cudaErrorMemoryAllocation) { /* no room to tune: the source's point, not stored */
        (void)cudaGetLastError();
        fprintf(stderr, "tilepp: %s (%s): no device memory to tune in; using %s\n", sp->kernel, sp->where,
                sp->names[tile_tune_default_point(sp)]);
        *chosen = tile_tune_default_point(sp);
        *chosen_ms = -1;
        return cudaSuccess;
    }
    std::vector<std::vector<unsigned char>> ref;
    bool have_ref = false;
    std::vector<tile_tune_row> rows((size_t)sp->npoints);
    if (err == cudaSuccess)
        err = tile_tune_reference(sp, s, bufs, nbufs, stream, run, cpu, use_cpu, ref, &have_ref, rows);
    for (int p = 0; err == cudaSuccess && p < sp->npoints; p++) {
        tile_tune_progress(sp, p, progress);
        tile_tune_row &row = rows[(size_t)p];
        if (!tile_tune_valid(sp, p)) {
            row.status = TILE_TUNE_PRUNED;
            row.what = std::string("pruned: ") + sp->pruned[p];
        } else if (row.status == TILE_TUNE_FAILED || !have_ref) {
            /* failed to launch while giving the reference: not tried again */
        } else {
            err = tile_tune_point(s, bufs, nbufs, stream, run, p, ref, cfg.rtol, row);
        }
        if (row.status == TILE_TUNE_OK && (*chosen < 0 || row.ms < rows[(size_t)*chosen].ms))
            *chosen = p;
    }
    tile_tune_progress(sp, -1, progress);
    if (err == cudaSuccess)
        err = tile_tune_restore(s, bufs, nbufs, stream);
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        fprintf(stderr, "tilepp: tuning %s (%s): %s (%s)\n", sp->kernel, sp->where, cudaGetErrorName(err),
                cudaGetErrorString(err));
        return err;
    }
    *chosen_ms = *chosen >= 0 ? rows[(size_t)*chosen].ms : 0;
    if (*chosen < 0)
        fprintf(stderr, "tilepp: %s (%s): no variant of the tuning space runs correctly:\n", sp->kernel, sp->where);
    if (table || *chosen < 0)
        tile_tune_print_table(*chosen < 0 ? stderr : table, sp, g, ints, nints, flops, rows, *chosen);
    return cudaSuccess;
}

/* Writes the choice to the cache (the caller holds the lock); one warning
 * when the directory is unusable, then no more tries. Returns the path
 * written, or "". */
inline std::string tile_tune_store(tile_tune_state &st, const tile_tune_entry &want, const char *variant, double ms)
{
    const tile_tune_config &cfg = tile_tune_config_get();
    if (!cfg.cache || st.cache_broken)
        return "";
    tile_tune_entry e = want;
    snprintf(e.variant, sizeof e.variant, "%s", variant);
    e.ms = ms;
    char path[TILE_TUNE_CACHE_PATH_MAX + 512] = "", why[2600] = "";
    if (tile_tune_cache_path(cfg.cache_dir, &e, path, sizeof path) &&
        tile_tune_cache_store(path, &e, why, sizeof why) == 0)
        return path;
    st.cache_broken = true;
    fprintf(stderr, "tilepp: the tune cache %s is unusable (%s); tuning results are kept for this process only\n",
            cfg.cache_dir, path[0] ? why : "path too long");
    return "";
}

/* The point the cache holds for want, or -1 (a bad entry: one warning).
 * The caller holds the lock. */
inline int tile_tune_cached(tile_tune_state &st, const tile_tune_space *sp, const tile_tune_entry &want)
{
    const tile_tune_config &cfg = tile_tune_config_get();
    char path[TILE_TUNE_CACHE_PATH_MAX + 512], why[2600];
    tile_tune_entry got;
    if (!cfg.cache || st.cache_broken || !tile_tune_cache_path(cfg.cache_dir, &want, path, sizeof path))
        return -1;
    tile_tune_cache_result r = tile_tune_cache_load(path, &want, &got, why, sizeof why);
    int p = -1;
    if (r == TILE_TUNE_CACHE_HIT) {
        p = tile_tune_lookup(sp, got.variant, strlen(got.variant));
        if (p < 0)
            snprintf(why, sizeof why, "variant %s is not in the tuning space", got.variant);
        else if (!tile_tune_valid(sp, p))
            snprintf(why, sizeof why, "variant %s is pruned", got.variant);
        else
            return p;
    } else if (r == TILE_TUNE_CACHE_MISS) {
        return -1;
    }
    tile_tune_warn_once(st, std::string("tilepp: ignoring the tune cache entry ") + path + ": " + why);
    return -1;
}

/* ---- the launcher's entry ------------------------------------------------ */

template <class Run, class Cpu>
cudaError_t tile_tune_launch(const tile_tune_space *sp, const long long *ints, int nints, tile_tune_buf *bufs,
                             int nbufs, double flops, cudaStream_t stream, Run &&run, Cpu &&cpu, bool has_cpu)
{
    const tile_tune_config &cfg = tile_tune_config_get();
    tile_tune_state &st = tile_tune_state_get();
    const int fallback = tile_tune_default_point(sp);
    if (fallback < 0) {
        fprintf(stderr, "tilepp: %s (%s): every variant of the tuning space is pruned\n", sp->kernel, sp->where);
        return cudaErrorInvalidValue;
    }
    int point = -1;
    {
        std::lock_guard<std::mutex> guard(st.lock);
        if (!cfg.pin.empty())
            point = tile_tune_pinned(st, sp, cfg.pin);
    }
    if (point < 0 && cfg.mode == TILE_TUNE_MODE_OFF)
        point = fallback;
    if (point >= 0)
        return run(point, stream);

    char shape_text[1024];
    tile_tune_shape_string(ints, nints, shape_text, sizeof shape_text);
    const std::string shape = shape_text;
    tile_tune_gpu g;
    cudaError_t err = cudaGetDevice(&g.device);
    if (err != cudaSuccess)
        return err;
    {
        std::unique_lock<std::mutex> guard(st.lock);
        point = tile_tune_find_choice(st, sp, g.device, shape);
        if (point == -1) {
            if ((err = tile_tune_gpu_get(&g)) != cudaSuccess)
                return err;
            tile_tune_entry want;
            tile_tune_want(sp, g, shape, &want);
            if (cfg.mode != TILE_TUNE_MODE_FORCE)
                point = tile_tune_cached(st, sp, want);
            cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
            if (point < 0 &&
                (cudaStreamIsCapturing(stream, &capture) != cudaSuccess || capture != cudaStreamCaptureStatusNone)) {
                (void)cudaGetLastError();
                return run(fallback, stream); /* no tuning inside a graph capture; nothing stored */
            }
            if (point < 0) {
                double ms = 0;
                err = tile_tune_search(sp, g, ints, nints, bufs, nbufs, flops, stream, run, cpu, has_cpu, false,
                                       cfg.verbose ? stderr : nullptr, &point, &ms);
                if (err != cudaSuccess)
                    return err;
                if (point < 0) {
                    tile_tune_set_choice(st, sp, g.device, shape, TILE_TUNE_NONE_OK);
                    return cudaErrorInvalidValue;
                }
                if (ms >= 0)
                    tile_tune_store(st, want, sp->names[point], ms);
            }
            tile_tune_set_choice(st, sp, g.device, shape, point);
        }
    }
    if (point == TILE_TUNE_NONE_OK)
        return cudaErrorInvalidValue; /* reported when it was tuned */
    return run(point, stream);
}

/* ---- offline tuning (tilepp-tune) ---------------------------------------- */

/* Fills n bytes of element type e with values in [-1,-0.01] u [0.01,1]
 * (BYTES: zeros), from a fixed seed. */
inline void tile_tune_fill(std::vector<unsigned char> &h, tile_tune_elem e, uint64_t seed)
{
    std::fill(h.begin(), h.end(), 0);
    const size_t size = tile_tune_elem_size(e);
    uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
    for (size_t i = 0; e != TILE_TUNE_BYTES && i + size <= h.size(); i += size) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
        double v = (0.01 + 0.99 * (double)(x >> 11) / 9007199254740992.0) * (x & 1 ? -1 : 1);
        if (e == TILE_TUNE_F16) {
            __half t = __double2half(v);
            memcpy(&h[i], &t, size);
        } else if (e == TILE_TUNE_BF16) {
            __nv_bfloat16 t = __double2bfloat16(v);
            memcpy(&h[i], &t, size);
        } else if (e == TILE_TUNE_F32) {
            float t = (float)v;
            memcpy(&h[i], &t, size);
        } else {
            memcpy(&h[i], &v, size);
        }
    }
}

/* Frees what tile_tune_offline allocated. */
struct tile_tune_offline_bufs {
    tile_tune_buf *bufs;
    int nbufs;
    cudaStream_t stream = nullptr;
    ~tile_tune_offline_bufs()
    {
        for (int i = 0; i < nbufs; i++)
            if (bufs[i].ptr) {
                (void)cudaFree(bufs[i].ptr);
                bufs[i].ptr = nullptr;
            }
        if (stream)
            (void)cudaStreamDestroy(stream);
    }
};

template <class Run, class Cpu>
int tile_tune_offline(const tile_tune_space *sp, const long long *ints, int nints, tile_tune_buf *bufs, int nbufs,
                      double flops, Run &&run, Cpu &&cpu, bool has_cpu)
{
    tile_tune_state &st = tile_tune_state_get();
    std::lock_guard<std::mutex> guard(st.lock);
    for (int i = 0; i < nbufs; i++)
        if (!bufs[i].bytes) {
            fprintf(stderr,
                    "tilepp-tune: %s: the size of array %s is not declared, so the kernel cannot be tuned "
                    "offline (give the parameter its extents, e.g. const float x[n])\n",
                    sp->kernel, bufs[i].name);
            return 1;
        }
    tile_tune_offline_bufs owned{bufs, nbufs};
    tile_tune_gpu g;
    cudaError_t err = tile_tune_gpu_get(&g);
    if (err == cudaSuccess)
        err = cudaStreamCreateWithFlags(&owned.stream, cudaStreamNonBlocking);
    for (int i = 0; err == cudaSuccess && i < nbufs; i++) {
        std::vector<unsigned char> h(bufs[i].bytes);
        tile_tune_fill(h, bufs[i].elem, (uint64_t)i + 1);
        err = cudaMalloc(&bufs[i].ptr, bufs[i].bytes);
        if (err == cudaSuccess)
            err = cudaMemcpy(bufs[i].ptr, h.data(), h.size(), cudaMemcpyHostToDevice);
    }
    if (err != cudaSuccess) {
        fprintf(stderr, "tilepp-tune: %s: %s (%s)\n", sp->kernel, cudaGetErrorName(err), cudaGetErrorString(err));
        (void)cudaGetLastError();
        return 1;
    }
    int point = -1;
    double ms = 0;
    err = tile_tune_search(sp, g, ints, nints, bufs, nbufs, flops, owned.stream, run, cpu, has_cpu, isatty(2) != 0,
                           stdout, &point, &ms);
    if (err != cudaSuccess || point < 0 || ms < 0)
        return 1;
    char shape[1024];
    tile_tune_shape_string(ints, nints, shape, sizeof shape);
    tile_tune_entry want;
    tile_tune_want(sp, g, shape, &want);
    std::string path = tile_tune_store(st, want, sp->names[point], ms);
    if (!path.empty())
        printf("tilepp-tune: %s: %s written to %s\n", sp->kernel, sp->names[point], path.c_str());
    else
        printf("tilepp-tune: %s: %s (no tune cache written)\n", sp->kernel, sp->names[point]);
    tile_tune_set_choice(st, sp, g.device, shape, point);
    fflush(stdout);
    return 0;
}

/* ---- scalar arguments of tilepp-tune ------------------------------------- */

inline bool tile_tune_parse_scalar(const char *s, bool *out)
{
    if (!strcmp(s, "1") || !strcmp(s, "true"))
        return *out = true, true;
    if (!strcmp(s, "0") || !strcmp(s, "false"))
        return *out = false, true;
    return false;
}

template <class T> bool tile_tune_parse_scalar(const char *s, T *out)
{
    char *end = nullptr;
    errno = 0;
    if constexpr (std::is_floating_point<T>::value) {
        double v = strtod(s, &end);
        if (end == s || *end || !isfinite(v) || errno == ERANGE)
            return false;
        *out = (T)v;
        return true;
    } else if constexpr (std::is_signed<T>::value) {
        long long v = strtoll(s, &end, 10);
        if (end == s || *end || errno == ERANGE || isspace((unsigned char)s[0]) ||
            v < (long long)std::numeric_limits<T>::min() || v > (long long)std::numeric_limits<T>::max())
            return false;
        *out = (T)v;
        return true;
    } else {
        unsigned long long v = strtoull(s, &end, 10);
        if (end == s || *end || errno == ERANGE || s[0] < '0' || s[0] > '9' ||
            v > (unsigned long long)std::numeric_limits<T>::max())
            return false;
        *out = (T)v;
        return true;
    }
}

/* Reads NAME=VALUE (the last one given wins) into *out; false, with
 * "tilepp-tune: <kernel> needs NAME=<integer>" on stderr, when it is
 * missing or malformed. */
template <class T> bool tile_tune_arg(int argc, const char *const *argv, const char *kernel, const char *name, T *out)
{
    static_assert(std::is_arithmetic<T>::value, "tile_tune_arg reads numbers and bools");
    const size_t n = strlen(name);
    const char *value = nullptr;
    for (int i = 0; i < argc; i++)
        if (argv[i] && strncmp(argv[i], name, n) == 0 && argv[i][n] == '=')
            value = argv[i] + n + 1;
    const char *what = std::is_same<T, bool>::value ? "<0|1>" : std::is_integral<T>::value ? "<integer>" : "<number>";
    if (value && tile_tune_parse_scalar(value, out))
        return true;
    if (value)
        fprintf(stderr, "tilepp-tune: %s needs %s=%s, not %s=%s\n", kernel, name, what, name, value);
    else
        fprintf(stderr, "tilepp-tune: %s needs %s=%s\n", kernel, name, what);
    return false;
}

#endif /* TILEPP_TILE_TUNE_CUH */

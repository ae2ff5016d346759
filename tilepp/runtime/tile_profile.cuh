/* tile_profile.cuh — what a launcher does around its launches: the profiler
 * behind TILEPP_PROFILE, the checks behind TILEPP_DEBUG, and the report of a
 * failed call with the kernel's name and source line.
 *
 * Every generated launcher opens a tile_profile_scope. What it does is read
 * from the environment once per process:
 *
 *   TILEPP_PROFILE unset, empty or 0   nothing (one test of a static flag)
 *   TILEPP_PROFILE=1                   each call timed with two CUDA events
 *                                      on the caller's stream, an NVTX range
 *                                      around it, a table on stderr at exit
 *   TILEPP_PROFILE=nvtx                the NVTX ranges only (for Nsight
 *                                      Systems, which times the kernels
 *                                      itself)
 *   TILEPP_DEBUG=1                     each call waits for its stream, so a
 *                                      fault inside a kernel (an illegal
 *                                      address, a trap) is returned by the
 *                                      call that caused it and reported with
 *                                      the kernel's name and line
 *
 * A call that fails (a launch error, an impossible loop, a fault seen under
 * TILEPP_DEBUG) says so on stderr once per kernel and process:
 *   tilepp: gemm (gemm.c:12), device 0: launch failed: cudaErrorInvalidValue (invalid argument)
 *
 * A call is the launcher as a whole (all the kernels one C function became),
 * on the stream it was given; its time is GPU time between the two events.
 * The table has a row per kernel, code path and device: calls, total, median
 * and minimum time, and TFLOP/s and GB/s (total declared work over total
 * time) where the kernel declares `flops(...)` / `bytes(...)`. Calls made
 * while the stream is being captured into a CUDA graph are not timed (events
 * recorded in a capture do not time the replay). One table per program or
 * shared library that holds generated launchers. */
#ifndef TILEPP_TILE_PROFILE_CUH
#define TILEPP_TILE_PROFILE_CUH

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h> /* header-only: calls are no-ops unless a tool (Nsight) is attached */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

/* What a launcher says about itself: its C function, where it is, and the
 * NVTX range name ("gemm (gemm.c:12)"); `reported` keeps a failing kernel
 * from repeating its report. */
struct tile_kernel_info {
    const char *name;
    const char *where;
    const char *label;
    std::atomic<bool> reported;
};

/* Set by the autotuner (tile_tune.cuh) around the launches it makes while
 * tuning: on this thread they are neither timed for the table nor reported
 * as failed (the tuner reports them itself). Per thread, so calls that other
 * threads make meanwhile are still counted. */
inline thread_local bool tile_profile_muted = false;

/* What the environment asked for, as bits. */
enum { TILE_RUN_TABLE = 1, TILE_RUN_NVTX = 2, TILE_RUN_SYNC = 4 };

static inline int tile_run_flags_from_env()
{
    int flags = 0;
    const char *v = getenv("TILEPP_PROFILE");
    if (v && strcmp(v, "1") == 0)
        flags |= TILE_RUN_TABLE | TILE_RUN_NVTX;
    else if (v && strcmp(v, "nvtx") == 0)
        flags |= TILE_RUN_NVTX;
    else if (v && *v && strcmp(v, "0") != 0)
        fprintf(stderr, "tilepp: TILEPP_PROFILE=%s: expected 0, 1 or nvtx; profiling is off\n", v);
    v = getenv("TILEPP_DEBUG");
    if (v && strcmp(v, "1") == 0)
        flags |= TILE_RUN_SYNC;
    else if (v && *v && strcmp(v, "0") != 0)
        fprintf(stderr, "tilepp: TILEPP_DEBUG=%s: expected 0 or 1; ignored\n", v);
    return flags;
}

/* Read once per process (per shared library holding launchers). */
inline int tile_run_flags()
{
    static const int flags = tile_run_flags_from_env();
    return flags;
}

/* One timed call, until its events are read. */
struct tile_profile_call {
    const tile_kernel_info *kernel;
    const char *path;
    int device;
    double flops, bytes; /* < 0: not declared */
    cudaEvent_t start, stop;
};

/* The calls of one kernel on one path and device. */
struct tile_profile_row {
    const tile_kernel_info *kernel;
    const char *path;
    int device;
    std::vector<float> ms;
    double flops = 0, bytes = 0;
    bool all_flops = true, all_bytes = true;
};

struct tile_profile_state {
    std::mutex lock;
    std::vector<tile_profile_call> pending; /* in the order they were recorded */
    std::vector<cudaEvent_t> spare;
    std::vector<tile_profile_row> rows;
    long long lost = 0; /* calls whose events could not be read */
    bool registered = false;
};

/* Never destroyed: the table is printed from an atexit handler, and a
 * destructor of a static could run before it. */
inline tile_profile_state &tile_profile_state_get()
{
    static tile_profile_state *state = new tile_profile_state;
    return *state;
}

static inline void tile_profile_add(tile_profile_state &s, const tile_profile_call &c, float ms)
{
    tile_profile_row *row = nullptr;
    for (auto &r : s.rows)
        if (r.kernel == c.kernel && r.path == c.path && r.device == c.device)
            row = &r;
    if (!row) {
        s.rows.emplace_back();
        row = &s.rows.back();
        row->kernel = c.kernel;
        row->path = c.path;
        row->device = c.device;
    }
    row->ms.push_back(ms);
    row->all_flops &= c.flops >= 0;
    row->all_bytes &= c.bytes >= 0;
    row->flops += c.flops > 0 ? c.flops : 0;
    row->bytes += c.bytes > 0 ? c.bytes : 0;
}

/* Reads the calls whose stop event has completed (all of them, waiting, when
 * `wait`), oldest first; the events go back to the spare list. */
static inline void tile_profile_harvest(tile_profile_state &s, bool wait)
{
    size_t kept = 0;
    for (size_t i = 0; i < s.pending.size(); i++) {
        tile_profile_call &c = s.pending[i];
        cudaError_t err = wait ? cudaEventSynchronize(c.stop) : cudaEventQuery(c.stop);
        if (err == cudaErrorNotReady) {
            s.pending[kept++] = c;
            continue;
        }
        float ms = 0;
        if (err == cudaSuccess)
            err = cudaEventElapsedTime(&ms, c.start, c.stop);
        if (err == cudaSuccess)
            tile_profile_add(s, c, ms);
        else
            s.lost++;
        s.spare.push_back(c.start);
        s.spare.push_back(c.stop);
    }
    s.pending.resize(kept);
    (void)cudaGetLastError(); /* a failed query is not the caller's error */
}

static inline double tile_profile_median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static inline void tile_profile_print(FILE *f, tile_profile_state &s)
{
    if (s.rows.empty() && !s.lost)
        return;
    bool several_devices = false;
    for (const auto &r : s.rows)
        several_devices |= r.device != s.rows[0].device;
    fprintf(f, "\ntilepp profile (TILEPP_PROFILE=1): launcher calls, GPU time between CUDA events on their streams\n");
    fprintf(f, "%-24s %-22s %-7s%s %8s %11s %11s %11s %9s %9s\n", "kernel", "source", "path",
            several_devices ? " device" : "", "calls", "total ms", "median us", "min us", "TFLOP/s", "GB/s");
    for (const auto &r : s.rows) {
        double total = 0, least = r.ms[0];
        for (float ms : r.ms) {
            total += ms;
            least = ms < least ? ms : least;
        }
        fprintf(f, "%-24s %-22s %-7s", r.kernel->name, r.kernel->where, r.path);
        if (several_devices)
            fprintf(f, " %6d", r.device);
        fprintf(f, " %8zu %11.3f %11.2f %11.2f", r.ms.size(), total, 1e3 * tile_profile_median(r.ms), 1e3 * least);
        if (r.all_flops && total > 0)
            fprintf(f, " %9.2f", r.flops / (total * 1e-3) / 1e12);
        else
            fprintf(f, " %9s", "-");
        if (r.all_bytes && total > 0)
            fprintf(f, " %9.1f\n", r.bytes / (total * 1e-3) / 1e9);
        else
            fprintf(f, " %9s\n", "-");
    }
    if (s.lost)
        fprintf(f, "(%lld calls not counted: their events could not be read)\n", s.lost);
}

static inline void tile_profile_at_exit()
{
    tile_profile_state &s = tile_profile_state_get();
    std::lock_guard<std::mutex> guard(s.lock);
    tile_profile_harvest(s, true);
    tile_profile_print(stderr, s);
}

/* Opened at the top of a launcher, closed when it returns. With nothing
 * asked of it, the constructor tests one static and nothing else runs. */
struct tile_profile_scope {
    tile_kernel_info *kernel;
    cudaStream_t stream;
    int flags;
    bool timing = false, ok = false;
    const char *path = "sm_80"; /* a launcher that runs an sm_90a variant says so */
    double flops = -1, bytes = -1;
    cudaEvent_t start = nullptr;

    tile_profile_scope(tile_kernel_info *k, cudaStream_t s) : kernel(k), stream(s), flags(tile_run_flags())
    {
        if (flags & (TILE_RUN_TABLE | TILE_RUN_NVTX))
            begin();
    }
    tile_profile_scope(const tile_profile_scope &) = delete;
    tile_profile_scope &operator=(const tile_profile_scope &) = delete;

    void begin()
    {
        nvtxRangePushA(kernel->label);
        if (!(flags & TILE_RUN_TABLE) || tile_profile_muted)
            return;
        cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
        if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess || capture != cudaStreamCaptureStatusNone) {
            (void)cudaGetLastError();
            return;
        }
        start = take_event();
        timing = start && cudaEventRecord(start, stream) == cudaSuccess;
    }

    /* The launcher's work, evaluated only when it is timed. */
    void work(double f, double b)
    {
        flops = f;
        bytes = b;
    }

    /* The launcher's last word when every launch went out: under
     * TILEPP_DEBUG it waits for them and returns (and reports) a fault. */
    cudaError_t done()
    {
        ok = true;
        if (!(flags & TILE_RUN_SYNC))
            return cudaSuccess;
        cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
        if (cudaStreamIsCapturing(stream, &capture) == cudaSuccess && capture != cudaStreamCaptureStatusNone)
            return cudaSuccess; /* nothing runs during a capture */
        cudaError_t err = cudaStreamSynchronize(stream);
        if (err != cudaSuccess) {
            ok = false;
            report(err, "failed while running");
        }
        return err;
    }

    /* A failed call: says why on stderr (once per kernel) and returns err. */
    cudaError_t failed(const tile_device *d, cudaError_t err, const char *what = "launch failed")
    {
        (void)tile_launch_failed(d, err); /* a missing architecture gets its own line */
        report(err, what);
        return err;
    }

    void report(cudaError_t err, const char *what)
    {
        if (tile_profile_muted || kernel->reported.exchange(true))
            return;
        int device = -1;
        (void)cudaGetDevice(&device);
        fprintf(stderr, "tilepp: %s, device %d: %s: %s (%s)\n", kernel->label, device, what, cudaGetErrorName(err),
                cudaGetErrorString(err));
    }

    static cudaEvent_t take_event()
    {
        tile_profile_state &s = tile_profile_state_get();
        {
            std::lock_guard<std::mutex> guard(s.lock);
            if (!s.spare.empty()) {
                cudaEvent_t e = s.spare.back();
                s.spare.pop_back();
                return e;
            }
        }
        cudaEvent_t e = nullptr;
        if (cudaEventCreate(&e) != cudaSuccess) {
            (void)cudaGetLastError();
            return nullptr;
        }
        return e;
    }

    void finish()
    {
        tile_profile_state &s = tile_profile_state_get();
        cudaEvent_t stop = ok ? take_event() : nullptr;
        if (!stop || cudaEventRecord(stop, stream) != cudaSuccess) { /* a failed call is not counted */
            std::lock_guard<std::mutex> guard(s.lock);
            s.spare.push_back(start);
            if (stop)
                s.spare.push_back(stop);
            return;
        }
        int device = 0;
        (void)cudaGetDevice(&device);
        std::lock_guard<std::mutex> guard(s.lock);
        if (!s.registered) {
            s.registered = true;
            atexit(tile_profile_at_exit);
        }
        s.pending.push_back({kernel, path, device, flops, bytes, start, stop});
        if (s.pending.size() >= 256) /* keep the number of live events bounded */
            tile_profile_harvest(s, false);
    }

    ~tile_profile_scope()
    {
        if (!(flags & (TILE_RUN_TABLE | TILE_RUN_NVTX)))
            return;
        if (timing)
            finish();
        nvtxRangePop();
    }
};

#endif /* TILEPP_TILE_PROFILE_CUH */

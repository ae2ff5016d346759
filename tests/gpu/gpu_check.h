/* gpu_check.h — the harness of the GPU tests: one "case" runs a kernel's CPU
 * reference and its generated launcher on the same random inputs and checks
 * the GPU outputs element by element.
 *
 *   gc_case c;
 *   gc_begin(&c);
 *   gc_buf *x = gc_in(&c, GC_F32, n, 0), *y = gc_out(&c, GC_F32, n, 0, 1e-5);
 *   math_mix(n, x->host, y->host);                          // CPU reference
 *   gc_finish(&c, math_mix_gpu(n, x->dev, y->dev), "math_mix n=%d", n);
 *
 * A case must declare at least one output (it fails otherwise: a case that
 * compares nothing cannot fail). For every output gc_finish checks that
 *   - every element the C code writes was written (outputs start poisoned
 *     with 0xFF bytes, a NaN in every element type),
 *   - nothing before or after it was written (a guard of GC_GUARD elements
 *     on both sides of each output stays poisoned),
 *   - ||gpu - cpu|| / ||cpu|| < the output's tolerance.
 * Inputs are surrounded by NaNs too, so a kernel that reads outside its
 * buffers produces NaNs that the checks see.
 *
 * `offset` (in elements) shifts the pointer handed to the kernel from the
 * 256-byte aligned allocation: offset 1 makes it misaligned for 8- and
 * 16-byte accesses, so the kernel must take its scalar path.
 *
 * gc_gate_* check the stream variant of a launcher: the stream is held
 * closed by a host function while the launcher is called, and the test
 * verifies that the launch went into that stream (nothing has run while the
 * gate is closed), that the launcher did not block, and that the result is
 * right once the gate opens.
 *
 * Every case prints one PASS/FAIL line; gc_summary() prints
 * "N passed, N failed" and gives the exit status.
 *
 * The case itself (buffers, guards, poison, the checks, the PASS/FAIL line)
 * is tile_check_case of <tilepp/check.h>; gc_* are its names here, with the
 * seeds counted up case by case, the pass/fail counts and the stream gate
 * added. SU_CHECK is TILE_CHECK_CUDA under the tests' shorter name. */
#ifndef TILEPP_GPU_CHECK_H
#define TILEPP_GPU_CHECK_H

#include <stdarg.h>
#include <stdatomic.h>
#include <threads.h>
#include <time.h>

#include <tilepp/check.h>
#include <tilepp/tile.h>

#define SU_CHECK(call) TILE_CHECK_CUDA(call)

enum { GC_GUARD = TILE_CHECK_GUARD, GC_MAX_BUFS = TILE_CHECK_MAX_BUFS };

typedef tile_check_type gc_type;
#define GC_F32 TILE_CHECK_F32
#define GC_F16 TILE_CHECK_F16
#define GC_BF16 TILE_CHECK_BF16

typedef tile_check_buf gc_buf;
typedef tile_check_case gc_case;

static int gc_passed, gc_failed;
static uint64_t gc_seed_counter;

static inline size_t gc_size(gc_type t) { return tile_check_type_size(t); }

/* Each case gets the next seed: 1, 2, 3, ... */
static inline void gc_begin(gc_case *c) { tile_check_begin(c, ++gc_seed_counter); }

/* An input of n random elements in [-1, 1], none zero. */
static inline gc_buf *gc_in(gc_case *c, gc_type type, size_t n, size_t offset)
{
    return tile_check_in(c, type, n, offset);
}

/* An output of n elements; the CPU reference writes host, the kernel dev.
 * Both start poisoned; relative error < tol. */
static inline gc_buf *gc_out(gc_case *c, gc_type type, size_t n, size_t offset, double tol)
{
    return tile_check_out(c, type, n, offset, tol);
}

static inline size_t gc_count_nan(gc_type t, const void *p, size_t n, size_t *first)
{
    return tile_check_count_nan(t, p, n, first);
}

static inline double gc_rel_err(gc_type t, const void *out, const void *ref, size_t n)
{
    return tile_check_rel_err(t, out, t, ref, n);
}

static inline void gc_fail(gc_case *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tile_check_vfail(c, fmt, ap);
    va_end(ap);
}

/* Synchronizes, checks every output, prints the case's line, frees the
 * buffers. `launch` is what the launcher returned. Returns 1 on PASS. */
static inline int gc_finish(gc_case *c, cudaError_t launch, const char *label_fmt, ...)
{
    va_list ap;
    va_start(ap, label_fmt);
    int ok = tile_check_vfinish(c, launch, label_fmt, ap);
    va_end(ap);
    ok ? gc_passed++ : gc_failed++;
    return ok;
}

/* ---- stream variants -------------------------------------------------- */

typedef struct {
    cudaStream_t stream; /* handed to the launcher */
    cudaStream_t probe;  /* reads outputs while the gate is closed */
    atomic_int open, timed_out;
} gc_gate;

/* Holds the stream until the test opens the gate, or 10 s pass (so that a
 * launcher that waits for its stream cannot hang the test). */
static void CUDART_CB gc_gate_wait(void *arg)
{
    gc_gate *g = arg;
    struct timespec start, now, nap = {0, 1000000};
    timespec_get(&start, TIME_UTC);
    while (!atomic_load(&g->open)) {
        timespec_get(&now, TIME_UTC);
        if (now.tv_sec - start.tv_sec >= 10) {
            atomic_store(&g->timed_out, 1);
            return;
        }
        thrd_sleep(&nap, NULL);
    }
}

/* Non-blocking streams: the legacy default stream does not wait for them. */
static inline int gc_gate_close(gc_gate *g)
{
    atomic_store(&g->open, 0);
    atomic_store(&g->timed_out, 0);
    TILE_CHECK_CUDA_TRY(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    TILE_CHECK_CUDA_TRY(cudaStreamCreateWithFlags(&g->probe, cudaStreamNonBlocking));
    TILE_CHECK_CUDA_TRY(cudaLaunchHostFunc(g->stream, gc_gate_wait, g));
    return 0;
}

/* Call right after the launcher: while the gate is still closed, the
 * outputs must be untouched (the kernel waits in the stream) even after the
 * default streams drained; then opens the gate. */
static inline void gc_gate_open(gc_gate *g, gc_case *c)
{
    /* compute-sanitizer's initcheck makes every launch wait, so the launcher
     * blocks on the held stream: not its doing. sanitize_run.sh says so with
     * TILEPP_TEST_SERIALIZED=1 (the tool sets nothing a program can see). */
    const char *serialized = getenv("TILEPP_TEST_SERIALIZED");
    bool tool = serialized && strcmp(serialized, "1") == 0;
    if (atomic_load(&g->timed_out) && !tool)
        gc_fail(c, "the stream launcher blocked until its stream ran (not asynchronous)");
    if (cudaStreamSynchronize(cudaStreamLegacy) != cudaSuccess ||
        cudaStreamSynchronize(cudaStreamPerThread) != cudaSuccess)
        gc_fail(c, "synchronizing the default streams failed");
    for (int i = 0; i < c->nbufs && !atomic_load(&g->timed_out); i++) {
        gc_buf *b = &c->bufs[i];
        if (!b->is_output)
            continue;
        size_t bytes = b->n * gc_size(b->type);
        void *tmp = tile_check_xmalloc(bytes);
        if (cudaMemcpyAsync(tmp, b->dev, bytes, cudaMemcpyDeviceToHost, g->probe) != cudaSuccess ||
            cudaStreamSynchronize(g->probe) != cudaSuccess)
            gc_fail(c, "probing the outputs failed");
        else if (!tile_check_is_poisoned(tmp, bytes))
            gc_fail(c, "output %d was written while the given stream was held: the kernel ran "
                       "on another stream", i);
        free(tmp);
    }
    atomic_store(&g->open, 1);
    if (cudaStreamSynchronize(g->stream) != cudaSuccess)
        gc_fail(c, "the given stream failed");
    (void)cudaStreamDestroy(g->stream);
    (void)cudaStreamDestroy(g->probe);
}

/* ---- the end ------------------------------------------------------------ */

/* Exits 77 with "SKIPPED: ..." when there is no device. */
static inline void gc_require_gpu(void)
{
    tile_check_require_gpu();
    tile_check_print_device(stdout);
}

static inline int gc_summary(void)
{
    printf("%d passed, %d failed\n", gc_passed, gc_failed);
    return gc_failed == 0 && gc_passed > 0 ? 0 : 1;
}

#endif /* TILEPP_GPU_CHECK_H */

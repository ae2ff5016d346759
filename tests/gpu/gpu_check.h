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
 * "N passed, N failed" and gives the exit status. */
#ifndef TILEPP_GPU_CHECK_H
#define TILEPP_GPU_CHECK_H

#include <stdarg.h>
#include <stdatomic.h>
#include <threads.h>
#include <time.h>

#include "sample_util.h"

enum { GC_GUARD = 64, GC_MAX_BUFS = 8 };

typedef enum { GC_F32, GC_F16, GC_BF16 } gc_type;

static inline size_t gc_size(gc_type t)
{
    return t == GC_F32 ? sizeof(float) : t == GC_F16 ? sizeof(half) : sizeof(bfloat16);
}

typedef struct {
    gc_type type;
    size_t n;        /* elements the kernel sees */
    size_t offset;   /* elements from the allocation to the pointer passed */
    int is_output;
    double tol;      /* outputs: relative error bound */
    void *host;      /* inputs: the data; outputs: the CPU reference */
    void *dev_base;  /* GC_GUARD + offset + n + GC_GUARD elements */
    void *dev;       /* what the kernel gets */
} gc_buf;

typedef struct {
    gc_buf bufs[GC_MAX_BUFS];
    int nbufs;
    su_rng rng;
    char failure[256]; /* set by checks before gc_finish; "" when none */
} gc_case;

static int gc_passed, gc_failed;
static uint64_t gc_seed_counter;

static inline void gc_begin(gc_case *c)
{
    c->nbufs = 0;
    c->rng = su_rng_seed(++gc_seed_counter);
    c->failure[0] = '\0';
}

static inline gc_buf *gc_alloc(gc_case *c, gc_type type, size_t n, size_t offset)
{
    if (c->nbufs == GC_MAX_BUFS) {
        fprintf(stderr, "gpu_check.h: more than %d buffers in one case\n", GC_MAX_BUFS);
        exit(1);
    }
    gc_buf *b = &c->bufs[c->nbufs++];
    size_t es = gc_size(type), total = GC_GUARD + offset + n + GC_GUARD;
    *b = (gc_buf){.type = type, .n = n, .offset = offset};
    b->host = su_xmalloc(n * es);
    SU_CHECK(cudaMalloc(&b->dev_base, total * es));
    SU_CHECK(su_poison_device(b->dev_base, total * es));
    b->dev = (char *)b->dev_base + (GC_GUARD + offset) * es;
    return b;
}

/* An input of n random elements in [-1, 1], none zero. */
static inline gc_buf *gc_in(gc_case *c, gc_type type, size_t n, size_t offset)
{
    gc_buf *b = gc_alloc(c, type, n, offset);
    switch (type) {
    case GC_F32: su_fill_f32(b->host, n, &c->rng); break;
    case GC_F16: su_fill_f16(b->host, n, &c->rng); break;
    case GC_BF16: su_fill_bf16(b->host, n, &c->rng); break;
    }
    SU_CHECK(cudaMemcpy(b->dev, b->host, n * gc_size(type), cudaMemcpyHostToDevice));
    return b;
}

/* An output of n elements; the CPU reference writes host, the kernel dev.
 * Both start poisoned. */
static inline gc_buf *gc_out(gc_case *c, gc_type type, size_t n, size_t offset, double tol)
{
    gc_buf *b = gc_alloc(c, type, n, offset);
    b->is_output = 1;
    b->tol = tol;
    su_poison_host(b->host, n * gc_size(type));
    return b;
}

static inline size_t gc_count_nan(gc_type t, const void *p, size_t n, size_t *first)
{
    switch (t) {
    case GC_F32: return su_count_nan_f32(p, n, first);
    case GC_F16: return su_count_nan_f16(p, n, first);
    case GC_BF16: return su_count_nan_bf16(p, n, first);
    }
    return 0;
}

static inline double gc_rel_err(gc_type t, const void *out, const void *ref, size_t n)
{
    switch (t) {
    case GC_F32: return su_rel_err_f32(out, ref, n);
    case GC_F16: return su_rel_err_f16(out, ref, n);
    case GC_BF16: return su_rel_err_bf16(out, ref, n);
    }
    return NAN;
}

static inline void gc_fail(gc_case *c, const char *fmt, ...)
{
    if (c->failure[0])
        return; /* keep the first */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->failure, sizeof c->failure, fmt, ap);
    va_end(ap);
}

/* Checks one output after the kernel ran; returns its relative error. */
static inline double gc_check_output(gc_case *c, int index, gc_buf *b)
{
    size_t es = gc_size(b->type), total = GC_GUARD + b->offset + b->n + GC_GUARD;
    size_t before = GC_GUARD + b->offset, first;
    unsigned char *all = su_xmalloc(total * es);
    double err = NAN;
    cudaError_t copy;

    if (gc_count_nan(b->type, b->host, b->n, &first)) {
        gc_fail(c, "output %d: the CPU reference left element %zu unwritten (test bug)", index,
                first);
    } else if ((copy = cudaMemcpy(all, b->dev_base, total * es, cudaMemcpyDeviceToHost))) {
        gc_fail(c, "output %d: copy back failed: %s", index, cudaGetErrorString(copy));
    } else {
        const unsigned char *out = all + before * es;
        size_t unwritten = gc_count_nan(b->type, out, b->n, &first);
        err = gc_rel_err(b->type, out, b->host, b->n);
        if (!su_still_poisoned(all, before * es))
            gc_fail(c, "output %d: written before its start", index);
        else if (!su_still_poisoned(out + b->n * es, GC_GUARD * es))
            gc_fail(c, "output %d: written past its end", index);
        else if (unwritten)
            gc_fail(c, "output %d: %zu of %zu elements not written (first at %zu)", index,
                    unwritten, b->n, first);
        else if (!(err < b->tol))
            gc_fail(c, "output %d: relative error %.3g >= %.0e", index, err, b->tol);
    }
    free(all);
    return err;
}

/* Synchronizes, checks every output, prints the case's line, frees the
 * buffers. `launch` is what the launcher returned. Returns 1 on PASS. */
static inline int gc_finish(gc_case *c, cudaError_t launch, const char *label_fmt, ...)
{
    char label[160];
    va_list ap;
    va_start(ap, label_fmt);
    vsnprintf(label, sizeof label, label_fmt, ap);
    va_end(ap);

    double worst = 0.0;
    int outputs = 0;
    for (int i = 0; i < c->nbufs; i++)
        outputs += c->bufs[i].is_output;
    if (outputs == 0) /* a case that compares nothing cannot fail: a test bug */
        gc_fail(c, "the case declares no output to compare (gc_out)");
    cudaError_t sync = cudaDeviceSynchronize();
    if (launch != cudaSuccess)
        gc_fail(c, "launcher returned %s (%s)", cudaGetErrorName(launch), cudaGetErrorString(launch));
    else if (sync != cudaSuccess)
        gc_fail(c, "kernel failed: %s (%s)", cudaGetErrorName(sync), cudaGetErrorString(sync));
    else
        for (int i = 0; i < c->nbufs; i++)
            if (c->bufs[i].is_output) {
                double err = gc_check_output(c, i, &c->bufs[i]);
                if (!(err <= worst))
                    worst = err;
            }

    int ok = c->failure[0] == '\0';
    if (ok)
        printf("PASS  %-52s rel_err %.2g\n", label, worst);
    else
        printf("FAIL  %-52s %s\n", label, c->failure);
    fflush(stdout);
    ok ? gc_passed++ : gc_failed++;

    for (int i = 0; i < c->nbufs; i++) {
        free(c->bufs[i].host);
        (void)cudaFree(c->bufs[i].dev_base);
    }
    c->nbufs = 0;
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
    SU_TRY(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    SU_TRY(cudaStreamCreateWithFlags(&g->probe, cudaStreamNonBlocking));
    SU_TRY(cudaLaunchHostFunc(g->stream, gc_gate_wait, g));
    return 0;
}

/* Call right after the launcher: while the gate is still closed, the
 * outputs must be untouched (the kernel waits in the stream) even after the
 * default streams drained; then opens the gate. */
static inline void gc_gate_open(gc_gate *g, gc_case *c)
{
    if (atomic_load(&g->timed_out))
        gc_fail(c, "the stream launcher blocked until its stream ran (not asynchronous)");
    if (cudaStreamSynchronize(cudaStreamLegacy) != cudaSuccess ||
        cudaStreamSynchronize(cudaStreamPerThread) != cudaSuccess)
        gc_fail(c, "synchronizing the default streams failed");
    for (int i = 0; i < c->nbufs && !atomic_load(&g->timed_out); i++) {
        gc_buf *b = &c->bufs[i];
        if (!b->is_output)
            continue;
        size_t bytes = b->n * gc_size(b->type);
        void *tmp = su_xmalloc(bytes);
        if (cudaMemcpyAsync(tmp, b->dev, bytes, cudaMemcpyDeviceToHost, g->probe) != cudaSuccess ||
            cudaStreamSynchronize(g->probe) != cudaSuccess)
            gc_fail(c, "probing the outputs failed");
        else if (!su_still_poisoned(tmp, bytes))
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
    char reason[256];
    if (!su_gpu_available(reason, sizeof reason)) {
        printf("SKIPPED: no CUDA device (%s)\n", reason);
        exit(SU_EXIT_SKIP);
    }
    su_print_device(stdout);
}

static inline int gc_summary(void)
{
    printf("%d passed, %d failed\n", gc_passed, gc_failed);
    return gc_failed == 0 && gc_passed > 0 ? 0 : 1;
}

#endif /* TILEPP_GPU_CHECK_H */

/* tilepp/check.h — validation helpers: run a kernel's CPU reference and its
 * launcher on the same random inputs and compare the outputs.
 *
 * Header-only (every function is static inline), plain C11 that also
 * compiles as C++ and in CUDA files; it needs only the CUDA runtime API
 * (link cudart) and the C library (link -lm). Element types are handled by
 * their bits: tile_check_type names float, half (IEEE binary16) and
 * bfloat16, and buffers are `void *`, so the same calls serve C (where
 * <tilepp/tile.h> makes half _Float16) and C++ (where it is __half).
 *
 * The one-call comparison:
 *
 *   static void cpu(void *ctx, void *const *p) { vector_add(*(int *)ctx, p[0], p[1], p[2]); }
 *   static cudaError_t gpu(void *ctx, void *const *p) { return vector_add_gpu(*(int *)ctx, p[0], p[1], p[2]); }
 *   ...
 *   tile_check_arg args[] = {tile_check_input(TILE_CHECK_F32, n), tile_check_input(TILE_CHECK_F32, n),
 *                            tile_check_output(TILE_CHECK_F32, n, 1e-6)};
 *   int ok = tile_check_run("vector_add", args, 3, cpu, gpu, &n);   // prints PASS or FAIL
 *
 * (C; in C++ the p[i] need casts) runs cpu() on host buffers and gpu() on
 * device buffers: inputs random and the same on both sides, outputs
 * poisoned before (so an element the kernel does not write is still NaN
 * afterwards) and checked after, together with guard zones before and
 * after each output that must stay untouched.
 *
 * The parts, for harnesses of one's own:
 *   TILE_CHECK_CUDA(call)     a CUDA call that must succeed (else file:line, exit 1);
 *   TILE_CHECK_CUDA_TRY(call) the same, but `return -1` from the caller.
 *   tile_check_gpu_available, tile_check_require_gpu (exit 77: a skipped
 *     test), tile_check_print_device.
 *   tile_check_rng_*: splitmix64; tile_check_fill: uniform in [-1, 1] and
 *     never zero in the stored type (a zero input hides indexing mistakes:
 *     0 * anything is 0).
 *   tile_check_float_to_half / _half_to_float / _float_to_bf16 /
 *     _bf16_to_float: conversions by bits, round to nearest even, NaN kept.
 *   tile_check_poison (device) / tile_check_poison_host: 0xFF bytes, a NaN
 *     in float, half and bfloat16 alike; tile_check_is_poisoned,
 *     tile_check_count_nan.
 *   tile_check_rel_err: ||out - ref||_2 / ||ref||_2 in double. NaN when
 *     either side holds a NaN, +inf when an infinity is not matched by the
 *     same infinity, so both fail every `err < tol`.
 *   tile_check_isclose / tile_check_allclose: numpy's allclose (and
 *     TileLang's torch_assert_close): |out - ref| <= atol + rtol * |ref| for
 *     every element (ref is the reference: the test is not symmetric);
 *     infinities are close only to the same infinity; NaN is close to
 *     nothing unless equal_nan and both are NaN. A report gives the number
 *     of mismatches, the first, and the largest absolute and relative
 *     errors (TileLang's max_mismatched_ratio is mismatches <= ratio * n).
 *   tile_check_case: the harness tile_check_run is made of (begin, in,
 *     out, finish), with buffers at an offset from a 256-byte aligned
 *     allocation (offset 1 makes the pointer misaligned for vector accesses).
 *
 * Names start with tile_check_ and TILE_CHECK_ (tilepp reserves tile_). */
#ifndef TILEPP_CHECK_H
#define TILEPP_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

/* Exit status of a test that could not run (CTest's SKIP_RETURN_CODE). */
#define TILE_CHECK_EXIT_SKIP 77

#define TILE_CHECK_REPORT_CUDA_ERROR_(call_text, err)                                                                  \
    fprintf(stderr, "%s:%d: CUDA error in %s: %s (%s)\n", __FILE__, __LINE__, call_text, cudaGetErrorString(err),      \
            cudaGetErrorName(err))

/* A CUDA runtime call that must succeed: on failure prints file:line, the
 * call and the error, and exits with status 1. */
#define TILE_CHECK_CUDA(call)                                                                                          \
    do {                                                                                                               \
        cudaError_t tile_check_err_ = (call);                                                                          \
        if (tile_check_err_ != cudaSuccess) {                                                                          \
            TILE_CHECK_REPORT_CUDA_ERROR_(#call, tile_check_err_);                                                     \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

/* The same, returning -1 from the calling function instead of exiting. */
#define TILE_CHECK_CUDA_TRY(call)                                                                                      \
    do {                                                                                                               \
        cudaError_t tile_check_err_ = (call);                                                                          \
        if (tile_check_err_ != cudaSuccess) {                                                                          \
            TILE_CHECK_REPORT_CUDA_ERROR_(#call, tile_check_err_);                                                     \
            return -1;                                                                                                 \
        }                                                                                                              \
    } while (0)

/* ---- the device ------------------------------------------------------------ */

/* 1 when at least one CUDA device is usable. Otherwise 0, with the reason
 * (the runtime's error string, or "0 devices") in reason[0..len). */
static inline int tile_check_gpu_available(char *reason, size_t len)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        snprintf(reason, len, "%s", cudaGetErrorString(err));
        (void)cudaGetLastError(); /* clear it, so that later calls start clean */
        return 0;
    }
    if (count == 0) {
        snprintf(reason, len, "0 devices");
        return 0;
    }
    if (len)
        reason[0] = '\0';
    return 1;
}

/* Without a device: prints "SKIPPED: no CUDA device (<reason>)" and exits
 * with TILE_CHECK_EXIT_SKIP, which CTest reports as a skipped test. */
static inline void tile_check_require_gpu(void)
{
    char reason[256];
    if (!tile_check_gpu_available(reason, sizeof reason)) {
        printf("SKIPPED: no CUDA device (%s)\n", reason);
        exit(TILE_CHECK_EXIT_SKIP);
    }
}

/* Prints "GPU: <name> (sm_XY, N SMs)" for the current device. */
static inline void tile_check_print_device(FILE *out)
{
    struct cudaDeviceProp prop;
    int dev = 0;
    TILE_CHECK_CUDA(cudaGetDevice(&dev));
    TILE_CHECK_CUDA(cudaGetDeviceProperties(&prop, dev));
    fprintf(out, "GPU: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
}

/* ---- memory ---------------------------------------------------------------- */

/* malloc that exits with a message on failure (0 bytes: a valid pointer). */
static inline void *tile_check_xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* cudaMalloc and a copy of `bytes` bytes from host; exits on failure. */
static inline void *tile_check_to_device(const void *host, size_t bytes)
{
    void *dev = NULL;
    TILE_CHECK_CUDA(cudaMalloc(&dev, bytes ? bytes : 1));
    if (bytes)
        TILE_CHECK_CUDA(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
    return dev;
}

/* ---- element types --------------------------------------------------------- */

typedef enum tile_check_type { TILE_CHECK_F32, TILE_CHECK_F16, TILE_CHECK_BF16 } tile_check_type;

static inline size_t tile_check_type_size(tile_check_type t) { return t == TILE_CHECK_F32 ? 4 : 2; }

static inline const char *tile_check_type_name(tile_check_type t)
{
    return t == TILE_CHECK_F32 ? "f32" : t == TILE_CHECK_F16 ? "f16" : "bf16";
}

static inline uint32_t tile_check_float_bits_(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float tile_check_bits_float_(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* float -> IEEE binary16 bits, round to nearest even: values from 65520 up
 * become infinity, values below 2^-25 zero (signs kept), subnormals exact
 * where they can be; a NaN stays a (quiet) NaN. */
static inline uint16_t tile_check_float_to_half(float f)
{
    uint32_t u = tile_check_float_bits_(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u) /* NaN: quiet, the payload's top bits kept */
        return (uint16_t)(sign | 0x7E00u | ((a >> 13) & 0x3FFu));
    if (a >= 0x477FF000u) /* >= 65520 = 65504 + half an ulp: rounds to infinity (infinity too) */
        return (uint16_t)(sign | 0x7C00u);
    if (a >= 0x38800000u) { /* >= 2^-14: normal; rebias the exponent 127 -> 15, round 13 bits off */
        uint32_t r = a - ((uint32_t)(127 - 15) << 23);
        r = (r + 0x0FFFu + ((r >> 13) & 1u)) >> 13; /* a carry moves into the exponent, as it should */
        return (uint16_t)(sign | r);
    }
    /* Subnormal (or zero): the value in units of 2^-24, rounded to even. */
    uint32_t e = a >> 23;
    if (e < 102) /* below 2^-25: rounds to zero */
        return sign;
    uint32_t mant = (a & 0x7FFFFFu) | 0x800000u; /* value = mant * 2^(e - 150) */
    uint32_t shift = 126 - e;                    /* value / 2^-24 = mant >> shift, 14 <= shift <= 24 */
    uint32_t m = mant >> shift, rest = mant & ((1u << shift) - 1u), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (m & 1u)))
        m++; /* 0x400 after a carry: the smallest normal, as it should */
    return (uint16_t)(sign | m);
}

/* IEEE binary16 bits -> float (exact). */
static inline float tile_check_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
    if (exp == 0x1F) /* infinity, NaN */
        return tile_check_bits_float_(sign | 0x7F800000u | (mant << 13));
    if (exp == 0) {                                     /* zero, subnormal: mant * 2^-24, exact in float */
        float v = (float)mant * 5.9604644775390625e-8f; /* 2^-24 */
        return sign ? -v : v;
    }
    return tile_check_bits_float_(sign | ((exp + 127 - 15) << 23) | (mant << 13));
}

/* float -> bfloat16 bits (the top half of the float), round to nearest
 * even; a NaN stays a (quiet) NaN. */
static inline uint16_t tile_check_float_to_bf16(float f)
{
    uint32_t u = tile_check_float_bits_(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u)
        return (uint16_t)((u >> 16) | 0x40u);
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

static inline float tile_check_bf16_to_float(uint16_t b) { return tile_check_bits_float_((uint32_t)b << 16); }

/* Element i of a buffer of type t, as a double (exact). */
static inline double tile_check_get(tile_check_type t, const void *p, size_t i)
{
    if (t == TILE_CHECK_F32) {
        float f;
        memcpy(&f, (const char *)p + 4 * i, sizeof f);
        return f;
    }
    uint16_t h;
    memcpy(&h, (const char *)p + 2 * i, sizeof h);
    return t == TILE_CHECK_F16 ? tile_check_half_to_float(h) : tile_check_bf16_to_float(h);
}

/* Stores v (rounded to the type, to nearest even) as element i. */
static inline void tile_check_set(tile_check_type t, void *p, size_t i, float v)
{
    if (t == TILE_CHECK_F32) {
        memcpy((char *)p + 4 * i, &v, sizeof v);
        return;
    }
    uint16_t h = t == TILE_CHECK_F16 ? tile_check_float_to_half(v) : tile_check_float_to_bf16(v);
    memcpy((char *)p + 2 * i, &h, sizeof h);
}

/* ---- random inputs ----------------------------------------------------------- */

typedef struct tile_check_rng {
    uint64_t state;
} tile_check_rng;

static inline uint64_t tile_check_mix64_(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The seed is mixed into the state, so that seeds 1, 2, 3... start far
 * apart (a state of seed * step would make seed s + 1's draws those of s,
 * one later). */
static inline tile_check_rng tile_check_rng_seed(uint64_t seed)
{
    tile_check_rng r = {tile_check_mix64_(seed + 0x632BE59BD9B4E019ull)};
    return r;
}

/* splitmix64 */
static inline uint64_t tile_check_rng_next(tile_check_rng *r)
{
    return tile_check_mix64_(r->state += 0x9E3779B97F4A7C15ull);
}

/* Uniform in [-1, 1], never 0: 23 random bits k map onto (2k + 1) * 2^-23 - 1,
 * the odd multiples of 2^-23 in (-1, 1); every step is exact in float. */
static inline float tile_check_rng_uniform(tile_check_rng *r)
{
    uint32_t bits = (uint32_t)(tile_check_rng_next(r) >> 41); /* 23 bits */
    return ((float)bits * 2.0f + 1.0f) / 8388608.0f - 1.0f;
}

/* n elements uniform in [-1, 1], none zero in the stored type: half and
 * bfloat16 round the float draw to nearest even. The smallest draw, 2^-23,
 * is 2 units of half's smallest subnormal, so none rounds to zero; the
 * loop draws again if one ever did. */
static inline void tile_check_fill(tile_check_type t, void *p, size_t n, tile_check_rng *r)
{
    for (size_t i = 0; i < n; i++)
        do
            tile_check_set(t, p, i, tile_check_rng_uniform(r));
        while (tile_check_get(t, p, i) == 0.0);
}

/* ---- poison ---------------------------------------------------------------- */

/* 0xFF in every byte: a NaN in float, half and bfloat16. */
static inline cudaError_t tile_check_poison(void *dev, size_t bytes) { return cudaMemset(dev, 0xFF, bytes); }

static inline void tile_check_poison_host(void *host, size_t bytes) { memset(host, 0xFF, bytes); }

/* 1 when every byte of p[0..bytes) is still 0xFF (nothing wrote there). */
static inline int tile_check_is_poisoned(const void *p, size_t bytes)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < bytes; i++)
        if (b[i] != 0xFF)
            return 0;
    return 1;
}

/* The number of NaN elements; *first (when not NULL) gets the index of the
 * first, or n. */
static inline size_t tile_check_count_nan(tile_check_type t, const void *p, size_t n, size_t *first)
{
    size_t count = 0;
    if (first)
        *first = n;
    for (size_t i = 0; i < n; i++)
        if (isnan(tile_check_get(t, p, i)) && count++ == 0 && first)
            *first = i;
    return count;
}

/* ---- errors ---------------------------------------------------------------- */

/* sqrt(diff2 / ref2), the relative 2-norm error from its two sums of
 * squares; the absolute error sqrt(diff2) when the reference is all zeros. */
static inline double tile_check_rel_err_finish(double diff2, double ref2)
{
    return ref2 > 0.0 ? sqrt(diff2 / ref2) : sqrt(diff2);
}

/* ||out - ref||_2 / ||ref||_2 over n elements (each side of its own type),
 * in double. NaN when out or ref holds a NaN; an infinity matched by the
 * same infinity is an exact element, any other infinity makes it +inf. */
static inline double tile_check_rel_err(tile_check_type out_type, const void *out, tile_check_type ref_type,
                                        const void *ref, size_t n)
{
    double diff2 = 0.0, ref2 = 0.0;
    int unmatched_inf = 0;
    for (size_t i = 0; i < n; i++) {
        double o = tile_check_get(out_type, out, i), r = tile_check_get(ref_type, ref, i);
        if (isnan(o) || isnan(r))
            return NAN;
        if (isinf(o) || isinf(r)) {
            unmatched_inf |= o != r;
            continue;
        }
        diff2 += (o - r) * (o - r);
        ref2 += r * r;
    }
    return unmatched_inf ? INFINITY : tile_check_rel_err_finish(diff2, ref2);
}

/* numpy.isclose(out, ref, rtol, atol, equal_nan) for one element. */
static inline int tile_check_isclose(double out, double ref, double rtol, double atol, int equal_nan)
{
    if (isnan(out) || isnan(ref))
        return equal_nan && isnan(out) && isnan(ref);
    if (isinf(out) || isinf(ref))
        return out == ref;
    return fabs(out - ref) <= atol + rtol * fabs(ref);
}

/* What tile_check_allclose found. The largest errors are over the elements
 * where both sides are finite; max_rel_err over those whose ref is not 0. */
typedef struct tile_check_close {
    size_t n;          /* elements compared */
    size_t mismatches; /* elements not close */
    size_t first;      /* index of the first mismatch, or n */
    double first_out;  /* its values */
    double first_ref;
    double max_abs_err; /* max |out - ref| */
    double max_rel_err; /* max |out - ref| / |ref| */
} tile_check_close;

/* numpy.allclose: 1 when every element of out is close to ref (see
 * tile_check_isclose), else 0. report may be NULL. */
static inline int tile_check_allclose(tile_check_type out_type, const void *out, tile_check_type ref_type,
                                      const void *ref, size_t n, double rtol, double atol, int equal_nan,
                                      tile_check_close *report)
{
    tile_check_close r;
    memset(&r, 0, sizeof r);
    r.n = n;
    r.first = n;
    for (size_t i = 0; i < n; i++) {
        double o = tile_check_get(out_type, out, i), f = tile_check_get(ref_type, ref, i);
        if (!tile_check_isclose(o, f, rtol, atol, equal_nan) && r.mismatches++ == 0) {
            r.first = i;
            r.first_out = o;
            r.first_ref = f;
        }
        if (isfinite(o) && isfinite(f)) {
            double d = fabs(o - f);
            if (d > r.max_abs_err)
                r.max_abs_err = d;
            if (f != 0.0 && d / fabs(f) > r.max_rel_err)
                r.max_rel_err = d / fabs(f);
        }
    }
    if (report)
        *report = r;
    return r.mismatches == 0;
}

/* One line about a report: "3 of 1000 not close (first [17]: 0.5 vs 0.25);
 * max abs err 0.25, max rel err 1". */
static inline void tile_check_close_describe(const tile_check_close *r, char *buf, size_t len)
{
    if (r->mismatches)
        snprintf(buf, len, "%zu of %zu not close (first [%zu]: %.7g vs %.7g); max abs err %.3g, max rel err %.3g",
                 r->mismatches, r->n, r->first, r->first_out, r->first_ref, r->max_abs_err, r->max_rel_err);
    else
        snprintf(buf, len, "all %zu close; max abs err %.3g, max rel err %.3g", r->n, r->max_abs_err, r->max_rel_err);
}

/* ---- a case: CPU reference and launcher on the same inputs ------------------- */

enum { TILE_CHECK_GUARD = 64, TILE_CHECK_MAX_BUFS = 8 };

/* One buffer of a case. Inputs: host holds the random data, dev a copy.
 * Outputs: host is what the CPU reference writes, dev what the kernel does;
 * both start poisoned, and TILE_CHECK_GUARD poisoned elements on each side
 * of dev (inputs too: a read past the end gets NaNs) must stay poisoned. */
typedef struct tile_check_buf {
    tile_check_type type;
    size_t n;      /* elements the kernel sees */
    size_t offset; /* elements from the allocation to the pointer passed */
    int is_output;
    double tol;        /* outputs: bound on tile_check_rel_err (0: not checked) */
    double rtol, atol; /* outputs: allclose as well, when either is > 0 */
    void *host;
    void *dev_base; /* TILE_CHECK_GUARD + offset + n + TILE_CHECK_GUARD elements */
    void *dev;      /* what the kernel gets */
} tile_check_buf;

typedef struct tile_check_case {
    tile_check_buf bufs[TILE_CHECK_MAX_BUFS];
    int nbufs;
    tile_check_rng rng;
    char failure[256]; /* the first failure; "" when none */
    double worst;      /* after tile_check_finish: the largest relative error of the outputs */
} tile_check_case;

static inline void tile_check_begin(tile_check_case *c, uint64_t seed)
{
    c->nbufs = 0;
    c->rng = tile_check_rng_seed(seed);
    c->failure[0] = '\0';
    c->worst = 0.0;
}

/* Records a failure (the first one is kept), printf-style. */
static inline void tile_check_vfail(tile_check_case *c, const char *fmt, va_list ap)
{
    if (!c->failure[0])
        vsnprintf(c->failure, sizeof c->failure, fmt, ap);
}

static inline void tile_check_fail(tile_check_case *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tile_check_vfail(c, fmt, ap);
    va_end(ap);
}

static inline tile_check_buf *tile_check_alloc_(tile_check_case *c, tile_check_type type, size_t n, size_t offset)
{
    if (c->nbufs == TILE_CHECK_MAX_BUFS) {
        fprintf(stderr, "tilepp/check.h: more than %d buffers in one case\n", TILE_CHECK_MAX_BUFS);
        exit(1);
    }
    tile_check_buf *b = &c->bufs[c->nbufs++];
    size_t es = tile_check_type_size(type), total = TILE_CHECK_GUARD + offset + n + TILE_CHECK_GUARD;
    memset(b, 0, sizeof *b);
    b->type = type;
    b->n = n;
    b->offset = offset;
    b->host = tile_check_xmalloc(n * es);
    TILE_CHECK_CUDA(cudaMalloc(&b->dev_base, total * es));
    TILE_CHECK_CUDA(tile_check_poison(b->dev_base, total * es));
    b->dev = (char *)b->dev_base + (TILE_CHECK_GUARD + offset) * es;
    return b;
}

/* An input of n random elements (tile_check_fill), on both sides. */
static inline tile_check_buf *tile_check_in(tile_check_case *c, tile_check_type type, size_t n, size_t offset)
{
    tile_check_buf *b = tile_check_alloc_(c, type, n, offset);
    tile_check_fill(type, b->host, n, &c->rng);
    TILE_CHECK_CUDA(cudaMemcpy(b->dev, b->host, n * tile_check_type_size(type), cudaMemcpyHostToDevice));
    return b;
}

/* An output of n elements, checked by its relative error: < tol. */
static inline tile_check_buf *tile_check_out(tile_check_case *c, tile_check_type type, size_t n, size_t offset,
                                             double tol)
{
    tile_check_buf *b = tile_check_alloc_(c, type, n, offset);
    b->is_output = 1;
    b->tol = tol;
    tile_check_poison_host(b->host, n * tile_check_type_size(type));
    return b;
}

/* An output checked by tile_check_allclose(rtol, atol), NaN never close. */
static inline tile_check_buf *tile_check_out_close(tile_check_case *c, tile_check_type type, size_t n, size_t offset,
                                                   double rtol, double atol)
{
    tile_check_buf *b = tile_check_out(c, type, n, offset, 0.0);
    b->rtol = rtol;
    b->atol = atol;
    return b;
}

/* Checks output `index` after the kernel ran; returns its relative error. */
static inline double tile_check_output_(tile_check_case *c, int index, tile_check_buf *b)
{
    size_t es = tile_check_type_size(b->type), total = TILE_CHECK_GUARD + b->offset + b->n + TILE_CHECK_GUARD;
    size_t before = TILE_CHECK_GUARD + b->offset, first;
    unsigned char *all = (unsigned char *)tile_check_xmalloc(total * es);
    double err = NAN;
    cudaError_t copy;

    if (tile_check_count_nan(b->type, b->host, b->n, &first)) {
        tile_check_fail(c, "output %d: the CPU reference left element %zu unwritten (test bug)", index, first);
    } else if ((copy = cudaMemcpy(all, b->dev_base, total * es, cudaMemcpyDeviceToHost)) != cudaSuccess) {
        tile_check_fail(c, "output %d: copy back failed: %s", index, cudaGetErrorString(copy));
    } else {
        const unsigned char *out = all + before * es;
        size_t unwritten = tile_check_count_nan(b->type, out, b->n, &first);
        tile_check_close close;
        int use_close = b->rtol > 0.0 || b->atol > 0.0;
        err = tile_check_rel_err(b->type, out, b->type, b->host, b->n);
        if (!tile_check_is_poisoned(all, before * es))
            tile_check_fail(c, "output %d: written before its start", index);
        else if (!tile_check_is_poisoned(out + b->n * es, TILE_CHECK_GUARD * es))
            tile_check_fail(c, "output %d: written past its end", index);
        else if (unwritten)
            tile_check_fail(c, "output %d: %zu of %zu elements not written (first at %zu)", index, unwritten, b->n,
                            first);
        else if (!(b->tol > 0.0) && !use_close)
            tile_check_fail(c, "output %d: neither a tolerance nor rtol/atol to check it by (test bug)", index);
        else if (b->tol > 0.0 && !(err < b->tol))
            tile_check_fail(c, "output %d: relative error %.3g >= %.0e", index, err, b->tol);
        else if (use_close && !tile_check_allclose(b->type, out, b->type, b->host, b->n, b->rtol, b->atol, 0, &close)) {
            char text[200];
            tile_check_close_describe(&close, text, sizeof text);
            tile_check_fail(c, "output %d (rtol %.0e, atol %.0e): %s", index, b->rtol, b->atol, text);
        }
    }
    free(all);
    return err;
}

/* Synchronizes, checks every output (see tile_check_buf), prints
 * "PASS  <label>  rel_err E" or "FAIL  <label>  <why>" to stdout and frees
 * the buffers. `launch` is what the launcher returned. Returns 1 on PASS. */
static inline int tile_check_vfinish(tile_check_case *c, cudaError_t launch, const char *label_fmt, va_list ap)
{
    char label[160];
    vsnprintf(label, sizeof label, label_fmt, ap);

    int outputs = 0;
    for (int i = 0; i < c->nbufs; i++)
        outputs += c->bufs[i].is_output;
    if (outputs == 0) /* a case that compares nothing cannot fail: a test bug */
        tile_check_fail(c, "the case declares no output to compare");
    cudaError_t sync = cudaDeviceSynchronize();
    c->worst = 0.0;
    if (launch != cudaSuccess)
        tile_check_fail(c, "launcher returned %s (%s)", cudaGetErrorName(launch), cudaGetErrorString(launch));
    else if (sync != cudaSuccess)
        tile_check_fail(c, "kernel failed: %s (%s)", cudaGetErrorName(sync), cudaGetErrorString(sync));
    else
        for (int i = 0; i < c->nbufs; i++)
            if (c->bufs[i].is_output) {
                double err = tile_check_output_(c, i, &c->bufs[i]);
                if (!(err <= c->worst))
                    c->worst = err;
            }

    int ok = c->failure[0] == '\0';
    if (ok)
        printf("PASS  %-52s rel_err %.2g\n", label, c->worst);
    else
        printf("FAIL  %-52s %s\n", label, c->failure);
    fflush(stdout);

    for (int i = 0; i < c->nbufs; i++) {
        free(c->bufs[i].host);
        (void)cudaFree(c->bufs[i].dev_base);
    }
    c->nbufs = 0;
    return ok;
}

static inline int tile_check_finish(tile_check_case *c, cudaError_t launch, const char *label_fmt, ...)
{
    va_list ap;
    va_start(ap, label_fmt);
    int ok = tile_check_vfinish(c, launch, label_fmt, ap);
    va_end(ap);
    return ok;
}

/* ---- the one-call comparison --------------------------------------------------- */

typedef enum tile_check_role { TILE_CHECK_INPUT, TILE_CHECK_OUTPUT } tile_check_role;

/* One argument buffer of tile_check_run; make them with the three
 * functions below. */
typedef struct tile_check_arg {
    tile_check_role role;
    tile_check_type type;
    size_t n;
    double tol, rtol, atol;
} tile_check_arg;

/* n random elements, the same for the CPU function and the launcher. */
static inline tile_check_arg tile_check_input(tile_check_type type, size_t n)
{
    tile_check_arg a;
    memset(&a, 0, sizeof a);
    a.role = TILE_CHECK_INPUT;
    a.type = type;
    a.n = n;
    return a;
}

/* n elements written by both; passes when tile_check_rel_err < tol. */
static inline tile_check_arg tile_check_output(tile_check_type type, size_t n, double tol)
{
    tile_check_arg a = tile_check_input(type, n);
    a.role = TILE_CHECK_OUTPUT;
    a.tol = tol;
    return a;
}

/* n elements written by both; passes when tile_check_allclose(rtol, atol). */
static inline tile_check_arg tile_check_output_close(tile_check_type type, size_t n, double rtol, double atol)
{
    tile_check_arg a = tile_check_output(type, n, 0.0);
    a.rtol = rtol;
    a.atol = atol;
    return a;
}

/* args[i] is host pointer i (cpu) or device pointer i (gpu), in the order of
 * the arguments given to tile_check_run. */
typedef void (*tile_check_cpu_fn)(void *ctx, void *const *args);
typedef cudaError_t (*tile_check_gpu_fn)(void *ctx, void *const *args);

/* A seed from a label (FNV-1a), so that each label gets its own data. */
static inline uint64_t tile_check_seed_of(const char *label)
{
    uint64_t h = 0xCBF29CE484222325ull;
    for (const unsigned char *s = (const unsigned char *)label; *s; s++)
        h = (h ^ *s) * 0x100000001B3ull;
    return h;
}

/* Runs cpu(ctx, host buffers), then gpu(ctx, device buffers) on the
 * default stream, and checks every output as tile_check_finish does; prints
 * one PASS/FAIL line. At most TILE_CHECK_MAX_BUFS buffers; needs a device
 * (see tile_check_gpu_available). Returns 1 on PASS, 0 on FAIL. */
static inline int tile_check_run(const char *label, const tile_check_arg *args, int nargs, tile_check_cpu_fn cpu,
                                 tile_check_gpu_fn gpu, void *ctx)
{
    tile_check_case c;
    void *host[TILE_CHECK_MAX_BUFS], *dev[TILE_CHECK_MAX_BUFS];
    tile_check_begin(&c, tile_check_seed_of(label));
    if (nargs < 0 || nargs > TILE_CHECK_MAX_BUFS) {
        tile_check_fail(&c, "%d buffers (at most %d)", nargs, TILE_CHECK_MAX_BUFS);
        return tile_check_finish(&c, cudaSuccess, "%s", label);
    }
    for (int i = 0; i < nargs; i++) {
        const tile_check_arg *a = &args[i];
        tile_check_buf *b = a->role == TILE_CHECK_INPUT ? tile_check_in(&c, a->type, a->n, 0)
                                                        : tile_check_out(&c, a->type, a->n, 0, a->tol);
        b->rtol = a->rtol;
        b->atol = a->atol;
        host[i] = b->host;
        dev[i] = b->dev;
    }
    cpu(ctx, host);
    return tile_check_finish(&c, gpu(ctx, dev), "%s", label);
}

#endif /* TILEPP_CHECK_H */

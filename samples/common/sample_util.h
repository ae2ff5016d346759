/* sample_util.h — small helpers shared by the sample drivers, the GPU tests
 * and the benchmarks. Header-only (every function is static inline), C11.
 *
 *   SU_CHECK(call)        a CUDA runtime call that must succeed: on failure it
 *                         prints file:line, the call and the error string, and
 *                         exits with status 1.
 *   SU_TRY(call)          the same, but `return -1` from the current function
 *                         instead of exiting (for int-returning test cases).
 *   su_gpu_available()    does cudaGetDeviceCount() report a device? Gives the
 *                         reason when not (no driver, no device, ...).
 *   su_rng_*              a seeded generator; su_fill_* fills float, half and
 *                         bfloat16 buffers with uniform values in [-1, 1] that
 *                         are never zero in the stored type.
 *   su_poison_device()    fills a device buffer with 0xFF bytes: a NaN in
 *                         float, half and bfloat16 alike. Outputs are poisoned
 *                         before each GPU run, so an element the kernel did
 *                         not write is still NaN afterwards.
 *   su_count_nan_*        finds elements that are still NaN (not written).
 *   su_rel_err_*          ||out - ref|| / ||ref|| (2-norms, in double). A NaN
 *                         anywhere in out makes the result NaN, which fails
 *                         every `err < tol` comparison.
 *
 *   su_bf16_load/store    bfloat16 elements <-> float by bits (see there).
 *
 * The element types come from <tilepp/tile.h>: on the CPU `half` is _Float16
 * (converted with casts) and `bfloat16` is __bf16. */
#ifndef TILEPP_SAMPLE_UTIL_H
#define TILEPP_SAMPLE_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <tilepp/tile.h>

/* Exit status for a test that could not run (CTest SKIP_RETURN_CODE). */
#define SU_EXIT_SKIP 77

#define SU_REPORT_CUDA_ERROR(call_text, err)                                                  \
    fprintf(stderr, "%s:%d: CUDA error in %s: %s (%s)\n", __FILE__, __LINE__, call_text,      \
            cudaGetErrorString(err), cudaGetErrorName(err))

#define SU_CHECK(call)                                                                        \
    do {                                                                                      \
        cudaError_t su_err_ = (call);                                                         \
        if (su_err_ != cudaSuccess) {                                                         \
            SU_REPORT_CUDA_ERROR(#call, su_err_);                                             \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

#define SU_TRY(call)                                                                          \
    do {                                                                                      \
        cudaError_t su_err_ = (call);                                                         \
        if (su_err_ != cudaSuccess) {                                                         \
            SU_REPORT_CUDA_ERROR(#call, su_err_);                                             \
            return -1;                                                                        \
        }                                                                                     \
    } while (0)

/* ---- device probe ------------------------------------------------------- */

/* 1 when at least one CUDA device is usable. Otherwise 0, with the reason
 * (the runtime's error string, or "0 devices") in reason[0..len). */
static inline int su_gpu_available(char *reason, size_t len)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        snprintf(reason, len, "%s", cudaGetErrorString(err));
        (void)cudaGetLastError(); /* clear the error so later calls start clean */
        return 0;
    }
    if (count == 0) {
        snprintf(reason, len, "0 devices");
        return 0;
    }
    reason[0] = '\0';
    return 1;
}

/* Prints "GPU: <name> (sm_XY, N SMs)" for device 0. */
static inline void su_print_device(FILE *out)
{
    struct cudaDeviceProp prop;
    SU_CHECK(cudaGetDeviceProperties(&prop, 0));
    fprintf(out, "GPU: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor,
            prop.multiProcessorCount);
}

/* ---- random numbers ----------------------------------------------------- */

typedef struct {
    uint64_t state;
} su_rng;

static inline su_rng su_rng_seed(uint64_t seed)
{
    su_rng r = {seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull};
    return r;
}

/* splitmix64 */
static inline uint64_t su_rng_next(su_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1], never 0: 23 random bits k map onto (2k + 1) * 2^-23 - 1,
 * the odd multiples of 2^-23 in (-1, 1); every step is exact in float. */
static inline float su_rng_uniform(su_rng *r)
{
    uint32_t bits = (uint32_t)(su_rng_next(r) >> 41); /* 23 bits */
    return ((float)bits * 2.0f + 1.0f) / 8388608.0f - 1.0f;
}

static inline void su_fill_f32(float *p, size_t n, su_rng *r)
{
    for (size_t i = 0; i < n; i++)
        p[i] = su_rng_uniform(r);
}

/* half and bfloat16 round the float; values that would round to zero (|v|
 * below the smallest subnormal) are drawn again. */
static inline void su_fill_f16(half *p, size_t n, su_rng *r)
{
    for (size_t i = 0; i < n; i++) {
        half h;
        do
            h = (half)su_rng_uniform(r);
        while ((float)h == 0.0f);
        p[i] = h;
    }
}

/* bfloat16 <-> float by bits (round to nearest even; no NaN handling),
 * reading and writing buffer elements through memcpy. Plain casts and even
 * plain copies of __bf16 values would do, but clang lowers them (at -O0,
 * copies too) to calls of __truncsfbf2, which libgcc before GCC 13 lacks;
 * this keeps the harness free of that dependency. */
static inline float su_bf16_load(const bfloat16 *p)
{
    uint16_t h;
    memcpy(&h, p, sizeof h);
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline void su_bf16_store(bfloat16 *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint16_t h = (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
    memcpy(p, &h, sizeof h);
}

static inline void su_fill_bf16(bfloat16 *p, size_t n, su_rng *r)
{
    for (size_t i = 0; i < n; i++)
        do
            su_bf16_store(&p[i], su_rng_uniform(r));
        while (su_bf16_load(&p[i]) == 0.0f);
}

/* ---- poison and written checks ------------------------------------------ */

/* 0xFF in every byte: NaN for float, half and bfloat16. */
static inline cudaError_t su_poison_device(void *dev, size_t bytes)
{
    return cudaMemset(dev, 0xFF, bytes);
}

static inline void su_poison_host(void *host, size_t bytes)
{
    memset(host, 0xFF, bytes);
}

/* Number of NaN elements; *first gets the index of the first (or n). */
static inline size_t su_count_nan_f32(const float *p, size_t n, size_t *first)
{
    size_t count = 0;
    *first = n;
    for (size_t i = 0; i < n; i++)
        if (isnan(p[i]) && count++ == 0)
            *first = i;
    return count;
}

static inline size_t su_count_nan_f16(const half *p, size_t n, size_t *first)
{
    size_t count = 0;
    *first = n;
    for (size_t i = 0; i < n; i++)
        if (isnan((float)p[i]) && count++ == 0)
            *first = i;
    return count;
}

static inline size_t su_count_nan_bf16(const bfloat16 *p, size_t n, size_t *first)
{
    size_t count = 0;
    *first = n;
    for (size_t i = 0; i < n; i++)
        if (isnan(su_bf16_load(&p[i])) && count++ == 0)
            *first = i;
    return count;
}

/* 1 when every byte of p[0..bytes) is still 0xFF (nothing wrote there). */
static inline int su_still_poisoned(const void *p, size_t bytes)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < bytes; i++)
        if (b[i] != 0xFF)
            return 0;
    return 1;
}

/* ---- relative error ----------------------------------------------------- */

/* ||out - ref||_2 / ||ref||_2 in double; the absolute error when ref is all
 * zeros. NaN when out holds a NaN. */
static inline double su_rel_err_finish(double diff2, double ref2)
{
    return ref2 > 0.0 ? sqrt(diff2 / ref2) : sqrt(diff2);
}

static inline double su_rel_err_f32(const float *out, const float *ref, size_t n)
{
    double diff2 = 0.0, ref2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)out[i] - (double)ref[i];
        diff2 += d * d;
        ref2 += (double)ref[i] * (double)ref[i];
    }
    return su_rel_err_finish(diff2, ref2);
}

static inline double su_rel_err_f16(const half *out, const half *ref, size_t n)
{
    double diff2 = 0.0, ref2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double o = (double)(float)out[i], r = (double)(float)ref[i];
        diff2 += (o - r) * (o - r);
        ref2 += r * r;
    }
    return su_rel_err_finish(diff2, ref2);
}

static inline double su_rel_err_bf16(const bfloat16 *out, const bfloat16 *ref, size_t n)
{
    double diff2 = 0.0, ref2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double o = (double)su_bf16_load(&out[i]), r = (double)su_bf16_load(&ref[i]);
        diff2 += (o - r) * (o - r);
        ref2 += r * r;
    }
    return su_rel_err_finish(diff2, ref2);
}

/* ---- small conveniences ------------------------------------------------- */

/* malloc that exits on failure. */
static inline void *su_xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* cudaMalloc + cudaMemcpy of a host buffer. */
static inline void *su_to_device(const void *host, size_t bytes)
{
    void *dev = NULL;
    SU_CHECK(cudaMalloc(&dev, bytes ? bytes : 1));
    if (bytes)
        SU_CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
    return dev;
}

#endif /* TILEPP_SAMPLE_UTIL_H */

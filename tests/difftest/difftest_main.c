/* difftest_main.c — runs every kernel of the generated table (difftest_table.c)
 * on the CPU (its C function) and on the GPU (its launcher) on the same random
 * inputs and compares every output.
 *
 *   difftest_gpu [--only NAME] [--family F] [--seed S] [--no-repeat] [--timeout SECONDS] [--list] [-v]
 *
 * Per kernel: inputs get fresh random non-zero values (seeded by --seed and
 * the kernel's name, so `--only NAME` sees the same data); every output is
 * poisoned (0xFF bytes: NaN in float, half and bfloat16; 0x7F7F7F7F in int),
 * as are GUARD elements on both sides of every device buffer. Then the CPU
 * function and the launcher run, and for every output:
 *   - elements the CPU left poisoned must still be poisoned on the GPU, and
 *     the others written; a NaN in the GPU's output where the CPU has a number
 *     is a failure;
 *   - nothing before or after the buffer was written, and no input changed;
 *   - max |gpu - cpu| / max |cpu| <= the output's tolerance (0: equal).
 * Then the _stream variant runs on a stream of its own and must give the same
 * bits (the launch order of reductions is fixed: pragmas/README.md).
 * One line per kernel (PASS/FAIL, error, tolerance); the exit status is 0
 * when every kernel passed, 1 otherwise, 77 without a CUDA device.
 *
 * Built with DT_HOST_ONLY, "the GPU" is a second CPU build of each kernel
 * (compiled with other floating-point options) and device memory is host
 * memory: the whole pipeline, the tolerances and the programs' freedom from
 * undefined behaviour (under sanitizers) are checked without a GPU. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "difftest.h"

enum { GUARD = 64, MAXARGS = 32 };

/* ---- memory: the device, or host memory standing in for it --------------- */

#ifdef DT_HOST_ONLY
static const char *dev_error(cudaError_t e)
{
    (void)e;
    return "error";
}
static cudaError_t dev_alloc(void **p, size_t n)
{
    *p = malloc(n ? n : 1);
    return *p ? cudaSuccess : 1;
}
static void dev_free(void *p) { free(p); }
static cudaError_t dev_put(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
    return cudaSuccess;
}
static cudaError_t dev_get(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
    return cudaSuccess;
}
static cudaError_t dev_fill(void *dst, int byte, size_t n)
{
    memset(dst, byte, n);
    return cudaSuccess;
}
static cudaError_t dev_sync(void) { return cudaSuccess; }
static cudaError_t stream_new(cudaStream_t *s)
{
    *s = NULL;
    return cudaSuccess;
}
static void stream_free(cudaStream_t s) { (void)s; }
static void dev_recover(void) {}
#else
static const char *dev_error(cudaError_t e) { return cudaGetErrorName(e); }
static cudaError_t dev_alloc(void **p, size_t n) { return cudaMalloc(p, n ? n : 1); }
static void dev_free(void *p) { (void)cudaFree(p); }
static cudaError_t dev_put(void *dst, const void *src, size_t n)
{
    return cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice);
}
static cudaError_t dev_get(void *dst, const void *src, size_t n)
{
    return cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost);
}
static cudaError_t dev_fill(void *dst, int byte, size_t n) { return cudaMemset(dst, byte, n); }
static cudaError_t dev_sync(void) { return cudaDeviceSynchronize(); }
static cudaError_t stream_new(cudaStream_t *s) { return cudaStreamCreateWithFlags(s, cudaStreamNonBlocking); }
static void stream_free(cudaStream_t s) { (void)cudaStreamDestroy(s); }
/* After a kernel fault the context is unusable: start a fresh one. */
static void dev_recover(void)
{
    (void)cudaDeviceReset();
    (void)cudaGetLastError();
}
#endif

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "difftest: out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

/* ---- elements ---------------------------------------------------------------- */

static size_t type_size(dt_type t) { return t == DT_F32 || t == DT_I32 ? 4 : 2; }
static const char *type_name(dt_type t)
{
    static const char *const n[] = {"float", "half", "bfloat16", "int"};
    return n[t];
}
static int poison_byte(dt_type t) { return t == DT_I32 ? 0x7F : 0xFF; }

static int is_poison(dt_type t, const unsigned char *p, size_t i)
{
    size_t es = type_size(t);
    for (size_t b = 0; b < es; b++)
        if (p[i * es + b] != poison_byte(t))
            return 0;
    return 1;
}

static float bf16_to_float(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint16_t float_to_bf16(float f) /* round to nearest even; no NaN here */
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

static double get(dt_type t, const void *p, size_t i)
{
    switch (t) {
    case DT_F32:
        return ((const float *)p)[i];
    case DT_F16:
        return (float)((const half *)p)[i];
    case DT_BF16: {
        uint16_t h;
        memcpy(&h, (const char *)p + 2 * i, 2);
        return bf16_to_float(h);
    }
    default:
        return ((const int *)p)[i];
    }
}

/* Stores v (exactly representable as an int when t is DT_I32); returns the
 * value stored. */
static double set(dt_type t, void *p, size_t i, double v)
{
    switch (t) {
    case DT_F32:
        ((float *)p)[i] = (float)v;
        break;
    case DT_F16:
        ((half *)p)[i] = (half)(float)v;
        break;
    case DT_BF16: {
        uint16_t h = float_to_bf16((float)v);
        memcpy((char *)p + 2 * i, &h, 2);
    } break;
    default:
        ((int *)p)[i] = (int)v;
        break;
    }
    return get(t, p, i);
}

/* ---- random inputs: splitmix64 ---------------------------------------------- */

static uint64_t rng_state;
static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* (2k + 1) * 2^-23 - 1 for 23 random bits k: in (-1, 1), never 0, exact in float. */
static double uniform(void) { return ((double)(rng_next() >> 41) * 2.0 + 1.0) / 8388608.0 - 1.0; }

static void fill(const dt_param *q, void *p)
{
    for (long long i = 0; i < q->count; i++) {
        switch (q->fill) {
        case DT_FILL_UNIT:
            while (set(q->type, p, (size_t)i, uniform()) == 0.0)
                ;
            break;
        case DT_FILL_POS:
            while (set(q->type, p, (size_t)i, fabs(uniform())) == 0.0)
                ;
            break;
        case DT_FILL_INT: {
            long long v = (long long)(rng_next() % (uint64_t)(2 * q->fill_arg)) - q->fill_arg;
            set(q->type, p, (size_t)i, (double)(v >= 0 ? v + 1 : v));
        } break;
        default:
            set(q->type, p, (size_t)i, (double)(rng_next() % (uint64_t)q->fill_arg));
            break;
        }
    }
}

static uint64_t hash_name(uint64_t seed, const char *s)
{
    uint64_t h = 1469598103934665603ull ^ seed;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* ---- one kernel ----------------------------------------------------------------- */

typedef struct {
    const dt_param *q;
    size_t es, n;
    unsigned char *init;  /* inputs and in-outs: the values before the run */
    unsigned char *cpu;   /* the CPU run's buffer */
    unsigned char *back;  /* the GPU's, copied back with its guards */
    unsigned char *first; /* outputs: the first GPU run's elements */
    void *dev_base, *dev;
} buffer;

static char failure[600];
static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    if (failure[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(failure, sizeof failure, fmt, ap);
    va_end(ap);
}

static size_t total_elems(const buffer *b) { return GUARD + (size_t)b->q->offset + b->n + GUARD; }

/* Poisons the device buffer and puts its initial values in. */
static int prepare_device(buffer *b)
{
    size_t total = total_elems(b) * b->es;
    cudaError_t e = dev_fill(b->dev_base, poison_byte(b->q->type), total);
    if (!e && b->init)
        e = dev_put(b->dev, b->init, b->n * b->es);
    if (e)
        fail("preparing '%s' on the device: %s", b->q->name, dev_error(e));
    return e == cudaSuccess;
}

/* Compares one output; returns its relative error (or NAN on a failure). */
static double compare(buffer *b)
{
    const dt_param *q = b->q;
    size_t before = (GUARD + (size_t)q->offset) * b->es, after = GUARD * b->es;
    const unsigned char *g = b->back + before;
    for (size_t i = 0; i < before; i++)
        if (b->back[i] != poison_byte(q->type)) {
            fail("output '%s': written before its first element", q->name);
            return NAN;
        }
    for (size_t i = 0; i < after; i++)
        if (g[b->n * b->es + i] != poison_byte(q->type)) {
            fail("output '%s': written past its last element (%zu elements)", q->name, b->n);
            return NAN;
        }
    double maxref = 0.0, maxdiff = 0.0;
    size_t worst = 0;
    for (size_t i = 0; i < b->n; i++) {
        int cp = is_poison(q->type, b->cpu, i), gp = is_poison(q->type, g, i);
        if (cp || gp) {
            if (cp && !gp) {
                fail("output '%s': element %zu written (= %g); the CPU leaves it untouched", q->name, i,
                     get(q->type, g, i));
                return NAN;
            }
            if (gp && !cp) {
                fail("output '%s': element %zu not written (the CPU writes %g)", q->name, i, get(q->type, b->cpu, i));
                return NAN;
            }
            continue;
        }
        double c = get(q->type, b->cpu, i), v = get(q->type, g, i);
        if (isnan(c) || isnan(v)) {
            if (!(isnan(c) && isnan(v))) {
                fail("output '%s': element %zu is %g on the GPU, %g on the CPU", q->name, i, v, c);
                return NAN;
            }
            continue;
        }
        if (isinf(c) || isinf(v)) {
            if (c != v) {
                fail("output '%s': element %zu is %g on the GPU, %g on the CPU", q->name, i, v, c);
                return NAN;
            }
            continue;
        }
        if (fabs(c) > maxref)
            maxref = fabs(c);
        if (fabs(v - c) > maxdiff) {
            maxdiff = fabs(v - c);
            worst = i;
        }
    }
    double err = maxref > 0.0 ? maxdiff / maxref : maxdiff;
    if (!(err <= q->tol))
        fail("output '%s' (%s): relative error %.3g > %.3g; element %zu: gpu %.9g, cpu %.9g (max |cpu| %.6g)", q->name,
             type_name(q->type), err, q->tol, worst, get(q->type, g, worst), get(q->type, b->cpu, worst), maxref);
    return err;
}

static const char *current_kernel = "";
static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "TIMEOUT: the kernel did not finish: ";
    (void)!write(1, msg, sizeof msg - 1);
    (void)!write(1, current_kernel, strlen(current_kernel));
    (void)!write(1, "\n", 1);
    _exit(1);
}

static int run_kernel(const dt_kernel *k, uint64_t seed, int repeat, int verbose)
{
    buffer bufs[MAXARGS];
    void *cpu_args[MAXARGS] = {0}, *dev_args[MAXARGS] = {0};
    int nb = 0, ok = 1;
    double worst_ratio = -1.0, worst_err = 0.0, worst_tol = 0.0;
    const char *worst_name = "";
    failure[0] = '\0';
    current_kernel = k->name;
    rng_state = hash_name(seed, k->name);
    memset(bufs, 0, sizeof bufs);

    if (verbose) {
        printf("      %s (%s, %s): %s\n", k->name, k->family, k->file, k->what);
        for (int i = 0; i < k->nparams; i++) {
            const dt_param *q = &k->params[i];
            if (q->kind == DT_SCALAR_INT)
                printf("        int %s = %lld\n", q->name, q->ival);
            else if (q->kind == DT_SCALAR_FLOAT)
                printf("        float %s = %g\n", q->name, q->fval);
            else
                printf("        %s %s[%lld] %s%s, tol %g\n", type_name(q->type), q->name, q->count,
                       q->role == DT_IN    ? "in"
                       : q->role == DT_OUT ? "out"
                                           : "in-out",
                       q->offset ? " (misaligned by one element)" : "", q->tol);
        }
    }
    for (int i = 0; i < k->nparams && i < MAXARGS; i++) {
        const dt_param *q = &k->params[i];
        if (q->kind != DT_ARRAY)
            continue;
        buffer *b = &bufs[nb++];
        b->q = q;
        b->es = type_size(q->type);
        b->n = (size_t)q->count;
        b->cpu = xmalloc(b->n * b->es);
        b->back = xmalloc(total_elems(b) * b->es);
        if (q->role != DT_OUT) {
            b->init = xmalloc(b->n * b->es);
            fill(q, b->init);
            memcpy(b->cpu, b->init, b->n * b->es);
        } else {
            memset(b->cpu, poison_byte(q->type), b->n * b->es);
        }
        if (q->role != DT_IN)
            b->first = xmalloc(b->n * b->es);
        cudaError_t e = dev_alloc(&b->dev_base, total_elems(b) * b->es);
        if (e) {
            fail("allocating '%s' (%zu elements): %s", q->name, b->n, dev_error(e));
            b->dev_base = NULL;
            ok = 0;
            break;
        }
        b->dev = (char *)b->dev_base + (GUARD + (size_t)q->offset) * b->es;
        cpu_args[i] = b->cpu;
        dev_args[i] = b->dev;
    }

    for (int pass = 0; ok && pass < (repeat ? 2 : 1); pass++) {
        cudaStream_t stream = NULL;
        for (int j = 0; j < nb && ok; j++)
            ok = prepare_device(&bufs[j]);
        /* The poisoning memsets run on the legacy stream, which the _stream
         * pass's non-blocking stream does not wait for: without this wait they
         * could land after its kernel and overwrite what it wrote. */
        if (ok && dev_sync()) {
            fail("preparing the buffers on the device failed");
            ok = 0;
        }
        if (!ok)
            break;
        if (pass == 0)
            k->run(0, cpu_args, NULL);
        else if (stream_new(&stream)) {
            fail("cudaStreamCreate failed");
            ok = 0;
            break;
        }
        cudaError_t e = k->run(pass == 0 ? 1 : 2, dev_args, stream);
        cudaError_t s = dev_sync();
        if (pass)
            stream_free(stream);
        if (e || s) {
            fail("%s: %s", e ? "the launcher returned" : "the kernel failed", dev_error(e ? e : s));
            ok = 0;
            break;
        }
        for (int j = 0; j < nb; j++) {
            buffer *b = &bufs[j];
            e = dev_get(b->back, b->dev_base, total_elems(b) * b->es);
            if (e) {
                fail("copying '%s' back: %s", b->q->name, dev_error(e));
                ok = 0;
                break;
            }
            const unsigned char *g = b->back + (GUARD + (size_t)b->q->offset) * b->es;
            if (b->q->role == DT_IN) {
                if (memcmp(g, b->init, b->n * b->es))
                    fail("input '%s' changed on the GPU", b->q->name);
                if (pass == 0 && memcmp(b->cpu, b->init, b->n * b->es))
                    fail("input '%s' changed by the CPU reference (a generator bug)", b->q->name);
            } else if (pass == 0) {
                double err = compare(b);
                double ratio = b->q->tol > 0 ? err / b->q->tol : err > 0 ? INFINITY : 0.0;
                if (!(ratio <= worst_ratio)) {
                    worst_ratio = ratio;
                    worst_err = err;
                    worst_tol = b->q->tol;
                    worst_name = b->q->name;
                }
                memcpy(b->first, g, b->n * b->es);
            } else if (memcmp(b->first, g, b->n * b->es)) {
                size_t i = 0;
                while (!memcmp(b->first + i * b->es, g + i * b->es, b->es))
                    i++;
                fail("output '%s': the _stream launch gave other bits than the first launch (element %zu: %.9g, "
                     "then %.9g)",
                     b->q->name, i, get(b->q->type, b->first, i), get(b->q->type, g, i));
            }
        }
        if (failure[0])
            ok = 0;
    }
    if (failure[0])
        ok = 0;
    if (ok)
        printf("PASS  %-24s err %-9.2g tol %-9.2g %s\n", k->name, worst_err, worst_tol, worst_name);
    else
        printf("FAIL  %-24s %s  [%s, %s]\n", k->name, failure, k->file, k->what);
    fflush(stdout);
    for (int j = 0; j < nb; j++) {
        free(bufs[j].init);
        free(bufs[j].cpu);
        free(bufs[j].back);
        free(bufs[j].first);
        if (bufs[j].dev_base)
            dev_free(bufs[j].dev_base);
    }
    if (!ok && strstr(failure, "kernel failed"))
        dev_recover();
    return ok;
}

/* ---- main ------------------------------------------------------------------------- */

static void usage(void)
{
    fprintf(stderr, "usage: difftest [--only NAME] [--family F] [--seed S] [--no-repeat] [--timeout SECONDS] "
                    "[--list] [-v]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *only = NULL, *family = NULL;
    uint64_t seed = 1;
    int repeat = 1, list = 0, verbose = 0;
    unsigned timeout = 120;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(a, "--family") && i + 1 < argc)
            family = argv[++i];
        else if (!strcmp(a, "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(a, "--timeout") && i + 1 < argc)
            timeout = (unsigned)atoi(argv[++i]);
        else if (!strcmp(a, "--no-repeat"))
            repeat = 0;
        else if (!strcmp(a, "--list"))
            list = 1;
        else if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
            verbose = 1;
        else
            usage();
    }
    if (list) {
        for (int i = 0; i < dt_nkernels; i++)
            printf("%-24s %-9s %-16s %s\n", dt_kernels[i].name, dt_kernels[i].family, dt_kernels[i].file,
                   dt_kernels[i].what);
        return 0;
    }
#ifdef DT_HOST_ONLY
    printf("host-only: a second CPU build of each kernel stands in for the GPU\n");
#else
    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess || devices == 0) {
        printf("SKIPPED: no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        return 77;
    }
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        printf("GPU: %s (sm_%d%d, %d SMs)%s%s\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount,
               getenv("TILEPP_PATH") ? ", TILEPP_PATH=" : "", getenv("TILEPP_PATH") ? getenv("TILEPP_PATH") : "");
#endif
    printf("%d kernels from %s; data seed %llu\n", dt_nkernels, dt_generator, (unsigned long long)seed);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);

    int passed = 0, failed = 0;
    for (int i = 0; i < dt_nkernels; i++) {
        const dt_kernel *k = &dt_kernels[i];
        if ((only && strcmp(only, k->name)) || (family && strcmp(family, k->family)))
            continue;
        alarm(timeout);
        if (run_kernel(k, seed, repeat, verbose))
            passed++;
        else
            failed++;
        alarm(0);
    }
    if (only && passed + failed == 0) {
        fprintf(stderr, "difftest: no kernel named '%s'\n", only);
        return 2;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}

// tune_runtime_cxx.cu — <tilepp/tile_tune.cuh> compiled by nvcc with every
// warning an error, its templates instantiated the way a tuned kernel's
// generated launcher and offline entry instantiate them (never called here),
// and a GPU-free test of its host-only parts: tile_tune_arg, the shape
// class, the default point, TILEPP_TUNE_PIN and the output comparison. No
// CUDA call is made, so it runs on a machine without a GPU.
#include <tilepp/tile_tune.cuh>

#include <stdio.h>

static int failures = 0;

#define EXPECT(cond)                                                                                                   \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);                                        \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

// ---- what the translator generates for a tuned `scale` (two variants) ----
#ifndef TILE_TUNE_MOCK_CUDART

__global__ void scale_kernel(int n, const float *x, float *y, int step)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        y[i] = 2.0f * x[i];
}

namespace tile_tune_scale_v0
{
cudaError_t scale_gpu_stream(int n, const float *x, float *y, cudaStream_t s)
{
    scale_kernel<<<(n + 127) / 128, 128, 0, s>>>(n, x, y, 1 << 30);
    return cudaGetLastError();
}
} // namespace tile_tune_scale_v0
namespace tile_tune_scale_v2
{
cudaError_t scale_gpu_stream(int n, const float *x, float *y, cudaStream_t s)
{
    scale_kernel<<<(n + 255) / 256, 256, 0, s>>>(n, x, y, 1 << 30);
    return cudaGetLastError();
}
} // namespace tile_tune_scale_v2

extern "C" __attribute__((weak)) void scale(int, const void *, void *);

static const char *const tile_tune_scale_names[] = {"T=128", "T=512", "T=256"};
static const char *const tile_tune_scale_pruned[] = {nullptr, "x.c:3:1: threads(512) needs ...", nullptr};
static const char *const tile_tune_scale_int_names[] = {"n"};
static const tile_tune_space tile_tune_scale_space = {
    "scale", "scale.c:3", "0123456789abcdef",       3, tile_tune_scale_names, tile_tune_scale_pruned,
    0,       1,           tile_tune_scale_int_names};

extern "C" cudaError_t scale_gpu_stream(int n, const float *x, float *y, cudaStream_t tile_stream)
{
    typedef cudaError_t (*tile_fn)(int, const float *, float *, cudaStream_t);
    static const tile_fn tile_fns[] = {tile_tune_scale_v0::scale_gpu_stream, nullptr,
                                       tile_tune_scale_v2::scale_gpu_stream};
    const long long tile_ints[] = {(long long)(n)};
    tile_tune_buf tile_bufs[] = {{"x", (void *)x, (size_t)(long long)(n) * sizeof(float), TILE_TUNE_F32, false},
                                 {"y", (void *)y, (size_t)(long long)(n) * sizeof(float), TILE_TUNE_F32, true}};
    auto tile_run = [&](int tile_v, cudaStream_t tile_s) { return tile_fns[tile_v](n, x, y, tile_s); };
    auto tile_cpu = [&](void *const *tile_h) { scale(n, tile_h[0], tile_h[1]); };
    const double tile_flops = 1.0 * n;
    return tile_tune_launch(&tile_tune_scale_space, tile_ints, 1, tile_bufs, 2, tile_flops, tile_stream, tile_run,
                            tile_cpu, &scale != nullptr);
}

extern "C" int tile_tune_entry_scale(int tile_argc, const char *const *tile_argv)
{
    typedef cudaError_t (*tile_fn)(int, const float *, float *, cudaStream_t);
    static const tile_fn tile_fns[] = {tile_tune_scale_v0::scale_gpu_stream, nullptr,
                                       tile_tune_scale_v2::scale_gpu_stream};
    int n;
    if (!tile_tune_arg(tile_argc, tile_argv, "scale", "n", &n))
        return 2;
    const long long tile_ints[] = {(long long)(n)};
    tile_tune_buf tile_bufs[] = {{"x", nullptr, (size_t)(long long)(n) * sizeof(float), TILE_TUNE_F32, false},
                                 {"y", nullptr, (size_t)(long long)(n) * sizeof(float), TILE_TUNE_F32, true}};
    auto tile_run = [&](int tile_v, cudaStream_t tile_s) {
        return tile_fns[tile_v](n, (const float *)tile_bufs[0].ptr, (float *)tile_bufs[1].ptr, tile_s);
    };
    auto tile_cpu = [&](void *const *tile_h) { scale(n, tile_h[0], tile_h[1]); };
    return tile_tune_offline(&tile_tune_scale_space, tile_ints, 1, tile_bufs, 2, 1.0 * n, tile_run, tile_cpu,
                             &scale != nullptr);
}

#endif // TILE_TUNE_MOCK_CUDART

// ---- host-only checks ----------------------------------------------------

static void test_args()
{
    const char *argv[] = {"M=4096", "N=12", "bad=12x", "neg=-3", "big=99999999999", "f=0.5", "b=true", "N=13", "u=7"};
    const int argc = sizeof argv / sizeof argv[0];
    int i = 0;
    long l = 0;
    long long ll = 0;
    unsigned u = 0;
    size_t z = 0;
    float f = 0;
    double d = 0;
    bool b = false;
    EXPECT(tile_tune_arg(argc, argv, "k", "M", &i) && i == 4096);
    EXPECT(tile_tune_arg(argc, argv, "k", "N", &l) && l == 13); // the last one wins
    EXPECT(tile_tune_arg(argc, argv, "k", "big", &ll) && ll == 99999999999LL);
    EXPECT(!tile_tune_arg(argc, argv, "k", "big", &i)); // out of range for int
    EXPECT(tile_tune_arg(argc, argv, "k", "u", &u) && u == 7);
    EXPECT(tile_tune_arg(argc, argv, "k", "M", &z) && z == 4096);
    EXPECT(!tile_tune_arg(argc, argv, "k", "neg", &u)); // negative unsigned
    EXPECT(tile_tune_arg(argc, argv, "k", "neg", &i) && i == -3);
    EXPECT(tile_tune_arg(argc, argv, "k", "f", &f) && f == 0.5f);
    EXPECT(tile_tune_arg(argc, argv, "k", "f", &d) && d == 0.5);
    EXPECT(tile_tune_arg(argc, argv, "k", "b", &b) && b);
    EXPECT(!tile_tune_arg(argc, argv, "k", "bad", &i)); // malformed
    EXPECT(!tile_tune_arg(argc, argv, "k", "K", &i));   // missing
    EXPECT(!tile_tune_arg(argc, argv, "k", "f", &i));   // not an integer
}

static const char *const test_names[] = {"T=128", "T=512", "T=256"};
static const char *const test_pruned[] = {nullptr, "x.c:3:1: threads(512) needs ...", nullptr};
static const tile_tune_space test_space_def = {"scale", "scale.c:3", "0123456789abcdef", 3, test_names, test_pruned, 0,
                                               1,       nullptr};

static void test_space()
{
    EXPECT(tile_tune_default_point(&test_space_def) == 0);
    tile_tune_space s = test_space_def;
    s.source_point = 1; // pruned: the first valid point
    EXPECT(tile_tune_default_point(&s) == 0);
    s.source_point = -1;
    EXPECT(tile_tune_default_point(&s) == 0);
    EXPECT(tile_tune_lookup(&s, "T=256", 5) == 2);
    EXPECT(tile_tune_lookup(&s, "T=25", 4) == -1);
    tile_tune_state st;
    EXPECT(tile_tune_pinned(st, &s, "other:T=128;scale:T=256") == 2);
    EXPECT(tile_tune_pinned(st, &s, "scale:T=512") == -1); // pruned: one warning
    EXPECT(tile_tune_pinned(st, &s, "scale:T=999") == -1); // unknown: one warning
    EXPECT(st.warned.size() == 2);
    EXPECT(tile_tune_pinned(st, &s, "scale:T=999") == -1);
    EXPECT(st.warned.size() == 2);
    EXPECT(tile_tune_pinned(st, &s, "scalex:T=128") == -1);
}

static void test_compare()
{
    float ref[4] = {1, 2, -3, NAN}, got[4] = {1, 2, -3, NAN};
    bool special = false;
    EXPECT(tile_tune_error(got, ref, sizeof ref, TILE_TUNE_F32, &special) == 0 && !special);
    got[1] = 2.001f;
    double e = tile_tune_error(got, ref, sizeof ref, TILE_TUNE_F32, &special);
    EXPECT(e > 2e-4 && e < 3e-4 && !special); // 0.001 / sqrt(14)
    got[3] = 0;                               // NaN expected
    EXPECT(isinf(tile_tune_error(got, ref, sizeof ref, TILE_TUNE_F32, &special)) && special);
    __half h[2] = {__float2half(1.0f), __float2half(-0.5f)}, hr[2] = {__float2half(1.0f), __float2half(-0.5f)};
    EXPECT(tile_tune_error(h, hr, sizeof h, TILE_TUNE_F16, &special) == 0);
    unsigned char a[3] = {1, 2, 3}, c[3] = {1, 2, 4};
    EXPECT(isinf(tile_tune_error(a, c, 3, TILE_TUNE_BYTES, &special)));
    tile_tune_buf bufs[2] = {{"x", nullptr, 16, TILE_TUNE_F32, false}, {"C", nullptr, 16, TILE_TUNE_F32, true}};
    std::vector<std::vector<unsigned char>> g(2), r(2);
    float gv[4] = {1, 2, 3, 4}, rv[4] = {1, 2, 3, 5};
    g[1].assign((unsigned char *)gv, (unsigned char *)gv + 16);
    r[1].assign((unsigned char *)rv, (unsigned char *)rv + 16);
    EXPECT(tile_tune_check(bufs, 2, g, r, -1) == "wrong result (rel. error 1.6e-01 in C)");
    EXPECT(tile_tune_check(bufs, 2, g, r, 0.2) == "");
    std::vector<unsigned char> fill(64);
    tile_tune_fill(fill, TILE_TUNE_F32, 1);
    for (int i = 0; i < 16; i++) {
        float v;
        memcpy(&v, &fill[4 * (size_t)i], 4);
        EXPECT(fabsf(v) >= 0.0099f && fabsf(v) <= 1.0f);
    }
}

#if defined(TILE_TUNE_MOCK_CUDART) && !defined(__CUDA_ARCH__) // the device pass has its own definitions
// ---- the tuning itself, on a mock CUDA runtime ----------------------------
// Built as unit_tune_mock (-cudart none): the CUDA runtime calls the tuner
// makes are defined here on host memory, with a virtual clock that a
// variant advances by its cost, so a whole tuning runs without a GPU.
#include <sys/stat.h>
#include <sys/wait.h>

struct CUevent_st {
    double t;
};
static double mock_now = 0;
static cudaError_t mock_last = cudaSuccess, mock_sticky = cudaSuccess;
static int mock_malloced = 0;

extern "C" {
cudaError_t cudaMalloc(void **p, size_t n)
{
    *p = malloc(n ? n : 1);
    mock_malloced++;
    return cudaSuccess;
}
cudaError_t cudaFree(void *p)
{
    free(p);
    mock_malloced--;
    return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t)
{
    memmove(d, s, n);
    return mock_sticky;
}
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind)
{
    memmove(d, s, n);
    return mock_sticky;
}
cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t)
{
    memset(d, v, n);
    return mock_sticky;
}
cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    *e = new CUevent_st{0};
    return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    delete e;
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t)
{
    e->t = mock_now;
    return mock_sticky;
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    *ms = (float)(b->t - a->t);
    return mock_sticky;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) { return mock_sticky; }
cudaError_t cudaGetLastError()
{
    cudaError_t e = mock_sticky != cudaSuccess ? mock_sticky : mock_last;
    mock_last = cudaSuccess;
    return e;
}
cudaError_t cudaGetDevice(int *d)
{
    *d = 0;
    return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int)
{
    memset(p, 0, sizeof *p);
    strcpy(p->name, "Mock GPU");
    p->major = 9;
    p->minor = 0;
    p->multiProcessorCount = 132;
    p->l2CacheSize = 1 << 20;
    return cudaSuccess;
}
cudaError_t cudaStreamIsCapturing(cudaStream_t, cudaStreamCaptureStatus *c)
{
    *c = getenv("MOCK_CAPTURING") ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned)
{
    *s = (cudaStream_t)&mock_now;
    return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
const char *cudaGetErrorString(cudaError_t e) { return e == cudaSuccess ? "no error" : "mock error"; }
const char *cudaGetErrorName(cudaError_t e) { return e == cudaSuccess ? "cudaSuccess" : "cudaErrorMock"; }
// What nvcc's registration code calls at start-up and exit: nothing to register.
void **__cudaRegisterFatBinary(void *) { return nullptr; }
void __cudaRegisterFatBinaryEnd(void **) {}
void __cudaUnregisterFatBinary(void **) {}
void __cudaRegisterVar(void **, char *, char *, const char *, int, size_t, int, int) {}
char __cudaInitModule(void **) { return 0; }
}

// A tuned y[i] = 2 x[i] + y[i] (y is read and written: a tuning that did not
// restore it would be caught). Point 1 is pruned, 3 fails to launch, 4 is
// fast but wrong (and last, so a missing final restore shows); 2 is the
// fastest correct one.
enum { MOCK_N = 1000 };
static const char *const mock_names[] = {"T=1", "T=2", "T=3", "T=4", "T=5"};
static const char *const mock_pruned[] = {nullptr, "m.c:1:1: too big", nullptr, nullptr, nullptr};
static const char *const mock_int_names[] = {"n"};
static const tile_tune_space mock_space = {"mock", "m.c:1", "feedfacefeedface", 5, mock_names, mock_pruned,
                                           0,      1,       mock_int_names};
static int mock_runs[5];
static int mock_sticky_point = -1;

static cudaError_t mock_variant(int v, int n, const float *x, float *y)
{
    mock_runs[v]++;
    if (v == 3 || (v == 0 && getenv("MOCK_FAIL0"))) {
        mock_last = cudaErrorInvalidConfiguration;
        return cudaErrorInvalidConfiguration;
    }
    if (v == mock_sticky_point) {
        mock_sticky = cudaErrorIllegalAddress;
        return cudaSuccess;
    }
    for (int i = 0; i < n; i++)
        y[i] = 2 * x[i] + y[i] + (v == 4 ? 1.0f : 0.0f);
    mock_now += v == 0 ? 3.0 : v == 2 ? 1.0 : 0.5;
    return cudaSuccess;
}

static void mock_cpu(int n, const void *x, void *y)
{
    for (int i = 0; i < n; i++)
        ((float *)y)[i] = 2 * ((const float *)x)[i] + ((float *)y)[i];
}

static cudaError_t mock_gpu(int n, const float *x, float *y, bool has_cpu)
{
    const long long ints[] = {n};
    tile_tune_buf bufs[] = {{"x", (void *)x, n * sizeof(float), TILE_TUNE_F32, false},
                            {"y", (void *)y, n * sizeof(float), TILE_TUNE_F32, true}};
    auto run = [&](int v, cudaStream_t) { return mock_variant(v, n, x, y); };
    auto cpu = [&](void *const *h) { mock_cpu(n, h[0], h[1]); };
    return tile_tune_launch(&mock_space, ints, 1, bufs, 2, 2.0 * n, nullptr, run, cpu, has_cpu);
}

static int mock_offline(int argc, const char *const *argv)
{
    int n;
    if (!tile_tune_arg(argc, argv, "mock", "n", &n))
        return 2;
    const long long ints[] = {n};
    tile_tune_buf bufs[] = {{"x", nullptr, n * sizeof(float), TILE_TUNE_F32, false},
                            {"y", nullptr, n * sizeof(float), TILE_TUNE_F32, true}};
    auto run = [&](int v, cudaStream_t) {
        return mock_variant(v, n, (const float *)bufs[0].ptr, (float *)bufs[1].ptr);
    };
    auto cpu = [&](void *const *h) { mock_cpu(n, h[0], h[1]); };
    int rc = tile_tune_offline(&mock_space, ints, 1, bufs, 2, 2.0 * n, run, cpu, true);
    EXPECT(bufs[0].ptr == nullptr && bufs[1].ptr == nullptr);
    return rc;
}

static char mock_dir[4200];

// One call on fresh data: the result of exactly one launch of some variant?
static cudaError_t mock_call(bool has_cpu, float bump = 0)
{
    static float x[MOCK_N], y[MOCK_N];
    for (int i = 0; i < MOCK_N; i++) {
        x[i] = 0.25f * (i % 7) + 0.5f;
        y[i] = 1.0f + (i % 3);
    }
    memset(mock_runs, 0, sizeof mock_runs);
    cudaError_t err = mock_gpu(MOCK_N, x, y, has_cpu);
    bool once = true;
    for (int i = 0; i < MOCK_N; i++)
        once &= y[i] == 2 * x[i] + 1.0f + (i % 3) + bump;
    if (err == cudaSuccess && !once) {
        fprintf(stderr, "mock: y is not the result of one launch\n");
        failures++;
    }
    return err;
}

static std::string mock_cache_path()
{
    tile_tune_entry e;
    tile_tune_gpu g;
    tile_tune_gpu_get(&g);
    tile_tune_want(&mock_space, g, "1024", &e);
    char path[8192];
    tile_tune_cache_path(mock_dir, &e, path, sizeof path);
    return path;
}

static std::string mock_cached_variant()
{
    tile_tune_entry want, got;
    tile_tune_gpu g;
    tile_tune_gpu_get(&g);
    tile_tune_want(&mock_space, g, "1024", &want);
    char why[256];
    if (tile_tune_cache_load(mock_cache_path().c_str(), &want, &got, why, sizeof why) != TILE_TUNE_CACHE_HIT)
        return "";
    return got.variant;
}

// Each scenario runs in a child with its own environment (read once per process).
static int mock_scenario(const char *name)
{
    tile_tune_state &st = tile_tune_state_get();
    if (!strcmp(name, "on") || !strcmp(name, "cpu")) {
        bool cpu = !strcmp(name, "cpu");
        EXPECT(mock_call(cpu) == cudaSuccess);
        EXPECT(mock_runs[0] > 1 && mock_runs[1] == 0 && mock_runs[2] > 1 && mock_runs[3] >= 1 && mock_runs[4] == 1);
        EXPECT(mock_cached_variant() == "T=3");
        EXPECT(mock_malloced == 0);
        EXPECT(mock_call(cpu) == cudaSuccess); // the table
        EXPECT(mock_runs[2] == 1 && mock_runs[0] == 0);
        st.table.clear(); // the cache
        EXPECT(mock_call(cpu) == cudaSuccess);
        EXPECT(mock_runs[2] == 1 && mock_runs[0] == 0);
        st.table.clear(); // a damaged cache entry: ignored, re-tuned, rewritten
        FILE *f = fopen(mock_cache_path().c_str(), "w");
        fputs("garbage\n", f);
        fclose(f);
        EXPECT(mock_call(cpu) == cudaSuccess);
        EXPECT(mock_runs[0] > 1 && st.warned.size() == 1);
        EXPECT(mock_cached_variant() == "T=3");
    } else if (!strcmp(name, "srcfail")) { // the source's point fails: the next one gives the reference
        EXPECT(mock_call(false) == cudaSuccess);
        EXPECT(mock_runs[0] == 1 && mock_runs[2] > 1 && mock_runs[4] == 1);
        EXPECT(mock_cached_variant() == "T=3");
    } else if (!strcmp(name, "off")) {
        EXPECT(mock_call(false) == cudaSuccess);
        EXPECT(mock_runs[0] == 1 && mock_runs[2] == 0);
        EXPECT(mock_cached_variant() == "");
    } else if (!strcmp(name, "pin")) {
        EXPECT(mock_call(false, 1.0f) == cudaSuccess); // pinned to the wrong one: trusted
        EXPECT(mock_runs[4] == 1 && mock_runs[0] == 0);
    } else if (!strcmp(name, "capture")) {
        EXPECT(mock_call(false) == cudaSuccess);
        EXPECT(mock_runs[0] == 1 && mock_runs[2] == 0);
    } else if (!strcmp(name, "sticky")) {
        mock_sticky_point = 2;
        EXPECT(mock_call(false) == cudaErrorIllegalAddress);
        EXPECT(mock_malloced == 0);
    } else if (!strcmp(name, "nocache")) {
        EXPECT(mock_call(false) == cudaSuccess); // the cache directory cannot be made: one warning
        EXPECT(mock_runs[2] > 1 && st.cache_broken);
    } else if (!strcmp(name, "offline")) {
        const char *args[] = {"n=1000"};
        EXPECT(mock_offline(1, args) == 0);
        EXPECT(mock_cached_variant() == "T=3");
        EXPECT(mock_malloced == 0);
        EXPECT(mock_offline(0, args) == 2);
    }
    return failures != 0;
}

static void test_mock(const char *build_dir)
{
    snprintf(mock_dir, sizeof mock_dir, "%s/tune_mock.XXXXXX", build_dir);
    if (!mkdtemp(mock_dir)) {
        failures++;
        return;
    }
    struct {
        const char *name, *env;
    } runs[] = {{"on", ""},
                {"cpu", "TILEPP_TUNE_CHECK=cpu TILEPP_TUNE_VERBOSE=1"},
                {"srcfail", "MOCK_FAIL0=1"},
                {"off", "TILEPP_TUNE=off"},
                {"pin", "TILEPP_TUNE_PIN=other:T=1;mock:T=5"},
                {"capture", "MOCK_CAPTURING=1"},
                {"sticky", ""},
                {"nocache", "TILEPP_TUNE_CACHE=/dev/null/x"},
                {"offline", ""}};
    for (const auto &r : runs) {
        char cmd[8192];
        snprintf(cmd, sizeof cmd, "rm -f %s/*", mock_dir);
        EXPECT(system(cmd) == 0);
        pid_t pid = fork();
        if (pid == 0) {
            setenv("TILEPP_TUNE_CACHE", mock_dir, 1);
            char env[256];
            snprintf(env, sizeof env, "%s", r.env);
            for (char *kv = strtok(env, " "); kv; kv = strtok(nullptr, " ")) {
                char *eq = strchr(kv, '=');
                *eq = '\0';
                setenv(kv, eq + 1, 1);
            }
            int rc = mock_scenario(r.name);
            fflush(stdout);
            _exit(rc);
        }
        int status = 1;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "mock scenario %s failed\n", r.name);
            failures++;
        }
    }
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "rm -rf %s", mock_dir);
    EXPECT(system(cmd) == 0);
}
#endif // TILE_TUNE_MOCK_CUDART

int main()
{
    test_args();
    test_space();
    test_compare();
    char shape[64];
    const long long ints[] = {4000, 0, 4097};
    EXPECT(tile_tune_shape_string(ints, 3, shape, sizeof shape) && strcmp(shape, "4096,0,8192") == 0);
#if defined(TILE_TUNE_MOCK_CUDART) && !defined(__CUDA_ARCH__)
    test_mock(TILEPP_TEST_BUILD_DIR);
#endif
    if (failures)
        fprintf(stderr, "tune_runtime_cxx: %d failure(s)\n", failures);
    else
        printf("tune_runtime_cxx: ok\n");
    return failures != 0;
}

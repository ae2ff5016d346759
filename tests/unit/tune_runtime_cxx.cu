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

static void test_space()
{
    EXPECT(tile_tune_default_point(&tile_tune_scale_space) == 0);
    tile_tune_space s = tile_tune_scale_space;
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

int main()
{
    test_args();
    test_space();
    test_compare();
    char shape[64];
    const long long ints[] = {4000, 0, 4097};
    EXPECT(tile_tune_shape_string(ints, 3, shape, sizeof shape) && strcmp(shape, "4096,0,8192") == 0);
    if (failures)
        fprintf(stderr, "tune_runtime_cxx: %d failure(s)\n", failures);
    else
        printf("tune_runtime_cxx: ok\n");
    return failures != 0;
}

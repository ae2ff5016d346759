/* mma_test.h — the harness of mma_test (see mma_test.cu): shapes, one
 * checked case, and the loops over shapes and layouts. The cases are spread
 * over several translation units so that they compile in parallel. */
#ifndef TILEPP_TESTS_MMA_TEST_H
#define TILEPP_TESTS_MMA_TEST_H

#include "mma_common.h"

#include <math.h>
#include <vector>

extern int g_failures, g_cases; /* mma_test.cu */

struct shape {
    int M, N, K;
    int pad_a, pad_b, pad_c; /* leading dimension = minimal + pad */
    int off_a, off_b, off_c; /* base pointer offset in elements (misalignment) */
    const char *what;
};

static const shape shapes[] = {
    {1000, 1003, 1007, 0, 0, 0, 0, 0, 0, "odd sizes (element copies)"},
    {1024, 1024, 1024, 0, 0, 0, 0, 0, 0, "multiples of every tile"},
    {1000, 1000, 1000, 0, 0, 0, 0, 0, 0, "partial tiles, 16-byte aligned rows"},
    {1002, 1010, 1006, 0, 0, 0, 0, 0, 0, "partial tiles, 4-byte aligned rows"},
    {256, 384, 20, 0, 0, 0, 0, 0, 0, "K < BK"},
    {128, 256, 16, 0, 0, 0, 0, 0, 0, "K = 16"},
    {256, 384, 32, 0, 0, 0, 0, 0, 0, "K = 32, one k-tile"},
    {17, 512, 256, 0, 0, 0, 0, 0, 0, "M below one tile"},
    {512, 9, 256, 0, 0, 0, 0, 0, 0, "N below one tile"},
    {1, 1, 1, 0, 0, 0, 0, 0, 0, "1 x 1 x 1"},
    {3, 5, 7, 0, 0, 0, 0, 0, 0, "3 x 5 x 7"},
    {512, 512, 512, 8, 16, 5, 0, 0, 0, "padded leading dimensions, odd ldc"},
    {384, 640, 512, 0, 0, 0, 1, 0, 1, "misaligned A and C base pointers"},
    {384, 640, 512, 0, 2, 0, 0, 2, 0, "B 4-byte aligned only"},
    {64, 128, 4096, 0, 0, 0, 0, 0, 0, "long K"},
    {1536, 1280, 2048, 0, 0, 0, 0, 0, 0, "several panels"},
};

template <typename T> double to_double(T x) { return (double)(float)x; }

/* A device buffer of `n` elements of T filled from the host. */
template <typename T> struct dev_buf {
    T *p = nullptr;
    size_t n = 0;
    explicit dev_buf(size_t count) : n(count ? count : 1) { CUDA_CHECK(cudaMalloc(&p, n * sizeof(T))); }
    ~dev_buf() { cudaFree(p); }
    dev_buf(const dev_buf &) = delete;
    dev_buf &operator=(const dev_buf &) = delete;
};

/* A stored matrix: `srows` x `scols` with leading dimension ld at element
 * offset `off` of a buffer; everything else in the buffer is NaN. */
template <typename T> struct host_matrix {
    std::vector<T> buf;
    long long ld;
    int srows, scols, off;
    host_matrix(int r, int c, int pad, int offset, rng &g) : ld((long long)c + pad), srows(r), scols(c), off(offset)
    {
        const size_t total = (size_t)off + (size_t)r * (size_t)ld + 8;
        buf.resize(total);
        uint16_t nan = 0xFFFF;
        for (size_t i = 0; i < total; i++)
            memcpy(&buf[i], &nan, sizeof nan);
        for (int i = 0; i < r; i++)
            for (int j = 0; j < c; j++)
                buf[off + (size_t)i * ld + j] = T(g.uniform());
    }
    double at(int i, int j) const { return to_double(buf[off + (size_t)i * ld + j]); }
};

template <typename Cfg, typename T, typename TO, bool AK, bool BKM>
static void run_case(cublasHandle_t h, const shape &s, rng &g)
{
    const int M = s.M, N = s.N, K = s.K;
    char cfg[96];
    Cfg::name(cfg, sizeof cfg);
    g_cases++;

    /* A stored M x K (AK) or K x M; B stored K x N or N x K (BKM). */
    host_matrix<T> a(AK ? M : K, AK ? K : M, s.pad_a, s.off_a, g);
    host_matrix<T> b(BKM ? N : K, BKM ? K : N, s.pad_b, s.off_b, g);
    const long long ldc = (long long)N + s.pad_c;
    const size_t c_total = (size_t)s.off_c + (size_t)M * ldc + 64;

    dev_buf<T> da(a.buf.size()), db(b.buf.size());
    dev_buf<TO> dc(c_total);
    dev_buf<float> dref((size_t)M * N);
    CUDA_CHECK(cudaMemcpy(da.p, a.buf.data(), a.buf.size() * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db.p, b.buf.data(), b.buf.size() * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(dc.p, 0xFF, c_total * sizeof(TO)));

    CUDA_CHECK(
        (gemm_ref<Cfg, T, TO, AK, BKM>(M, N, K, da.p + s.off_a, a.ld, db.p + s.off_b, b.ld, dc.p + s.off_c, ldc)));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUBLAS_CHECK(cublas_gemm(h, AK, BKM, M, N, K, da.p + s.off_a, type_info<T>::cuda, a.ld, db.p + s.off_b,
                             type_info<T>::cuda, b.ld, dref.p, CUDA_R_32F, N));
    CUDA_CHECK(cudaDeviceSynchronize());

    std::vector<TO> out(c_total);
    std::vector<float> ref((size_t)M * N);
    CUDA_CHECK(cudaMemcpy(out.data(), dc.p, c_total * sizeof(TO), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(ref.data(), dref.p, ref.size() * sizeof(float), cudaMemcpyDeviceToHost));

    /* relative error over the matrix */
    double num = 0, den = 0;
    bool nan = false;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            const double o = to_double(out[s.off_c + (size_t)i * ldc + j]), r = ref[(size_t)i * N + j];
            if (!isfinite(o))
                nan = true;
            num += (o - r) * (o - r);
            den += r * r;
        }
    const double rel = den > 0 ? sqrt(num / den) : sqrt(num);

    /* nothing written outside the matrix */
    long long stray = 0;
    const unsigned char *bytes = reinterpret_cast<const unsigned char *>(out.data());
    for (size_t e = 0; e < c_total; e++) {
        const bool inside = e >= (size_t)s.off_c && (e - s.off_c) / ldc < (size_t)M && (e - s.off_c) % ldc < (size_t)N;
        if (inside)
            continue;
        for (size_t k = 0; k < sizeof(TO); k++)
            if (bytes[e * sizeof(TO) + k] != 0xFF) {
                stray++;
                break;
            }
    }

    /* the reference at sample points, in float64 */
    double ref_err = 0;
    for (int t = 0; t < 24; t++) {
        const int i = t == 0 ? 0 : t == 1 ? M - 1 : (int)(g.next() % (uint64_t)M);
        const int j = t == 0 ? 0 : t == 1 ? N - 1 : (int)(g.next() % (uint64_t)N);
        double sum = 0, mag = 0;
        for (int k = 0; k < K; k++) {
            const double x = AK ? a.at(i, k) : a.at(k, i), y = BKM ? b.at(j, k) : b.at(k, j);
            sum += x * y;
            mag += fabs(x * y);
        }
        const double e = fabs(sum - ref[(size_t)i * N + j]) / (mag + 1e-30);
        ref_err = e > ref_err ? e : ref_err;
    }

    const double tol = sizeof(TO) == 4 ? 1e-4 : type_info<TO>::cuda == CUDA_R_16F ? 1e-3 : 8e-3;
    const bool ok = !nan && rel <= tol && stray == 0 && ref_err <= 1e-4;
    if (!ok)
        g_failures++;
    printf("%s %-28s %s %-4s -> %-3s %5d x %5d x %5d  rel %.2e (tol %.0e)%s%s  %s%s\n", ok ? "ok  " : "FAIL", cfg,
           layout_name(AK, BKM), type_info<T>::name(), type_info<TO>::name(), M, N, K, rel, tol, nan ? " NaN" : "",
           stray ? " STRAY WRITES" : "", s.what, ref_err > 1e-4 ? "  (cuBLAS reference off)" : "");
    if (stray)
        printf("      %lld elements written outside the matrix\n", stray);
}

template <typename Cfg, typename T, typename TO, bool AK, bool BKM> static void run_shapes(cublasHandle_t h, rng &g)
{
    for (const shape &s : shapes)
        run_case<Cfg, T, TO, AK, BKM>(h, s, g);
}

template <typename Cfg, typename T, typename TO> static void run_layouts(cublasHandle_t h, rng &g)
{
    run_shapes<Cfg, T, TO, true, false>(h, g);
    run_shapes<Cfg, T, TO, true, true>(h, g);
    run_shapes<Cfg, T, TO, false, false>(h, g);
    run_shapes<Cfg, T, TO, false, true>(h, g);
}

/* accum::for_each hands out the tile coordinates that store() writes to. */
template <typename Cfg> __global__ void __launch_bounds__(Cfg::THREADS) coords_kernel(float *out, long long ld)
{
    tile80::accum<Cfg::BM, Cfg::BN, Cfg::WARPS_M, Cfg::WARPS_N> acc;
    acc.clear();
    acc.for_each([](float &v, int r, int c) { v += (float)(r * 4096 + c); });
    tile80::store<float>(out, ld, 0, 0, Cfg::BM, Cfg::BN, acc);
}

template <typename Cfg> static void check_coords()
{
    char cfg[96];
    Cfg::name(cfg, sizeof cfg);
    g_cases++;
    const int n = Cfg::BM * Cfg::BN;
    dev_buf<float> d(n);
    CUDA_CHECK(cudaMemset(d.p, 0xFF, n * sizeof(float)));
    coords_kernel<Cfg><<<1, Cfg::THREADS>>>(d.p, Cfg::BN);
    CUDA_CHECK(cudaGetLastError());
    std::vector<float> h(n);
    CUDA_CHECK(cudaMemcpy(h.data(), d.p, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int r = 0; r < Cfg::BM; r++)
        for (int c = 0; c < Cfg::BN; c++)
            bad += h[(size_t)r * Cfg::BN + c] != (float)(r * 4096 + c);
    if (bad)
        g_failures++;
    printf("%s %-28s for_each coordinates%s\n", bad ? "FAIL" : "ok  ", cfg, bad ? " disagree with store" : "");
}

/* the groups of cases, one per translation unit */
void test_main_config(cublasHandle_t h, rng &g); /* mma_test.cu */
void test_variants(cublasHandle_t h, rng &g);    /* mma_test_variants.cu */
void test_pipelines(cublasHandle_t h, rng &g);   /* mma_test_pipeline.cu */

#endif /* TILEPP_TESTS_MMA_TEST_H */

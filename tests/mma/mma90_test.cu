/* mma90_test.cu — the sm_90a primitives (tile_mma_sm90.cuh) composed by hand
 * into the warp-specialized GEMM the translator generates, checked against
 * cuBLAS, and timed beside it.
 *
 *   mma90_test            GPU test `mma_sm90`: every layout, fp16 and bf16,
 *                         half and float outputs, shapes that are not
 *                         multiples of the tiles, K below one stage and
 *                         below stages x BK, M and N below one tile
 *   mma90_test bench [n]  TFLOP/s of a few schedules and of cuBLAS at
 *                         2048, 4096, 8192 (or n), median of timed launches
 *                         over rotating buffers
 *
 * Skips (exit 77) without a compute capability 9.0 device. */
#include "mma_common.h"

#include <tile_mma_sm90.cuh>

#include <algorithm>
#include <math.h>
#include <string>
#include <vector>

template <typename T_, typename TO_, bool AK, bool BKM, int BM_, int BN_, int BK_, int S_, int WGM, int WGN>
struct cfg {
    typedef T_ T;
    typedef TO_ TO;
    static constexpr bool A_KMAJOR = AK, B_KMAJOR = BKM;
    static constexpr int BM = BM_, BN = BN_, BK = BK_, STAGES = S_, WG_M = WGM, WG_N = WGN;
    static constexpr int GROUPS = WGM * WGN, THREADS = 128 * (GROUPS + 1);
    typedef tile90::accum<BM, BN, WGM, WGN> Acc;
    typedef tile90::smem_tile<T, AK ? BM : BK, AK ? BK : BM, tile90::swizzle_of<T>(AK ? BK : 64)> ATile;
    typedef tile90::smem_tile<T, BKM ? BN : BK, BKM ? BK : BN, tile90::swizzle_of<T>(BKM ? BK : Acc::WTN)> BTile;
    static constexpr int STAGE_BYTES = ATile::BYTES + BTile::BYTES;
    static constexpr int EPILOGUE_BYTES = GROUPS * tile90::EPILOGUE_BYTES_PER_GROUP;
    static constexpr int SMEM = STAGES * STAGE_BYTES + EPILOGUE_BYTES + 16 * STAGES + 1024;
    static_assert(SMEM <= 227 * 1024, "shared memory");
    static constexpr int REGS = tile90::consumer_regs(GROUPS);
    static std::string name()
    {
        char s[128];
        snprintf(s, sizeof s, "%s>%s %s %dx%dx%d s%d wg%dx%d", type_info<T>::name(), type_info<TO>::name(),
                 layout_name(AK, BKM), BM, BN, BK, STAGES, WGM, WGN);
        return s;
    }
};

/* The kernel the translator generates for the canonical pipelined GEMM
 * loop: persistent blocks, each taking every gridDim.x-th tile. */
template <class C>
__global__ void __launch_bounds__(C::THREADS, 1)
    gemm90_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                  const __grid_constant__ CUtensorMap map_c, bool tma_store, typename C::TO *out, int M, int N, int K,
                  int panel)
{
#if TILE90_DEVICE
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    unsigned char *smem = tile90::align_smem(smem_raw);
    const int tiles_m = (M + C::BM - 1) / C::BM, tiles_n = (N + C::BN - 1) / C::BN;
    const auto As = [&](int s) { return typename C::ATile{(typename C::T *)(smem + s * C::STAGE_BYTES)}; };
    const auto Bs = [&](int s) {
        return typename C::BTile{(typename C::T *)(smem + s * C::STAGE_BYTES + C::ATile::BYTES)};
    };
    unsigned char *staging = smem + C::STAGES * C::STAGE_BYTES;
    tile90::pipeline<C::STAGES> P{(uint64_t *)(staging + C::EPILOGUE_BYTES)};
    P.init(C::GROUPS * 4);
    __syncthreads();
    const int kt = (K + C::BK - 1) / C::BK;
    if (tile90::producer()) {
        tile90::producer_setmaxnreg<C::REGS ? tile90::PRODUCER_REGS : 0>();
        if (threadIdx.x == 0)
            for (int t = blockIdx.x; t < tiles_m * tiles_n; t += gridDim.x) {
                const tile80::tile_coord tc = tile80::raster(tiles_m, tiles_n, panel, t);
                const int m0 = tc.m * C::BM, n0 = tc.n * C::BN;
                for (int k = 0; k < kt; k++) {
                    const int s = P.produce(C::STAGE_BYTES);
                    if (C::A_KMAJOR)
                        tile90::tma_load(As(s), &map_a, P.full(s), m0, k * C::BK);
                    else
                        tile90::tma_load(As(s), &map_a, P.full(s), k * C::BK, m0);
                    if (C::B_KMAJOR)
                        tile90::tma_load(Bs(s), &map_b, P.full(s), n0, k * C::BK);
                    else
                        tile90::tma_load(Bs(s), &map_b, P.full(s), k * C::BK, n0);
                }
            }
    } else {
        tile90::consumer_setmaxnreg<C::REGS>();
        int chunks = 0;
        for (int t = blockIdx.x; t < tiles_m * tiles_n; t += gridDim.x) {
            const tile80::tile_coord tc = tile80::raster(tiles_m, tiles_n, panel, t);
            const int m0 = tc.m * C::BM, n0 = tc.n * C::BN;
            typename C::Acc acc;
            acc.clear();
            for (int k = 0; k < kt; k++) {
                const int s = P.consume();
                tile90::mma<C::A_KMAJOR, C::B_KMAJOR, typename C::T, C::BM, C::BN, C::BK>(As(s), Bs(s), acc);
                P.release(s);
            }
            P.drain();
            if (tma_store)
                tile90::store_tma<typename C::TO>(staging, chunks, &map_c, m0, n0, acc);
            else
                tile80::store<typename C::TO>(out, N, m0, n0, M, N, acc);
        }
        tile90::store_tma_finish();
    }
#else
    (void)map_a, (void)map_b, (void)map_c, (void)tma_store, (void)out, (void)M, (void)N, (void)K, (void)panel;
#endif
}

/* TMA_STORE: the epilogue through shared memory and TMA stores, else from
 * registers. */
template <class C>
static bool launch(const typename C::T *a, const typename C::T *b, typename C::TO *c, int M, int N, int K,
                   bool tma_store = true, cudaStream_t st = 0)
{
    CUtensorMap ma, mb, mc;
    const bool ok = (C::A_KMAJOR ? tile90::make_tmap<typename C::ATile>(&ma, a, M, K, K)
                                 : tile90::make_tmap<typename C::ATile>(&ma, a, K, M, M)) &&
                    (C::B_KMAJOR ? tile90::make_tmap<typename C::BTile>(&mb, b, N, K, K)
                                 : tile90::make_tmap<typename C::BTile>(&mb, b, K, N, N));
    if (!ok)
        return false;
    if (tma_store && !tile90::make_tmap<typename tile90::epilogue_chunk<typename C::TO>::tile>(&mc, c, M, N, N))
        return false;
    static bool attr = false;
    if (!attr) {
        CUDA_CHECK(cudaFuncSetAttribute(gemm90_kernel<C>, cudaFuncAttributeMaxDynamicSharedMemorySize, C::SMEM));
        attr = true;
    }
    long long grid;
    tile_device dev;
    CUDA_CHECK(tile_current_device(&dev));
    CUDA_CHECK(tile90::persistent_blocks(&dev, gemm90_kernel<C>, C::THREADS, C::SMEM,
                                         (long long)((M + C::BM - 1) / C::BM) * ((N + C::BN - 1) / C::BN), &grid));
    gemm90_kernel<C><<<(unsigned)grid, C::THREADS, C::SMEM, st>>>(ma, mb, mc, tma_store, c, M, N, K, 8);
    CUDA_CHECK(cudaGetLastError());
    return true;
}

template <typename T> static std::vector<T> random_matrix(size_t n, uint64_t seed)
{
    rng r(seed);
    std::vector<T> v(n);
    for (auto &x : v)
        x = T(r.uniform());
    return v;
}

template <typename T> static T *to_device(const std::vector<T> &v)
{
    T *p;
    CUDA_CHECK(cudaMalloc(&p, v.size() * sizeof(T)));
    CUDA_CHECK(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return p;
}

static int failures = 0, cases = 0;

/* One configuration at one shape: poisoned output, relative error against
 * cuBLAS's float result. */
template <class C> static void check(cublasHandle_t h, int M, int N, int K, bool tma_store)
{
    typedef typename C::T T;
    typedef typename C::TO TO;
    const std::vector<T> ha = random_matrix<T>((size_t)M * K, M * 7 + K),
                         hb = random_matrix<T>((size_t)K * N, N * 3 + K);
    T *a = to_device(ha), *b = to_device(hb);
    TO *c;
    float *ref;
    CUDA_CHECK(cudaMalloc(&c, (size_t)M * N * sizeof(TO)));
    CUDA_CHECK(cudaMalloc(&ref, (size_t)M * N * sizeof(float)));
    CUDA_CHECK(cudaMemset(c, 0xFF, (size_t)M * N * sizeof(TO))); /* NaN in every output type */
    CUBLAS_CHECK(cublas_gemm(h, C::A_KMAJOR, C::B_KMAJOR, M, N, K, a, type_info<T>::cuda, C::A_KMAJOR ? K : M, b,
                             type_info<T>::cuda, C::B_KMAJOR ? K : N, ref, CUDA_R_32F, N));
    cases++;
    if (!launch<C>(a, b, c, M, N, K, tma_store)) {
        printf("FAIL %-36s %5d x %5d x %5d: no tensor map\n", C::name().c_str(), M, N, K);
        failures++;
    } else {
        CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<TO> hc((size_t)M * N);
        std::vector<float> hr((size_t)M * N);
        CUDA_CHECK(cudaMemcpy(hc.data(), c, hc.size() * sizeof(TO), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(hr.data(), ref, hr.size() * sizeof(float), cudaMemcpyDeviceToHost));
        double num = 0, den = 0;
        for (size_t i = 0; i < hc.size(); i++) {
            const double d = (double)(float)hc[i] - hr[i];
            num += d * d;
            den += (double)hr[i] * hr[i];
        }
        const double rel = sqrt(num / den);
        const double tol = sizeof(TO) == 4 ? 1e-5 : 2e-3;
        const bool ok = rel < tol; /* NaN fails too */
        if (!ok)
            failures++;
        printf("%s %-36s %5d x %5d x %5d %s: rel err %.2e\n", ok ? "ok  " : "FAIL", C::name().c_str(), M, N, K,
               tma_store ? "tma-store" : "reg-store", rel);
    }
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));
    CUDA_CHECK(cudaFree(c));
    CUDA_CHECK(cudaFree(ref));
}

template <class C> static void check_shapes(cublasHandle_t h)
{
    /* ragged edges, K below BK and below STAGES * BK, one k-tile, a single
     * tile smaller than the block's, and enough tiles to wrap every stage */
    static const int shapes[][3] = {{1000, 712, 328}, {136, 264, 1000},  {40, 24, 8},  {200, 136, 64},
                                    {128, 256, 48},   {520, 1032, 2056}, {64, 64, 16}, {8, 8, 4096}};
    for (const auto &s : shapes)
        for (int tma = 0; tma < 2; tma++)
            check<C>(h, s[0], s[1], s[2], tma != 0);
}

typedef tile_half H;
typedef tile_bfloat16 B16;

/* ---- A from registers: O = round(Q K^T) V, FlashAttention's two products
 * without the softmax. One block per BM rows: S = Q K^T (BM x N1, K1 deep)
 * in the accumulators, then O = S V with S as wgmma's register operand. */
template <typename T, int BM, int K1, int N1, int D, int WGM> struct rs_cfg {
    typedef tile90::smem_tile<T, BM, K1, tile90::swizzle_of<T>(K1)> QTile;
    typedef tile90::smem_tile<T, N1, K1, tile90::swizzle_of<T>(K1)> KTile;
    typedef tile90::smem_tile<T, N1, D, tile90::swizzle_of<T>(D)> VTile;
    static constexpr int BYTES = QTile::BYTES + KTile::BYTES + VTile::BYTES;
    static constexpr int SMEM = BYTES + 16 + 1024, THREADS = 128 * (WGM + 1);
};

template <typename T, int BM, int K1, int N1, int D, int WGM>
__global__ void __launch_bounds__(128 * (WGM + 1), 1)
    rs_kernel(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
              const __grid_constant__ CUtensorMap map_v, float *out, int M)
{
#if TILE90_DEVICE
    typedef rs_cfg<T, BM, K1, N1, D, WGM> C;
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    unsigned char *smem = tile90::align_smem(smem_raw);
    const typename C::QTile q{(T *)smem};
    const typename C::KTile k{(T *)(smem + C::QTile::BYTES)};
    const typename C::VTile v{(T *)(smem + C::QTile::BYTES + C::KTile::BYTES)};
    tile90::pipeline<1> P{(uint64_t *)(smem + C::BYTES)};
    P.init(WGM * 4);
    __syncthreads();
    const int m0 = blockIdx.x * BM;
    if (tile90::producer()) {
        if (threadIdx.x == 0) {
            const int s = P.produce(C::BYTES);
            tile90::tma_load(q, &map_q, P.full(s), m0, 0);
            tile90::tma_load(k, &map_k, P.full(s), 0, 0);
            tile90::tma_load(v, &map_v, P.full(s), 0, 0);
        }
    } else {
        const int s = P.consume();
        tile90::accum<BM, N1, WGM, 1> S;
        S.clear();
        tile90::mma<true, true, T, BM, N1, K1>(q, k, S);
        tile90::ptx::wgmma_wait<0>();
        tile90::accum<BM, D, WGM, 1> O;
        O.clear();
        tile90::mma_rs<false, T>(S, v, O);
        P.release(s);
        tile80::store<float>(out, D, m0, 0, M, D, O);
    }
#else
    (void)map_q, (void)map_k, (void)map_v, (void)out, (void)M;
#endif
}

template <typename T, int BM, int K1, int N1, int D, int WGM> static void check_rs(int M)
{
    typedef rs_cfg<T, BM, K1, N1, D, WGM> C;
    const std::vector<T> hq = random_matrix<T>((size_t)M * K1, 11), hk = random_matrix<T>((size_t)N1 * K1, 12),
                         hv = random_matrix<T>((size_t)N1 * D, 13);
    T *q = to_device(hq), *k = to_device(hk), *v = to_device(hv);
    float *o;
    CUDA_CHECK(cudaMalloc(&o, (size_t)M * D * sizeof(float)));
    CUDA_CHECK(cudaMemset(o, 0xFF, (size_t)M * D * sizeof(float)));
    CUtensorMap mq, mk, mv;
    cases++;
    if (!tile90::make_tmap<typename C::QTile>(&mq, q, M, K1, K1) ||
        !tile90::make_tmap<typename C::KTile>(&mk, k, N1, K1, K1) ||
        !tile90::make_tmap<typename C::VTile>(&mv, v, N1, D, D)) {
        printf("FAIL rs %s %dx%dx%dx%d: no tensor map\n", type_info<T>::name(), M, K1, N1, D);
        failures++;
        return;
    }
    CUDA_CHECK(
        cudaFuncSetAttribute(rs_kernel<T, BM, K1, N1, D, WGM>, cudaFuncAttributeMaxDynamicSharedMemorySize, C::SMEM));
    rs_kernel<T, BM, K1, N1, D, WGM><<<(M + BM - 1) / BM, C::THREADS, C::SMEM>>>(mq, mk, mv, o, M);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> ho((size_t)M * D);
    CUDA_CHECK(cudaMemcpy(ho.data(), o, ho.size() * sizeof(float), cudaMemcpyDeviceToHost));
    double num = 0, den = 0;
    std::vector<float> srow(N1);
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N1; j++) { /* S rounded to T, as the register operand is */
            double acc = 0;
            for (int kk = 0; kk < K1; kk++)
                acc += (double)(float)hq[(size_t)i * K1 + kk] * (float)hk[(size_t)j * K1 + kk];
            srow[j] = (float)T((float)acc);
        }
        for (int d = 0; d < D; d++) {
            double ref = 0;
            for (int j = 0; j < N1; j++)
                ref += (double)srow[j] * (float)hv[(size_t)j * D + d];
            const double diff = ho[(size_t)i * D + d] - ref;
            num += diff * diff;
            den += ref * ref;
        }
    }
    const double rel = sqrt(num / den);
    const bool ok = rel < 2e-3; /* S rounded in another summation order: a few ulps of T */
    failures += !ok;
    printf("%s rs (A from registers) %s BM %d, S = Q K^T %dx%dx%d, O = S V x%d: rel err %.2e\n", ok ? "ok  " : "FAIL",
           type_info<T>::name(), BM, M, N1, K1, D, rel);
    CUDA_CHECK(cudaFree(q));
    CUDA_CHECK(cudaFree(k));
    CUDA_CHECK(cudaFree(v));
    CUDA_CHECK(cudaFree(o));
}

static int run_tests()
{
    cublasHandle_t h;
    CUBLAS_CHECK(cublasCreate(&h));
    check_shapes<cfg<H, H, true, false, 128, 128, 64, 4, 1, 1>>(h);
    check_shapes<cfg<H, H, true, false, 128, 256, 64, 4, 2, 1>>(h);
    check_shapes<cfg<H, H, true, false, 128, 256, 64, 3, 1, 2>>(h);
    check_shapes<cfg<H, H, true, false, 128, 128, 32, 3, 1, 1>>(h);
    check_shapes<cfg<H, float, true, true, 128, 128, 64, 4, 1, 1>>(h);
    check_shapes<cfg<H, H, false, false, 128, 128, 64, 4, 1, 1>>(h);
    check_shapes<cfg<H, H, false, true, 128, 64, 64, 4, 1, 1>>(h);
    check_shapes<cfg<B16, B16, true, false, 128, 256, 64, 4, 2, 1>>(h);
    check_shapes<cfg<B16, float, false, true, 64, 128, 32, 2, 1, 1>>(h);
    check_shapes<cfg<H, H, true, false, 256, 128, 64, 4, 2, 1>>(h);
    check_shapes<cfg<H, H, true, false, 64, 64, 16, 2, 1, 1>>(h);
    check_shapes<cfg<H, float, true, false, 64, 64, 32, 1, 1, 1>>(h); /* one stage */
    check_shapes<cfg<B16, B16, false, true, 128, 128, 64, 1, 1, 1>>(h);
    check_rs<H, 64, 64, 64, 128, 1>(200);
    check_rs<H, 128, 64, 128, 64, 2>(384);
    check_rs<B16, 128, 128, 64, 128, 2>(256);
    CUBLAS_CHECK(cublasDestroy(h));
    printf("%d of %d cases passed\n", cases - failures, cases);
    return failures ? 1 : 0;
}

/* ---- bench ---- */

struct bench_set {
    int M, N, K, sets;
    std::vector<H *> a, b, c;
};

static bench_set make_set(int M, int N, int K)
{
    int dev;
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    const size_t bytes = ((size_t)M * K + (size_t)K * N + (size_t)M * N) * sizeof(H);
    bench_set s{M,  N,  K, (int)std::min<size_t>(16, std::max<size_t>(2, 4 * (size_t)prop.l2CacheSize / bytes + 1)),
                {}, {}, {}};
    for (int i = 0; i < s.sets; i++) {
        H *p;
        CUDA_CHECK(cudaMalloc(&p, (size_t)M * K * sizeof(H)));
        fill(p, (size_t)M * K, 2 * i + 1);
        s.a.push_back(p);
        CUDA_CHECK(cudaMalloc(&p, (size_t)K * N * sizeof(H)));
        fill(p, (size_t)K * N, 2 * i + 2);
        s.b.push_back(p);
        CUDA_CHECK(cudaMalloc(&p, (size_t)M * N * sizeof(H)));
        s.c.push_back(p);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    return s;
}

static void free_set(bench_set &s)
{
    for (int i = 0; i < s.sets; i++) {
        CUDA_CHECK(cudaFree(s.a[i]));
        CUDA_CHECK(cudaFree(s.b[i]));
        CUDA_CHECK(cudaFree(s.c[i]));
    }
}

template <typename F> static double median_ms(F f, int sets)
{
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    for (int i = 0; i < 3 * sets; i++)
        f(i % sets);
    std::vector<float> t;
    for (int r = 0; r < 15; r++) {
        CUDA_CHECK(cudaEventRecord(e0));
        for (int i = 0; i < sets; i++)
            f(i);
        CUDA_CHECK(cudaEventRecord(e1));
        CUDA_CHECK(cudaEventSynchronize(e1));
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        t.push_back(ms / sets);
    }
    std::sort(t.begin(), t.end());
    CUDA_CHECK(cudaEventDestroy(e0));
    CUDA_CHECK(cudaEventDestroy(e1));
    return t[t.size() / 2];
}

template <class C> static void bench_one(bench_set &s, double cublas_ms)
{
    const double ms = median_ms(
        [&](int i) {
            if (!launch<C>(s.a[i], s.b[i], s.c[i], s.M, s.N, s.K))
                exit(1);
        },
        s.sets);
    const double tf = 2.0 * s.M * s.N * s.K / (ms * 1e9);
    printf("| %5d x %5d x %5d | %-34s | %7.1f | %.3f |\n", s.M, s.N, s.K, C::name().c_str(), tf, cublas_ms / ms);
}

static int run_bench(int argc, char **argv)
{
    std::vector<std::vector<int>> shapes = {{2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192},
                                            {4096, 4096, 1024}, {8192, 8192, 512},  {16384, 4096, 4096}};
    if (argc > 2) {
        shapes.clear();
        for (int i = 2; i < argc; i++)
            shapes.push_back({atoi(argv[i]), atoi(argv[i]), atoi(argv[i])});
    }
    cublasHandle_t h;
    CUBLAS_CHECK(cublasCreate(&h));
    printf("| M x N x K | kernel | TFLOP/s | x cuBLAS |\n|---|---|---|---|\n");
    for (const auto &sh : shapes) {
        bench_set s = make_set(sh[0], sh[1], sh[2]);
        const double cublas_ms = median_ms(
            [&](int i) {
                CUBLAS_CHECK(cublas_gemm(h, true, false, s.M, s.N, s.K, s.a[i], CUDA_R_16F, s.K, s.b[i], CUDA_R_16F,
                                         s.N, s.c[i], CUDA_R_16F, s.N));
            },
            s.sets);
        printf("| %5d x %5d x %5d | %-34s | %7.1f | 1.000 |\n", s.M, s.N, s.K, "cuBLAS",
               2.0 * s.M * s.N * s.K / (cublas_ms * 1e9));
        bench_one<cfg<H, H, true, false, 128, 256, 64, 4, 2, 1>>(s, cublas_ms);
        bench_one<cfg<H, H, true, false, 128, 256, 64, 3, 2, 1>>(s, cublas_ms);
        bench_one<cfg<H, H, true, false, 128, 128, 64, 4, 1, 1>>(s, cublas_ms);
        free_set(s);
    }
    CUBLAS_CHECK(cublasDestroy(h));
    return 0;
}

int main(int argc, char **argv)
{
    skip_without_device();
    int dev, major, minor;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    if (major != 9 || minor != 0) {
        printf("SKIPPED: the sm_90a path needs a compute capability 9.0 device (this one is %d.%d)\n", major, minor);
        return 77;
    }
    if (argc > 1 && strcmp(argv[1], "bench") == 0)
        return run_bench(argc, argv);
    return run_tests();
}

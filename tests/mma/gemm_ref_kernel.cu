/* gemm_ref_kernel.cu — a GEMM written the way the translator composes the
 * tile80 primitives (tile_mma_sm80.cuh) for the sm_80 path. Included by
 * mma_test.cu and mma_bench.cu; it is the hand-written reference for what the
 * generated code of
 *
 *   for by, bx (tile grid swizzle(PANEL)):
 *       tile_clear(Cf);
 *       for k (tile pipelined stages(STAGES)):
 *           tile_load(As, A, ...); tile_load(Bs, B, ...); tile_gemm*(As, Bs, Cf);
 *       tile_store(C, Cf, by * BM, bx * BN, M, N);
 *
 * should look like. C (M x N) = A (M x K) * B (K x N), all row-major, where
 * A is stored M x K (A_KMAJOR, as tile_gemm / tile_gemm_nt read it) or K x M
 * (tile_gemm_tn / _tt), and B is stored K x N (tile_gemm / _tn) or N x K
 * (B_KMAJOR: tile_gemm_nt / _tt). */
#ifndef TILEPP_TESTS_MMA_GEMM_REF_KERNEL_CU
#define TILEPP_TESTS_MMA_GEMM_REF_KERNEL_CU

#include "tile_mma_sm80.cuh"

#include <stdio.h>

/* How the mainloop is written:
 *   MAINLOOP_BRIEF     wait, barrier, copies for i+S-1, commit, mma(i): the
 *                      primitives in the order the translator emits them;
 *   MAINLOOP_MMA_FIRST wait, barrier, mma(i), copies for i+S-1, commit;
 *   MAINLOOP_PIPELINE  tile80::gemm_pipeline (fragments pipelined across the
 *                      barrier);
 *   MAINLOOP_WALK      gemm_pipeline with its copies through tile80::copier
 *                      (each thread's part of the addresses worked out once,
 *                      as in the translator's own mainloop). */
enum { MAINLOOP_BRIEF = 0, MAINLOOP_MMA_FIRST = 1, MAINLOOP_PIPELINE = 2, MAINLOOP_WALK = 3 };

/* One kernel configuration: block tile, warps, pipeline depth, L2 panel, the
 * blocks per SM that __launch_bounds__ asks registers for, the mainloop. */
template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int STAGES_, int PANEL_ = 8, int MIN_BLOCKS_ = 1,
          int MAINLOOP_ = MAINLOOP_BRIEF>
struct gemm_config {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WARPS_M = WARPS_M_, WARPS_N = WARPS_N_;
    static constexpr int STAGES = STAGES_, PANEL = PANEL_, MIN_BLOCKS = MIN_BLOCKS_, MAINLOOP = MAINLOOP_;
    static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
    static_assert(STAGES >= 2, "at least two stages");
    static void name(char *buf, size_t n)
    {
        static const char *const loops[] = {"", " mma1st", " pipe", " walk"};
        snprintf(buf, n, "%dx%dx%d w%dx%d t%d s%d p%d%s%s", BM, BN, BK, WARPS_M, WARPS_N, THREADS, STAGES, PANEL,
                 MIN_BLOCKS > 1 ? " b2" : "", loops[MAINLOOP]);
    }
};

template <typename Cfg, typename T, bool A_KMAJOR, bool B_KMAJOR> struct gemm_tiles {
    typedef tile80::smem_tile<T, A_KMAJOR ? Cfg::BM : Cfg::BK, A_KMAJOR ? Cfg::BK : Cfg::BM> a_tile;
    typedef tile80::smem_tile<T, B_KMAJOR ? Cfg::BN : Cfg::BK, B_KMAJOR ? Cfg::BK : Cfg::BN> b_tile;
    static constexpr int STAGE_BYTES = a_tile::bytes + b_tile::bytes;
    static constexpr int SMEM_BYTES = Cfg::STAGES * STAGE_BYTES;
};

template <typename Cfg, typename T, typename TO, bool A_KMAJOR, bool B_KMAJOR, int ALIGN>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS)
    gemm_ref_kernel(int M, int N, int K, const T *__restrict__ A, long long lda, const T *__restrict__ B, long long ldb,
                    TO *__restrict__ C, long long ldc)
{
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, S = Cfg::STAGES, THREADS = Cfg::THREADS;
    typedef gemm_tiles<Cfg, T, A_KMAJOR, B_KMAJOR> tiles;
    typedef typename tiles::a_tile a_tile;
    typedef typename tiles::b_tile b_tile;
    extern __shared__ __align__(128) unsigned char smem[];

    /* tile grid swizzle(PANEL): the block's tile */
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const tile80::tile_coord t = tile80::raster(tiles_m, tiles_n, Cfg::PANEL, (int)blockIdx.x);
    const long long m0 = (long long)t.m * BM, n0 = (long long)t.n * BN;

    /* tile shared As[S][..], Bs[S][..]: stage s at smem + s * STAGE_BYTES */
    auto As = [&](int s) { return a_tile{reinterpret_cast<T *>(smem + s * tiles::STAGE_BYTES)}; };
    auto Bs = [&](int s) { return b_tile{reinterpret_cast<T *>(smem + s * tiles::STAGE_BYTES + a_tile::bytes)}; };

    /* tile_load(As, A, ...); tile_load(Bs, B, ...) of k-tile kt into stage s */
    auto load_stage = [&](int s, int kt) {
        const long long k0 = (long long)kt * BK;
        if constexpr (A_KMAJOR)
            tile80::load_async<THREADS, ALIGN>(As(s), A, lda, m0, k0, M, K);
        else
            tile80::load_async<THREADS, ALIGN>(As(s), A, lda, k0, m0, K, M);
        if constexpr (B_KMAJOR)
            tile80::load_async<THREADS, ALIGN>(Bs(s), B, ldb, n0, k0, N, K);
        else
            tile80::load_async<THREADS, ALIGN>(Bs(s), B, ldb, k0, n0, K, N);
    };

    tile80::accum<BM, BN, Cfg::WARPS_M, Cfg::WARPS_N> Cf;
    Cf.clear();

    const int KT = (K + BK - 1) / BK;
    if constexpr (Cfg::MAINLOOP == MAINLOOP_WALK) {
        /* gemm_pipeline, its copies through tile80::copier */
        const tile80::copier<THREADS, ALIGN, T, a_tile::rows, a_tile::cols> ca(A, lda);
        const tile80::copier<THREADS, ALIGN, T, b_tile::rows, b_tile::cols> cb(B, ldb);
        tile80::gemm_pipeline<S, A_KMAJOR, B_KMAJOR, T, BM, BN, BK, Cfg::WARPS_M, Cfg::WARPS_N>(
            KT, As, Bs,
            [&](int s, long long kt) {
                const long long k0 = kt * BK;
                if constexpr (A_KMAJOR)
                    ca.load(As(s), A, lda, m0, k0, M, K);
                else
                    ca.load(As(s), A, lda, k0, m0, K, M);
                if constexpr (B_KMAJOR)
                    cb.load(Bs(s), B, ldb, n0, k0, N, K);
                else
                    cb.load(Bs(s), B, ldb, k0, n0, K, N);
            },
            Cf);
    } else if constexpr (Cfg::MAINLOOP == MAINLOOP_PIPELINE) {
        tile80::gemm_pipeline<S, A_KMAJOR, B_KMAJOR, T, BM, BN, BK, Cfg::WARPS_M, Cfg::WARPS_N>(
            KT, As, Bs, [&](int s, long long kt) { load_stage(s, (int)kt); }, Cf);
    } else {
        /* tile pipelined stages(S): prologue fills S-1 stages */
#pragma unroll
        for (int s = 0; s < S - 1; s++) {
            if (s < KT)
                load_stage(s, s);
            tile80::commit();
        }
        for (int kt = 0; kt < KT; kt++) {
            tile80::wait<S - 2>(); /* stage kt % S has landed (this thread's part) */
            __syncthreads();       /* ... everyone's part; and stage (kt-1) % S is free */
            const int kn = kt + S - 1;
            if constexpr (Cfg::MAINLOOP == MAINLOOP_BRIEF) {
                if (kn < KT)
                    load_stage(kn % S, kn);
                tile80::commit();
            }
            tile80::mma<A_KMAJOR, B_KMAJOR, T, BM, BN, BK, Cfg::WARPS_M, Cfg::WARPS_N>(As(kt % S), Bs(kt % S), Cf);
            if constexpr (Cfg::MAINLOOP == MAINLOOP_MMA_FIRST) {
                if (kn < KT)
                    load_stage(kn % S, kn);
                tile80::commit();
            }
        }
    }

    /* tile_store(C, Cf, by * BM, bx * BN, M, N) */
    tile80::store<TO>(C, ldc, m0, n0, M, N, Cf);
}

/* Host launcher: C = A * B, device pointers, leading dimensions in elements.
 * Two instantiations of the kernel: one for inputs whose rows are all 16-byte
 * aligned (pointer and leading dimension; the tile origins always are), which
 * copies only in 16-byte pieces, and a general one. */
template <typename Cfg, typename T, typename TO, bool A_KMAJOR, bool B_KMAJOR, int ALIGN>
cudaError_t gemm_ref_launch(int M, int N, int K, const T *A, long long lda, const T *B, long long ldb, TO *C,
                            long long ldc, cudaStream_t stream)
{
    typedef gemm_tiles<Cfg, T, A_KMAJOR, B_KMAJOR> tiles;
    auto kernel = gemm_ref_kernel<Cfg, T, TO, A_KMAJOR, B_KMAJOR, ALIGN>;
    static bool configured = false;
    if (!configured) {
        cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, tiles::SMEM_BYTES);
        if (err != cudaSuccess)
            return err;
        err = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                   cudaSharedmemCarveoutMaxShared);
        if (err != cudaSuccess)
            return err;
        configured = true;
    }
    if (M <= 0 || N <= 0)
        return cudaSuccess;
    const long long blocks = (long long)((M + Cfg::BM - 1) / Cfg::BM) * ((N + Cfg::BN - 1) / Cfg::BN);
    if (blocks > 0x7fffffff)
        return cudaErrorInvalidConfiguration;
    kernel<<<(unsigned)blocks, Cfg::THREADS, tiles::SMEM_BYTES, stream>>>(M, N, K, A, lda, B, ldb, C, ldc);
    return cudaGetLastError();
}

template <typename Cfg, typename T, typename TO, bool A_KMAJOR, bool B_KMAJOR>
cudaError_t gemm_ref(int M, int N, int K, const T *A, long long lda, const T *B, long long ldb, TO *C, long long ldc,
                     cudaStream_t stream = 0)
{
    const uintptr_t bits = (uintptr_t)A | (uintptr_t)B | (uintptr_t)lda * sizeof(T) | (uintptr_t)ldb * sizeof(T);
    if ((bits & 15) == 0)
        return gemm_ref_launch<Cfg, T, TO, A_KMAJOR, B_KMAJOR, 16>(M, N, K, A, lda, B, ldb, C, ldc, stream);
    return gemm_ref_launch<Cfg, T, TO, A_KMAJOR, B_KMAJOR, 0>(M, N, K, A, lda, B, ldb, C, ldc, stream);
}

#endif /* TILEPP_TESTS_MMA_GEMM_REF_KERNEL_CU */

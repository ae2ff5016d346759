/* mma_bench.cu — the tile80 GEMM (gemm_ref_kernel.cu) against cuBLAS on the
 * same data, side by side in one process. Not a test: run it by hand on the
 * target GPU.
 *
 *   mma_bench [sizes...]        default: 2048 4096 8192 (square M = N = K)
 *   MMA_BENCH_CSV=file          also write the rows as CSV
 *   MMA_BENCH_ONLY=text         only configurations whose name contains text
 *                               ("cuBLAS" for the library), e.g. for a profiler
 *
 * For each size: cublasGemmEx (fp16 in, fp16 out, fp32 compute) and every
 * configuration below on row-major C = A * B (tile_gemm's layout, fp16),
 * then a few configurations in the other layouts and in bf16. Timing: CUDA
 * events around each launch, warm-up launches first, the median of many;
 * inputs and outputs rotate over enough buffer sets that one pass over them
 * is several times the L2, so no launch finds its inputs in L2 from the one
 * before. Each configuration's result is compared with cuBLAS's once. */
#include "mma_common.h"

#include <algorithm>
#include <math.h>
#include <vector>

/* A, B and C of one size, `sets` times over. */
template <typename T> struct problem {
    int n = 0, sets = 0;
    std::vector<T *> a, b, c;
    problem(int size, size_t l2_bytes) : n(size)
    {
        const size_t elems = (size_t)n * n, set_bytes = 3 * elems * sizeof(T);
        sets = (int)std::min<size_t>(16, std::max<size_t>(2, (4 * l2_bytes + set_bytes - 1) / set_bytes));
        for (int s = 0; s < sets; s++) {
            T *p;
            CUDA_CHECK(cudaMalloc(&p, elems * sizeof(T)));
            fill(p, elems, 2 * s + 1);
            a.push_back(p);
            CUDA_CHECK(cudaMalloc(&p, elems * sizeof(T)));
            fill(p, elems, 2 * s + 2);
            b.push_back(p);
            CUDA_CHECK(cudaMalloc(&p, elems * sizeof(T)));
            CUDA_CHECK(cudaMemset(p, 0xFF, elems * sizeof(T)));
            c.push_back(p);
        }
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    ~problem()
    {
        for (int s = 0; s < sets; s++) {
            cudaFree(a[s]);
            cudaFree(b[s]);
            cudaFree(c[s]);
        }
    }
};

/* Median milliseconds of `run(set)` over `iters` launches after `warm`. */
template <typename F> static double time_median(F run, int sets, int warm, int iters)
{
    std::vector<cudaEvent_t> ev(2 * iters);
    for (auto &e : ev)
        CUDA_CHECK(cudaEventCreate(&e));
    for (int i = 0; i < warm; i++)
        run(i % sets);
    for (int i = 0; i < iters; i++) {
        CUDA_CHECK(cudaEventRecord(ev[2 * i]));
        run(i % sets);
        CUDA_CHECK(cudaEventRecord(ev[2 * i + 1]));
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<double> ms(iters);
    for (int i = 0; i < iters; i++) {
        float t;
        CUDA_CHECK(cudaEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1]));
        ms[i] = t;
    }
    for (auto &e : ev)
        CUDA_CHECK(cudaEventDestroy(e));
    std::sort(ms.begin(), ms.end());
    return ms[iters / 2];
}

static int iters_for(int n) { return n <= 2048 ? 200 : n <= 4096 ? 60 : 20; }

/* ||x - y|| / ||y|| over two device matrices of T */
template <typename T> static double rel_error(const T *x, const T *y, size_t n)
{
    std::vector<T> hx(n), hy(n);
    CUDA_CHECK(cudaMemcpy(hx.data(), x, n * sizeof(T), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hy.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost));
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        const double a = (float)hx[i], b = (float)hy[i];
        num += (a - b) * (a - b);
        den += b * b;
    }
    return sqrt(num / den);
}

struct context {
    cublasHandle_t h;
    size_t l2;
    FILE *csv;
    const char *only; /* MMA_BENCH_ONLY: run only what this names (a substring) */
};

static bool wanted(const context &ctx, const char *name) { return !ctx.only || strstr(name, ctx.only); }

/* One row: cuBLAS's time for the same problem is `ref_ms`. */
static void report(context &ctx, int n, const char *what, const char *layout, const char *type, double ms,
                   double ref_ms, int regs, int smem, int local, double err)
{
    const double tflops = 2.0 * n * n * (double)n / (ms * 1e-3) / 1e12;
    printf("%5d  %-30s %-2s %-4s %8.3f ms %7.1f TFLOP/s  %5.2fx  regs %3d smem %6d%s", n, what, layout, type, ms,
           tflops, ref_ms / ms, regs, smem, local ? "  LOCAL MEMORY" : "");
    if (err >= 0)
        printf("  err %.1e%s", err, err > 1e-2 ? " WRONG" : "");
    printf("\n");
    if (ctx.csv)
        fprintf(ctx.csv, "%d,%s,%s,%s,%.5f,%.2f,%.4f,%d,%d,%d,%.3e\n", n, what, layout, type, ms, tflops, ref_ms / ms,
                regs, smem, local, err);
    fflush(stdout);
}

template <typename T, bool AK, bool BKM> static double bench_cublas(context &ctx, problem<T> &p, int n)
{
    if (!wanted(ctx, "cuBLAS"))
        return 1;
    const long long lda = n, ldb = n;
    auto run = [&](int s) {
        CUBLAS_CHECK(cublas_gemm(ctx.h, AK, BKM, n, n, n, p.a[s], type_info<T>::cuda, lda, p.b[s], type_info<T>::cuda,
                                 ldb, p.c[s], type_info<T>::cuda, n));
    };
    const double ms = time_median(run, p.sets, 5, iters_for(n));
    report(ctx, n, "cuBLAS", layout_name(AK, BKM), type_info<T>::name(), ms, ms, 0, 0, 0, -1);
    return ms;
}

/* The square problem with every leading dimension n. The reference for the
 * error: cuBLAS's output for set 0, computed first into c[1]. */
template <typename Cfg, typename T, bool AK, bool BKM>
static void bench_config(context &ctx, problem<T> &p, int n, double ref_ms, bool check)
{
    typedef gemm_tiles<Cfg, T, AK, BKM> tiles;
    char name[96];
    Cfg::name(name, sizeof name);
    if (!wanted(ctx, name))
        return;
    cudaFuncAttributes attr;
    CUDA_CHECK(cudaFuncGetAttributes(&attr, gemm_ref_kernel<Cfg, T, T, AK, BKM, 16>));
    double err = -1;
    if (check) {
        CUBLAS_CHECK(cublas_gemm(ctx.h, AK, BKM, n, n, n, p.a[0], type_info<T>::cuda, n, p.b[0], type_info<T>::cuda, n,
                                 p.c[1], type_info<T>::cuda, n));
        CUDA_CHECK(cudaMemset(p.c[0], 0xFF, (size_t)n * n * sizeof(T)));
        CUDA_CHECK((gemm_ref_launch<Cfg, T, T, AK, BKM, 16>(n, n, n, p.a[0], n, p.b[0], n, p.c[0], n, 0)));
        CUDA_CHECK(cudaDeviceSynchronize());
        err = rel_error(p.c[0], p.c[1], (size_t)n * n);
    }
    auto run = [&](int s) {
        CUDA_CHECK((gemm_ref_launch<Cfg, T, T, AK, BKM, 16>(n, n, n, p.a[s], n, p.b[s], n, p.c[s], n, 0)));
    };
    const double ms = time_median(run, p.sets, 5, iters_for(n));
    report(ctx, n, name, layout_name(AK, BKM), type_info<T>::name(), ms, ref_ms, attr.numRegs, tiles::SMEM_BYTES,
           (int)attr.localSizeBytes, err);
}

/* BM x BN x BK, warps M x N, stages, panel, min blocks per SM, mainloop */
enum { BRIEF = MAINLOOP_BRIEF, MMA1ST = MAINLOOP_MMA_FIRST, PIPE = MAINLOOP_PIPELINE, WALK = MAINLOOP_WALK };
template <typename... Cfgs> struct config_list {
};
typedef config_list<
    /* the primitives in the translator's order */
    gemm_config<64, 64, 32, 2, 2, 3>, gemm_config<128, 128, 32, 2, 4, 3>, gemm_config<128, 128, 32, 2, 4, 3, 8, 2>,
    gemm_config<128, 128, 32, 2, 2, 4>, gemm_config<128, 256, 32, 2, 4, 3>, gemm_config<256, 128, 32, 4, 2, 3>,
    gemm_config<128, 128, 64, 2, 2, 3>, gemm_config<128, 128, 64, 2, 2, 3, 4>, gemm_config<128, 128, 64, 2, 2, 3, 16>,
    gemm_config<128, 128, 64, 2, 4, 3>, gemm_config<128, 256, 64, 2, 4, 3>, gemm_config<256, 128, 64, 4, 2, 3>,
    /* mma before the copies */
    gemm_config<128, 128, 64, 2, 2, 3, 8, 1, MMA1ST>, gemm_config<128, 256, 64, 2, 4, 3, 8, 1, MMA1ST>,
    /* tile80::gemm_pipeline */
    gemm_config<128, 128, 64, 2, 2, 3, 8, 1, PIPE>, gemm_config<128, 256, 64, 2, 4, 3, 8, 1, PIPE>,
    gemm_config<128, 256, 64, 2, 4, 4, 8, 1, PIPE>, gemm_config<128, 256, 32, 2, 4, 4>,
    gemm_config<128, 256, 32, 2, 4, 3, 8, 1, PIPE>, gemm_config<128, 256, 32, 2, 4, 4, 8, 1, PIPE>,
    gemm_config<256, 128, 32, 4, 2, 4, 8, 1, PIPE>, gemm_config<128, 256, 32, 2, 4, 4, 8, 1, WALK>,
    gemm_config<128, 256, 32, 2, 4, 3, 8, 1, WALK>, gemm_config<128, 256, 64, 2, 4, 3, 8, 1, WALK>,
    gemm_config<128, 128, 64, 2, 2, 3, 8, 1, WALK>, gemm_config<128, 128, 32, 2, 2, 4, 8, 1, WALK>>
    fp16_nn_configs;
/* in every layout and in bf16 too */
typedef config_list<gemm_config<128, 128, 64, 2, 2, 3>, gemm_config<128, 256, 64, 2, 4, 3, 8, 1, PIPE>> layout_configs;

template <typename T, bool AK, bool BKM, typename... Cfgs>
static void bench_list(context &ctx, problem<T> &p, int n, double ref, bool check, config_list<Cfgs...>)
{
    (bench_config<Cfgs, T, AK, BKM>(ctx, p, n, ref, check), ...);
}

int main(int argc, char **argv)
{
    skip_without_device();
    std::vector<int> sizes;
    for (int i = 1; i < argc; i++)
        sizes.push_back(atoi(argv[i]));
    if (sizes.empty())
        sizes = {2048, 4096, 8192};

    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    int clock_khz = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
    printf("device: %s (sm_%d%d, %d SMs, L2 %d MB, %d KB smem/block opt-in, %d MHz)\n", prop.name, prop.major,
           prop.minor, prop.multiProcessorCount, prop.l2CacheSize >> 20, (int)(prop.sharedMemPerBlockOptin >> 10),
           clock_khz / 1000);

    context ctx;
    CUBLAS_CHECK(cublasCreate(&ctx.h));
    ctx.l2 = prop.l2CacheSize;
    ctx.csv = nullptr;
    ctx.only = getenv("MMA_BENCH_ONLY");
    if (const char *out = getenv("MMA_BENCH_CSV")) {
        ctx.csv = fopen(out, "w");
        if (ctx.csv)
            fprintf(ctx.csv, "size,config,layout,type,ms,tflops,ratio_cublas,regs,smem,local,err\n");
    }

    for (int n : sizes) {
        printf("\n-- %d x %d x %d --\n", n, n, n);
        {
            problem<tile_half> p(n, ctx.l2);
            const bool check = n <= 4096;
            const double ref = bench_cublas<tile_half, true, false>(ctx, p, n);
            bench_list<tile_half, true, false>(ctx, p, n, ref, check, fp16_nn_configs());
            bench_cublas<tile_half, true, false>(ctx, p, n); /* again: drift between first and last */
            const double r_nt = bench_cublas<tile_half, true, true>(ctx, p, n);
            bench_list<tile_half, true, true>(ctx, p, n, r_nt, check, layout_configs());
            const double r_tn = bench_cublas<tile_half, false, false>(ctx, p, n);
            bench_list<tile_half, false, false>(ctx, p, n, r_tn, check, layout_configs());
            const double r_tt = bench_cublas<tile_half, false, true>(ctx, p, n);
            bench_list<tile_half, false, true>(ctx, p, n, r_tt, check, layout_configs());
        }
        {
            problem<tile_bfloat16> p(n, ctx.l2);
            const double ref = bench_cublas<tile_bfloat16, true, false>(ctx, p, n);
            bench_list<tile_bfloat16, true, false>(ctx, p, n, ref, n <= 4096, layout_configs());
        }
    }
    if (ctx.csv)
        fclose(ctx.csv);
    CUBLAS_CHECK(cublasDestroy(ctx.h));
    return 0;
}

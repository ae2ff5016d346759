/* gemm_test.c — each kernel of gemm_kernels.c (nn and nt in half, tn
 * bfloat16 -> float, tt bfloat16 with 64 x 64 tiles, stages(1) and
 * policy(row), the wide 128 x 256 x 64 block with 256 threads and float
 * output, the batched 3-D grid over slices) on many shapes:
 *
 *   squares 1, 16, 128, 256, 1024; tall and skinny 4096x64x256, 64x4096x256;
 *   K no multiple of the kernel's BK (1007); M and N no multiples of the tile
 *   (1000x1003); K < BK; exactly one k-tile (K = BK); M or N (or both)
 *   smaller than one tile; K = 1; a tiny odd shape; and the edge cases again
 *   with 16-byte aligned rows (on Hopper, the sm_90a variants run those:
 *   TMA needs the alignment; the others run the sm_80 kernels; the device
 *   script runs the test again with TILEPP_PATH=sm80). The batched kernel runs
 *   these with 2 batches, and more shapes with 1 to 7 batches, each batch
 *   with its own data.
 *
 * Inputs are random in [-1, 1] (never 0) and surrounded by NaNs (a read
 * outside A or B shows up as a NaN in C). C is poisoned with NaNs before the
 * kernel runs, with GC_GUARD poisoned elements on both sides (gpu_check.h).
 * Each case checks
 *   - the launcher's status and the kernel's completion,
 *   - that every element of C was written and nothing before or after it,
 *   - (a) ||gpu - cpu|| / ||cpu|| against the CPU reference, the same kernel
 *     function compiled from gemm_kernels.c by the C compiler (skipped when
 *     batch*M*N*K > 512^3 multiply-adds, to keep the run short: the line
 *     says "cpu skipped"),
 *   - (b) ||gpu - cublas|| / ||cublas|| against cublasGemmEx with fp32
 *     accumulation and a float result (CUBLAS_COMPUTE_32F; row-major through
 *     the operand swap of cublas_ref.h, each transposition handled), for
 *     every shape,
 *   - and, as a check of the test itself, the CPU reference against cuBLAS.
 *
 * Tolerances (relative, 2-norm, in double). The inputs are half or bfloat16,
 * so every product is exact in fp32 (11 x 11 and 8 x 8 significant bits fit
 * in 24); what differs between tensor cores, cuBLAS and the CPU is the order
 * and the rounding of the fp32 additions — each addition is off by at most
 * 2^-24 relative (tensor cores truncate rather than round: up to 2^-23), and
 * over K <= 4096 terms of random sign the error stays far below 2^-12
 * (typically sqrt(K) * 2^-24 ~ 4e-6). Then the result is rounded once to the
 * output type:
 *   - float output:    2^-12 (~2.4e-4), the accumulation alone;
 *   - half output:     2^-10 (~9.8e-4): rounding to half is at most 2^-11
 *     relative per element (ulp 2^-10), plus the accumulation margin; against
 *     the CPU's half result, two roundings of nearly equal sums differ by at
 *     most one ulp, and only for the few sums near a rounding boundary;
 *   - bfloat16 output: 2^-7 (~7.8e-3): rounding is at most 2^-8 relative.
 * A wrong or missing element, a dropped k-tile (for K = 1024 and BK = 32 one
 * tile is ~0.18 of the norm) or a wrong edge gives errors far above these.
 *
 * With TILEPP_PATH=sm90 in the environment (device_run.sh runs it so on
 * Hopper), the cases whose rows TMA cannot address must get
 * cudaErrorNotSupported from the launcher, and all others run the sm_90a
 * variant: the check that the variant, and not the fallback, ran.
 *
 * --small runs only the products up to 512^3 multiply-adds (for
 * compute-sanitizer). Prints one line per case and "N passed, N failed"; exits 0 when all
 * passed, 1 otherwise, 77 (SKIPPED) without a CUDA device. */
#include "gpu_check.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cublas_ref.h"
#include "gemm_kernels.tile.h"

/* The CPU references, compiled from gemm_kernels.c by the C compiler. */
void gemm_nn(int M, int N, int K, const half A[M][K], const half B[K][N], half C[M][N]);
void gemm_nt(int M, int N, int K, const half A[M][K], const half B[N][K], half C[M][N]);
void gemm_tn_bf16(int M, int N, int K, const bfloat16 A[K][M], const bfloat16 B[K][N],
                  float C[M][N]);
void gemm_tt_bf16(int M, int N, int K, const bfloat16 A[K][M], const bfloat16 B[N][K],
                  bfloat16 C[M][N]);
void gemm_nn_wide(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N]);
void gemm_nt_tall(int M, int N, int K, const half A[M][K], const half B[N][K], half C[M][N]);
void gemm_batched(int batch, int M, int N, int K, const half A[batch][M][K],
                  const half B[batch][K][N], half C[batch][M][N]);

#define TOL_F32 0x1p-12
#define TOL_F16 0x1p-10
#define TOL_BF16 0x1p-7

/* The CPU comparison is skipped above this many multiply-adds. */
#define CPU_MAX_MACS (512.0 * 512.0 * 512.0)

/* ---- the kernels ---------------------------------------------------------- */

typedef void (*cpu_fn)(int batch, int M, int N, int K, const void *A, const void *B, void *C);
typedef cudaError_t (*gpu_fn)(int batch, int M, int N, int K, const void *A, const void *B,
                              void *C);

/* Wrappers with one signature; the batch count is used by gemm_batched only. */
static void cpu_nn(int batch, int M, int N, int K, const void *A, const void *B, void *C)
{
    (void)batch;
    gemm_nn(M, N, K, A, B, C);
}
static void cpu_nt(int batch, int M, int N, int K, const void *A, const void *B, void *C)
{
    (void)batch;
    gemm_nt(M, N, K, A, B, C);
}
static void cpu_tn_bf16(int batch, int M, int N, int K, const void *A, const void *B, void *C)
{
    (void)batch;
    gemm_tn_bf16(M, N, K, A, B, C);
}
static void cpu_tt_bf16(int batch, int M, int N, int K, const void *A, const void *B, void *C)
{
    (void)batch;
    gemm_tt_bf16(M, N, K, A, B, C);
}
static void cpu_nn_wide(int batch, int M, int N, int K, const void *A, const void *B, void *C)
{
    (void)batch;
    gemm_nn_wide(M, N, K, A, B, C);
}
static void cpu_nt_tall(int batch, int M, int N, int K, const void *A, const void *B, void *C)
{
    (void)batch;
    gemm_nt_tall(M, N, K, A, B, C);
}
static void cpu_batched(int batch, int M, int N, int K, const void *A, const void *B, void *C)
{
    gemm_batched(batch, M, N, K, A, B, C);
}

static cudaError_t gpu_nn(int batch, int M, int N, int K, const void *A, const void *B, void *C)
{
    (void)batch;
    return gemm_nn_gpu(M, N, K, A, B, C);
}
static cudaError_t gpu_nt(int batch, int M, int N, int K, const void *A, const void *B, void *C)
{
    (void)batch;
    return gemm_nt_gpu(M, N, K, A, B, C);
}
static cudaError_t gpu_tn_bf16(int batch, int M, int N, int K, const void *A, const void *B,
                               void *C)
{
    (void)batch;
    return gemm_tn_bf16_gpu(M, N, K, A, B, C);
}
static cudaError_t gpu_tt_bf16(int batch, int M, int N, int K, const void *A, const void *B,
                               void *C)
{
    (void)batch;
    return gemm_tt_bf16_gpu(M, N, K, A, B, C);
}
static cudaError_t gpu_nn_wide(int batch, int M, int N, int K, const void *A, const void *B,
                               void *C)
{
    (void)batch;
    return gemm_nn_wide_gpu(M, N, K, A, B, C);
}
static cudaError_t gpu_nt_tall(int batch, int M, int N, int K, const void *A, const void *B,
                               void *C)
{
    (void)batch;
    return gemm_nt_tall_gpu(M, N, K, A, B, C);
}
static cudaError_t gpu_batched(int batch, int M, int N, int K, const void *A, const void *B,
                               void *C)
{
    return gemm_batched_gpu(batch, M, N, K, A, B, C);
}

typedef struct {
    const char *name;
    int trans_a, trans_b; /* A given K x M / B given N x K */
    gc_type in, out;
    int bm, bn, bk;       /* the kernel's block tile, for the edge shapes */
    int batched;
    cpu_fn cpu;
    gpu_fn gpu;
} kernel;

static const kernel kernels[] = {
    {"gemm_nn", 0, 0, GC_F16, GC_F16, 128, 128, 32, 0, cpu_nn, gpu_nn},
    {"gemm_nt", 0, 1, GC_F16, GC_F16, 128, 128, 32, 0, cpu_nt, gpu_nt},
    {"gemm_tn_bf16", 1, 0, GC_BF16, GC_F32, 128, 128, 32, 0, cpu_tn_bf16, gpu_tn_bf16},
    {"gemm_tt_bf16", 1, 1, GC_BF16, GC_BF16, 64, 64, 32, 0, cpu_tt_bf16, gpu_tt_bf16},
    {"gemm_nn_wide", 0, 0, GC_F16, GC_F32, 128, 256, 64, 0, cpu_nn_wide, gpu_nn_wide},
    {"gemm_nt_tall", 0, 1, GC_F16, GC_F16, 192, 128, 64, 0, cpu_nt_tall, gpu_nt_tall},
    {"gemm_batched", 0, 0, GC_F16, GC_F16, 64, 64, 32, 1, cpu_batched, gpu_batched},
};

static const char *type_name(gc_type t)
{
    return t == GC_F32 ? "float" : t == GC_F16 ? "half" : "bf16";
}

static cudaDataType_t cuda_type(gc_type t)
{
    return t == GC_F32 ? CUDA_R_32F : t == GC_F16 ? CUDA_R_16F : CUDA_R_16BF;
}

static double tolerance(gc_type out)
{
    return out == GC_F32 ? TOL_F32 : out == GC_F16 ? TOL_F16 : TOL_BF16;
}

/* ---- checks --------------------------------------------------------------- */

static double element(gc_type t, const void *p, size_t i) { return tile_check_get(t, p, i); }

/* ||out - ref|| / ||ref||, out of type t, ref float. NaN when out has one. */
static double rel_err_vs_f32(gc_type t, const void *out, const float *ref, size_t n)
{
    return tile_check_rel_err(t, out, TILE_CHECK_F32, ref, n);
}

/* TILEPP_PATH=sm90: the launchers must run the sm_90a variants, or return
 * cudaErrorNotSupported where they cannot. */
static bool require_sm90(void)
{
    const char *path = getenv("TILEPP_PATH");
    return path && strcmp(path, "sm90") == 0;
}

/* Whether TMA can copy the operands' tiles: every row of A and B (and each
 * slice) starts on a 16-byte boundary, and K is not 0. */
static bool tma_can_load(const kernel *kd, int M, int N, int K)
{
    int es = (int)gc_size(kd->in);
    long long lda = kd->trans_a ? M : K, ldb = kd->trans_b ? K : N;
    return K > 0 && lda * es % 16 == 0 && ldb * es % 16 == 0 && (long long)M * K * es % 16 == 0 &&
           (long long)K * N * es % 16 == 0;
}

/* The first element (row, col of its batch) where out and ref differ by more
 * than `tol` relative to the largest |ref| — where a failure starts. */
static void describe_first_mismatch(gc_type t, const void *out, const float *ref, int batch,
                                    int M, int N, double tol, char *buf, size_t len)
{
    size_t n = (size_t)batch * (size_t)M * (size_t)N, bad = 0, first = n;
    double scale = 0.0;
    for (size_t i = 0; i < n; i++)
        scale = fmax(scale, fabs(ref[i]));
    for (size_t i = 0; i < n; i++) {
        double o = element(t, out, i);
        if (!(fabs(o - ref[i]) <= tol * 8.0 * scale)) {
            if (bad++ == 0)
                first = i;
        }
    }
    if (bad == 0) {
        snprintf(buf, len, "no single element off by more than %.1e of max|ref|", tol * 8.0);
        return;
    }
    size_t per = (size_t)M * (size_t)N, b = first / per, r = first % per / (size_t)N,
           col = first % (size_t)N;
    snprintf(buf, len, "%zu of %zu elements off; first at batch %zu row %zu col %zu: %.6g vs %.6g",
             bad, n, b, r, col, element(t, out, first), (double)ref[first]);
}

static cublasHandle_t blas;

/* --small: only the products up to 512^3 multiply-adds (the compute-sanitizer
 * runs, where every access is checked and a 1024^3 product takes minutes). */
static bool small_only;

static void run_case(const kernel *kd, int batch, int M, int N, int K, const char *what)
{
    if (small_only && (long long)batch * M * N * K > 512LL * 512 * 512)
        return;
    gc_case c;
    gc_begin(&c);
    size_t na = (size_t)batch * M * K, nb = (size_t)batch * K * N, nc = (size_t)batch * M * N;
    double tol = tolerance(kd->out);
    gc_buf *a = gc_in(&c, kd->in, na, 0);
    gc_buf *b = gc_in(&c, kd->in, nb, 0);
    gc_buf *out = gc_out(&c, kd->out, nc, 0, tol);
    char label[96], shape[48];
    if (kd->batched)
        snprintf(shape, sizeof shape, "%dx%dx%dx%d", batch, M, N, K);
    else
        snprintf(shape, sizeof shape, "%dx%dx%d", M, N, K);
    snprintf(label, sizeof label, "%-12s %-16s %-19s", kd->name, shape, what);

    /* (a) the CPU reference, when small enough. */
    double macs = (double)batch * M * N * K;
    int with_cpu = macs <= CPU_MAX_MACS;
    if (with_cpu)
        kd->cpu(batch, M, N, K, a->host, b->host, out->host);

    /* (b) cuBLAS, float output, one call per batch. */
    float *ref_dev = NULL, *ref = tile_check_xmalloc(nc * sizeof(float));
    SU_CHECK(cudaMalloc((void **)&ref_dev, nc * sizeof(float)));
    SU_CHECK(tile_check_poison(ref_dev, nc * sizeof(float)));
    size_t es = gc_size(kd->in);
    for (int i = 0; i < batch; i++) {
        cublasStatus_t st =
            cr_gemm(blas, kd->trans_a, kd->trans_b, M, N, K, (const char *)a->dev + i * (na / batch) * es,
                    cuda_type(kd->in), (const char *)b->dev + i * (nb / batch) * es,
                    cuda_type(kd->in), ref_dev + i * (nc / batch), CUDA_R_32F);
        if (st != CUBLAS_STATUS_SUCCESS)
            gc_fail(&c, "cuBLAS reference failed: %s (test bug)", cr_status_name(st));
    }
    SU_CHECK(cudaDeviceSynchronize());
    SU_CHECK(cudaMemcpy(ref, ref_dev, nc * sizeof(float), cudaMemcpyDeviceToHost));
    SU_CHECK(cudaFree(ref_dev));

    /* The kernel. */
    cudaError_t launch = kd->gpu(batch, M, N, K, a->dev, b->dev, out->dev);
    cudaError_t sync = cudaDeviceSynchronize();

    double err_cpu = NAN, err_blas = NAN, err_ref = NAN;
    size_t total = GC_GUARD + nc + GC_GUARD, first;
    unsigned char *all = tile_check_xmalloc(total * gc_size(kd->out));
    const unsigned char *gpu = all + GC_GUARD * gc_size(kd->out);
    bool not_applicable = require_sm90() && !tma_can_load(kd, M, N, K);
    if (not_applicable) { /* TILEPP_PATH=sm90: the launcher must say so, not fall back */
        if (launch != cudaErrorNotSupported)
            gc_fail(&c, "TILEPP_PATH=sm90 and no TMA-aligned rows, yet the launcher returned %s",
                    cudaGetErrorName(launch));
    } else if (launch != cudaSuccess) {
        gc_fail(&c, "launcher returned %s (%s)", cudaGetErrorName(launch), cudaGetErrorString(launch));
    } else if (sync != cudaSuccess) {
        gc_fail(&c, "kernel failed: %s (%s)", cudaGetErrorName(sync), cudaGetErrorString(sync));
    } else {
        SU_CHECK(cudaMemcpy(all, out->dev_base, total * gc_size(kd->out), cudaMemcpyDeviceToHost));
        size_t unwritten = gc_count_nan(kd->out, gpu, nc, &first);
        err_blas = rel_err_vs_f32(kd->out, gpu, ref, nc);
        if (with_cpu) {
            err_cpu = gc_rel_err(kd->out, gpu, out->host, nc);
            err_ref = rel_err_vs_f32(kd->out, out->host, ref, nc);
        }
        size_t per = (size_t)M * (size_t)N;
        if (!tile_check_is_poisoned(all, GC_GUARD * gc_size(kd->out)))
            gc_fail(&c, "written before the start of C");
        else if (!tile_check_is_poisoned(gpu + nc * gc_size(kd->out), GC_GUARD * gc_size(kd->out)))
            gc_fail(&c, "written past the end of C");
        else if (unwritten)
            gc_fail(&c, "%zu of %zu elements of C not written (first: batch %zu row %zu col %zu)",
                    unwritten, nc, first / per, first % per / (size_t)N, first % (size_t)N);
        else if (with_cpu && gc_count_nan(kd->out, out->host, nc, &first))
            gc_fail(&c, "the CPU reference left element %zu unwritten (test bug)", first);
        else if (with_cpu && !(err_ref < tol))
            gc_fail(&c, "CPU reference and cuBLAS disagree: %.3g (test bug)", err_ref);
        else if (with_cpu && !(err_cpu < tol))
            gc_fail(&c, "vs CPU: relative error %.3g >= %.1e", err_cpu, tol);
        else if (!(err_blas < tol))
            gc_fail(&c, "vs cuBLAS: relative error %.3g >= %.1e", err_blas, tol);
    }

    int ok = c.failure[0] == '\0';
    char cpu_text[48];
    if (with_cpu)
        snprintf(cpu_text, sizeof cpu_text, "cpu %.2e", err_cpu);
    else
        snprintf(cpu_text, sizeof cpu_text, "cpu skipped (>512^3)");
    if (ok && not_applicable) {
        printf("PASS  %-50s sm_90a variant not applicable: cudaErrorNotSupported, as TILEPP_PATH=sm90 asks\n",
               label);
    } else if (ok) {
        printf("PASS  %-50s %-20s cublas %.2e  (tol %.1e)\n", label, cpu_text, err_blas, tol);
    } else {
        printf("FAIL  %-50s %s [%s, cublas %.2e]\n", label, c.failure, cpu_text, err_blas);
        if (launch == cudaSuccess && sync == cudaSuccess) {
            char detail[200];
            describe_first_mismatch(kd->out, gpu, ref, batch, M, N, tol, detail, sizeof detail);
            printf("      %s\n", detail);
        }
    }
    fflush(stdout);
    ok ? gc_passed++ : gc_failed++;

    free(all);
    free(ref);
    for (int i = 0; i < c.nbufs; i++) {
        free(c.bufs[i].host);
        (void)cudaFree(c.bufs[i].dev_base);
    }
    c.nbufs = 0;
    if (sync != cudaSuccess) {
        /* A kernel fault leaves the context unusable: the rest cannot run. */
        printf("stopping: the CUDA context is broken (%s)\n", cudaGetErrorString(sync));
        printf("%d passed, %d failed\n", gc_passed, gc_failed + 1);
        exit(1);
    }
}

/* ---- the shapes --------------------------------------------------------- */

static void run_kernel(const kernel *kd, int batch)
{
    const int bm = kd->bm, bn = kd->bn, bk = kd->bk;
    struct {
        int M, N, K;
        const char *what;
    } shapes[] = {
        {1, 1, 1, "square 1"},
        {16, 16, 16, "square 16"},
        {128, 128, 128, "square 128"},
        {256, 256, 256, "square 256"},
        {1024, 1024, 1024, "square 1024"},
        {4096, 64, 256, "tall"},
        {64, 4096, 256, "wide"},
        {256, 256, 1007, "K % BK != 0"},
        {1000, 1003, 128, "M, N % tile != 0"},
        {1000, 1003, 1007, "M, N, K % tile != 0"},
        {200, 136, bk - 1, "K < BK"},
        {96, 80, bk / 2, "K = BK/2"},
        {256, 384, bk, "one k-tile"},
        {bm / 2 + 1, 300, 100, "M < tile"},
        {300, bn / 2 + 3, 100, "N < tile"},
        {7, 9, 45, "M, N < tile"},
        {130, 260, 1, "K = 1"},
        {3, 5, 7, "tiny odd"},
        /* The same edges with every row 16-byte aligned (extents multiples
         * of 8), which on Hopper the sm_90a variant (TMA) takes. */
        {1000, 1000, 1000, "M, N, K % tile != 0 (aligned)"},
        {200, 136, bk - 8, "K < BK (aligned)"},
        {96, 80, 8, "one partial k-tile (aligned)"},
        {40, 312, 104, "M < tile (aligned)"},
        {312, 24, 104, "N < tile (aligned)"},
        {8, 16, 8, "M, N, K < tile (aligned)"},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        run_case(kd, batch, shapes[i].M, shapes[i].N, shapes[i].K, shapes[i].what);
}

int main(int argc, char **argv)
{
    small_only = argc > 1 && strcmp(argv[1], "--small") == 0;
    gc_require_gpu();
    CR_CHECK(cublasCreate(&blas));
    printf("CPU comparison for batch*M*N*K <= 512^3 multiply-adds; cuBLAS (fp32 accumulate, "
           "float result) for every shape.\n");

    for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++) {
        const kernel *kd = &kernels[k];
        printf("-- %s: %s%s x %s%s -> %s, block %dx%dx%d%s\n", kd->name, type_name(kd->in),
               kd->trans_a ? "^T" : "", type_name(kd->in), kd->trans_b ? "^T" : "",
               type_name(kd->out), kd->bm, kd->bn, kd->bk, kd->batched ? ", batched (2 batches)" : "");
        run_kernel(kd, kd->batched ? 2 : 1);
        if (kd->batched) {
            printf("-- %s: more batch counts\n", kd->name);
            run_case(kd, 1, 1, 1, 1, "1 batch, 1x1x1");
            run_case(kd, 3, 128, 128, 128, "3 batches");
            run_case(kd, 4, 64, 64, 32, "4 batches, one tile each");
            run_case(kd, 5, 100, 70, 45, "5 batches, edges");
            run_case(kd, 7, 65, 129, 33, "7 batches, edges");
            run_case(kd, 3, 1000, 1003, 1007, "3 batches, large");
        }
    }

    CR_CHECK(cublasDestroy(blas));
    return gc_summary();
}

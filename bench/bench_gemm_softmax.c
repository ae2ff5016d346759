/* bench_gemm_softmax.c — a GEMM with a row softmax in its epilogue
 * (samples/gemm_softmax.c: P = softmax(A B), the softmax on the accumulator
 * in registers) side by side, in one process and in turns (bench_pair), with
 *
 *   - the unfused pair: cuBLAS (cublasGemmEx, fp32 accumulation, fp16 out)
 *     into a temporary, then samples/softmax.c's softmax_f16 kernel, and
 *   - cuBLAS's GEMM alone (what the pair spends on the product),
 *
 * at shapes whose rows fit one tile (N <= 256), fp16, K from 64 to 4096. TFLOP/s count the
 * product's 2MNK only. The fused kernel is checked first against its own
 * CPU run at a ragged shape, and against the unfused pair at each timed
 * shape. Prints a markdown table (bench/RESULTS.md); with --csv FILE also
 * one CSV record per pair timed (bench/plot.py). Without a CUDA device
 * prints "SKIPPED: ..." and exits 77. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <tilepp/bench.h>

#include "cublas_ref.h"
#include "gemm_softmax.tile.h"
#include "softmax.tile.h"

void gemm_softmax(int M, int N, int K, const half A[M][K], const half B[K][N], half P[M][N]);

static cublasHandle_t blas;
static FILE *csv; /* --csv FILE, or NULL */

/* One buffer set: A | B | P | T (the unfused pair's temporary). */
typedef struct {
    int M, N, K, nsets;
    size_t a_bytes, b_bytes, p_bytes;
    char **base;
} problem;

enum { PART_A, PART_B, PART_P, PART_T };

static void *part(const problem *p, int set, int which)
{
    size_t off[4] = {0, p->a_bytes, p->a_bytes + p->b_bytes, p->a_bytes + p->b_bytes + p->p_bytes};
    return p->base[set] + off[which];
}

static cudaError_t run_fused(void *ctx, int set)
{
    const problem *p = ctx;
    return gemm_softmax_gpu(p->M, p->N, p->K, part(p, set, PART_A), part(p, set, PART_B), part(p, set, PART_P));
}

static cudaError_t run_gemm(void *ctx, int set)
{
    const problem *p = ctx;
    cublasStatus_t st = cr_gemm(blas, 0, 0, p->M, p->N, p->K, part(p, set, PART_A), CUDA_R_16F, part(p, set, PART_B),
                                CUDA_R_16F, part(p, set, PART_T), CUDA_R_16F);
    return st == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

static cudaError_t run_unfused(void *ctx, int set)
{
    const problem *p = ctx;
    cudaError_t err = run_gemm(ctx, set);
    return err != cudaSuccess ? err : softmax_f16_gpu(p->M, p->N, p->N, part(p, set, PART_T), part(p, set, PART_P));
}

static void alloc_problem(problem *p, int M, int N, int K, int nsets)
{
    p->M = M, p->N = N, p->K = K;
    p->a_bytes = ((size_t)M * K * sizeof(half) + 255) / 256 * 256;
    p->b_bytes = ((size_t)K * N * sizeof(half) + 255) / 256 * 256;
    p->p_bytes = ((size_t)M * N * sizeof(half) + 255) / 256 * 256;
    size_t set = p->a_bytes + p->b_bytes + 2 * p->p_bytes;
    p->nsets = nsets ? nsets : tile_bench_sets(set);
    p->base = tile_check_xmalloc((size_t)p->nsets * sizeof *p->base);
    tile_check_rng rng = tile_check_rng_seed((uint64_t)M * 7 + (uint64_t)N * 3 + (uint64_t)K);
    half *host = tile_check_xmalloc(p->a_bytes + p->b_bytes);
    tile_check_fill(TILE_CHECK_F16, host, (p->a_bytes + p->b_bytes) / sizeof(half), &rng);
    for (int i = 0; i < p->nsets; i++) {
        TILE_CHECK_CUDA(cudaMalloc((void **)&p->base[i], set));
        TILE_CHECK_CUDA(cudaMemcpy(p->base[i], host, p->a_bytes + p->b_bytes, cudaMemcpyHostToDevice));
    }
    free(host);
}

static void free_problem(problem *p)
{
    for (int i = 0; i < p->nsets; i++)
        TILE_CHECK_CUDA(cudaFree(p->base[i]));
    free(p->base);
}

/* P of set 0 after fn, poisoned before. */
static half *result(problem *p, tile_bench_fn fn)
{
    half *out = tile_check_xmalloc(p->p_bytes);
    TILE_CHECK_CUDA(tile_check_poison(part(p, 0, PART_P), p->p_bytes));
    TILE_CHECK_CUDA(fn(p, 0));
    TILE_CHECK_CUDA(cudaDeviceSynchronize());
    TILE_CHECK_CUDA(cudaMemcpy(out, part(p, 0, PART_P), p->p_bytes, cudaMemcpyDeviceToHost));
    return out;
}

/* The fused kernel against its CPU run at a shape no tile divides. */
static int check_cpu(void)
{
    problem p;
    int M = 300, N = 200, K = 136;
    alloc_problem(&p, M, N, K, 1);
    half *a = tile_check_xmalloc(p.a_bytes), *b = tile_check_xmalloc(p.b_bytes), *ref = tile_check_xmalloc(p.p_bytes);
    TILE_CHECK_CUDA(cudaMemcpy(a, part(&p, 0, PART_A), p.a_bytes, cudaMemcpyDeviceToHost));
    TILE_CHECK_CUDA(cudaMemcpy(b, part(&p, 0, PART_B), p.b_bytes, cudaMemcpyDeviceToHost));
    gemm_softmax(M, N, K, (const half(*)[K])a, (const half(*)[N])b, (half(*)[N])ref);
    half *out = result(&p, run_fused);
    double err = tile_check_rel_err(TILE_CHECK_F16, out, TILE_CHECK_F16, ref, (size_t)M * N);
    printf("check: fused %dx%dx%d against its CPU run: relative error %.2e\n\n", M, N, K, err);
    free(a), free(b), free(ref), free(out);
    free_problem(&p);
    return !(err < 1e-2);
}

static int bench_shape(int M, int N, int K)
{
    problem p;
    alloc_problem(&p, M, N, K, 0);
    half *fused = result(&p, run_fused), *unfused = result(&p, run_unfused);
    double err = tile_check_rel_err(TILE_CHECK_F16, fused, TILE_CHECK_F16, unfused, (size_t)M * N);
    free(fused), free(unfused);
    if (!(err < 1e-2)) {
        printf("| %6d x %3d x %5d | WRONG RESULT: fused vs unfused relative error %.3g; not timed |\n", M, N, K, err);
        free_problem(&p);
        return 1;
    }
    tile_bench_result f1, unf, f2, gemm;
    tile_bench_pair(run_fused, &p, run_unfused, &p, p.nsets, &f1, &unf);
    tile_bench_pair(run_fused, &p, run_gemm, &p, p.nsets, &f2, &gemm);
    double flop = tile_bench_gemm_flops(M, N, K);
#define TF(r) tile_bench_tflops(flop, (r).median_ms)
    printf("| %6d x %3d x %5d | %8.1f | %8.1f | %5.2f | %8.1f | %5.2f | %2.0e |\n", M, N, K, TF(f1), TF(unf),
           unf.median_ms / f1.median_ms, TF(gemm), gemm.median_ms / f2.median_ms, err);
    fflush(stdout);
    char shape[48];
    snprintf(shape, sizeof shape, "%dx%dx%d", M, N, K);
    tile_bench_record r = tile_bench_record_make("gemm_softmax", "gemm_softmax", shape, "fp16", "TFLOP/s");
    r.ms = f1.median_ms, r.rate = TF(f1), r.reference = "cuBLAS + softmax_f16", r.ref_ms = unf.median_ms;
    r.ref_rate = TF(unf), r.rel_err = err;
    tile_bench_csv_write(csv, &r);
    r.ms = f2.median_ms, r.rate = TF(f2), r.reference = "cuBLAS GEMM alone", r.ref_ms = gemm.median_ms;
    r.ref_rate = TF(gemm), r.rel_err = NAN;
    tile_bench_csv_write(csv, &r);
#undef TF
    free_problem(&p);
    return 0;
}

int main(int argc, char **argv)
{
    const char *title = "tilepp GEMM + row softmax (fused) vs cuBLAS GEMM then a softmax kernel";
    const char *csv_path = tile_bench_csv_arg(argc, argv, title);
    tile_check_require_gpu();
    CR_CHECK(cublasCreate(&blas));
    tile_bench_print_header(stdout, title);
    csv = tile_bench_csv_open(csv_path, title);
    printf("TFLOP/s = 2MNK / median time (%d batches, in turns); buffer sets rotate over %dx the L2.\n"
           "fused: samples/gemm_softmax.c; unfused: cublasGemmEx (fp16 out) then samples/softmax.c's\n"
           "softmax_f16; speed-ups are time ratios (above 1: fused faster).\n\n",
           TILE_BENCH_REPS, TILE_BENCH_L2_FACTOR);
    int failures = check_cpu();
    printf(
        "| M x N x K            | fused TFLOP/s | unfused | unfused/fused | cuBLAS GEMM alone | gemm/fused | err |\n");
    printf("|----------------------|------:|------:|------:|------:|------:|------:|\n");
    /* long products, then short ones (K a head dimension: attention scores of a short sequence), where the
     * unfused pair's extra passes over P weigh most */
    static const int shapes[][3] = {{16384, 256, 4096}, {65536, 256, 1024}, {131072, 128, 512},
                                    {32768, 200, 2048}, {65536, 256, 128},  {131072, 256, 64}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        failures += bench_shape(shapes[i][0], shapes[i][1], shapes[i][2]);
    CR_CHECK(cublasDestroy(blas));
    failures += tile_bench_csv_close(csv, csv_path) != 0;
    return failures ? 1 : 0;
}

/* edge_test.c — the kernels of edge_kernels.c on the shapes users hit by
 * accident, against their CPU reference, and the launchers' behaviour when
 * the runtime fails under them:
 *
 *   - empty dimensions (n = 0, rows = 0, cols = 0, M, N or K = 0): nothing
 *     written but what C writes (a row's -INFINITY maximum, a zero product),
 *     nothing written outside the outputs;
 *   - one element, one past a tile or vector multiple;
 *   - more than 2^31 elements in one array (a vector, a matrix's rows, a
 *     GEMM operand): the index arithmetic must be 64-bit;
 *   - pointers one element off 16-byte alignment and odd leading dimensions
 *     (the vector, cp.async and TMA paths fall back, never fault), on the
 *     launcher's path and, when run with TILEPP_PATH=sm80, on the sm_80 one;
 *   - in child processes: no visible GPU (CUDA_VISIBLE_DEVICES=""), device
 *     memory exhausted, and a kernel fault: each launcher call returns an
 *     error code and the process carries on; nothing aborts.
 *
 * --small skips the cases past 2^31 elements (about 40 GB of device memory
 * and a minute of CPU references) and the child processes (one of them
 * takes all device memory, which a compute-sanitizer run needs for itself). Prints one line
 * per case and "N passed, N failed"; exits 77 (SKIPPED) without a device. */
#define _GNU_SOURCE /* setenv, fork */
#include "gpu_check.h"

#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "edge_kernels.tile.h"

void saxpy_long(long long n, float a, const float *x, float *y);
void norm_long(long long n, const half *x, float out[2]);
void row_max_scale(int rows, int cols, const float x[rows][cols], float y[rows][cols], float top[rows]);
void gemm_lda(int M, int N, int K, int lda, const half A[M][lda], const half B[K][N], float C[M][N]);
void reverse_unsigned(unsigned n, const float *x, float *y);
void mixed_sign_bound(int start, unsigned n, float *y);

#define TOL_F32 1e-5
#define BIG ((1LL << 31) + 7) /* elements: past what a 32-bit index reaches */

/* An output that the kernel also reads (y += ...): the same random values
 * on both sides before the run. */
static gc_buf *gc_inout(gc_case *c, gc_type type, size_t n, size_t offset, double tol)
{
    gc_buf *b = gc_out(c, type, n, offset, tol);
    tile_check_fill(type, b->host, n, &c->rng);
    SU_CHECK(cudaMemcpy(b->dev, b->host, n * gc_size(type), cudaMemcpyHostToDevice));
    return b;
}

/* ---- shapes ------------------------------------------------------------------ */

static void test_saxpy(long long n, size_t offset)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, (size_t)n, offset), *y = gc_inout(&c, GC_F32, (size_t)n, offset, TOL_F32);
    saxpy_long(n, 1.5f, x->host, y->host);
    gc_finish(&c, saxpy_long_gpu(n, 1.5f, x->dev, y->dev), "saxpy_long n=%lld offset %zu", n, offset);
}

/* The sum of squares and the largest magnitude in double: the reference
 * for the sum. A float sum of n terms that round alike drifts by up to n/2
 * roundings when added in order, as the CPU run does (at n = 2^22 it is
 * 3e-3 off); the GPU's tree is within a few roundings of exact. So the GPU
 * is held to 1e-5 of the exact sum, and the CPU run, checked too, to its
 * own drift bound. */
static void norm_exact(long long n, const uint16_t *x, float out[2])
{
    double s = 0.0, big = 0.0;
    for (long long i = 0; i < n; i++) {
        double v = tile_check_half_to_float(x[i]);
        s += v * v;
        big = fabs(v) > big ? fabs(v) : big;
    }
    out[0] = (float)s;
    out[1] = (float)big;
}

static void check_norm_cpu(gc_case *c, long long n, const float cpu[2], const float exact[2])
{
    double drift = (double)n * 0x1p-25 + 1e-6;
    if (!(fabs(cpu[0] - exact[0]) <= drift * fabs(exact[0]) + 1e-30) || cpu[1] != exact[1])
        gc_fail(c, "the CPU run (%.9g, %.9g) is off the exact (%.9g, %.9g) by more than its drift bound", cpu[0],
                cpu[1], exact[0], exact[1]);
}

static void test_norm(long long n, size_t offset)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F16, (size_t)n, offset), *out = gc_out(&c, GC_F32, 2, 0, 1e-5);
    float cpu[2];
    norm_long(n, x->host, cpu);
    norm_exact(n, x->host, out->host);
    check_norm_cpu(&c, n, cpu, out->host);
    gc_finish(&c, norm_long_gpu(n, x->dev, out->dev), "norm_long n=%lld offset %zu", n, offset);
}

static void test_row_max(int rows, int cols, size_t offset)
{
    gc_case c;
    gc_begin(&c);
    size_t n = (size_t)rows * (size_t)cols;
    gc_buf *x = gc_in(&c, GC_F32, n, offset), *y = gc_out(&c, GC_F32, n, offset, TOL_F32);
    gc_buf *top = gc_out(&c, GC_F32, (size_t)rows, 0, TOL_F32);
    row_max_scale(rows, cols, x->host, y->host, top->host);
    gc_finish(&c, row_max_scale_gpu(rows, cols, x->dev, y->dev, top->dev), "row_max_scale %dx%d offset %zu", rows,
              cols, offset);
}

/* fp32 accumulation of half products in a different order: K-dependent. */
static double gemm_tol(int K) { return 1e-5 + 2e-6 * sqrt((double)(K > 1 ? K : 1)); }

static void test_gemm(int M, int N, int K, int lda, size_t offset)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *A = gc_in(&c, GC_F16, (size_t)M * lda, offset), *B = gc_in(&c, GC_F16, (size_t)K * N, offset);
    gc_buf *C = gc_out(&c, GC_F32, (size_t)M * N, offset, gemm_tol(K));
    gemm_lda(M, N, K, lda, A->host, B->host, C->host);
    gc_finish(&c, gemm_lda_gpu(M, N, K, lda, A->dev, B->dev, C->dev), "gemm_lda M=%d N=%d K=%d lda=%d offset %zu", M, N,
              K, lda, offset);
}

/* A GEMM whose A has more than 2^31 elements. The CPU reference of every row
 * would take minutes; it runs on slices of rows instead (rows are
 * independent: the same function on A + r0 * lda), at the start, where the
 * element index crosses 2^31 and at the end. */
static void test_gemm_big(void)
{
    const int K = 1000, lda = 1032, N = 72;
    const int M = (int)(BIG / lda) + 40;
    const int cross = (int)((1LL << 31) / lda); /* the row where A's index passes 2^31 */
    const int starts[] = {0, cross - 20, M - 40};
    gc_case c;
    gc_begin(&c);
    gc_buf *A = gc_in(&c, GC_F16, (size_t)M * lda, 0), *B = gc_in(&c, GC_F16, (size_t)K * N, 0);
    float *C = NULL, *got = tile_check_xmalloc((size_t)M * N * sizeof *got);
    SU_CHECK(cudaMalloc((void **)&C, (size_t)M * N * sizeof *C));
    SU_CHECK(cudaMemset(C, 0xFF, (size_t)M * N * sizeof *C));
    cudaError_t launch = gemm_lda_gpu(M, N, K, lda, A->dev, B->dev, C);
    cudaError_t sync = cudaDeviceSynchronize();
    if (launch != cudaSuccess || sync != cudaSuccess)
        gc_fail(&c, "launcher %s, kernel %s", cudaGetErrorName(launch), cudaGetErrorName(sync));
    else
        SU_CHECK(cudaMemcpy(got, C, (size_t)M * N * sizeof *got, cudaMemcpyDeviceToHost));
    double worst = 0.0;
    for (size_t s = 0; s < sizeof starts / sizeof *starts && launch == cudaSuccess && sync == cudaSuccess; s++) {
        const int rows = 40;
        float *ref = tile_check_xmalloc((size_t)rows * N * sizeof *ref);
        const uint16_t *a = (const uint16_t *)A->host + (size_t)starts[s] * lda;
        gemm_lda(rows, N, K, lda, (const void *)a, B->host, (void *)ref);
        double err = gc_rel_err(GC_F32, got + (size_t)starts[s] * N, ref, (size_t)rows * N);
        if (!(err < gemm_tol(K)))
            gc_fail(&c, "rows %d..%d: relative error %.3g", starts[s], starts[s] + rows - 1, err);
        worst = err > worst ? err : worst;
        free(ref);
    }
    size_t nan_at = 0;
    if (!c.failure[0] && gc_count_nan(GC_F32, got, (size_t)M * N, &nan_at))
        gc_fail(&c, "element %zu of C not written", nan_at);
    printf("%s  gemm_lda M=%d N=%d K=%d lda=%d (A: %lld elements), rows checked: 3 x 40  worst %.2g%s%s\n",
           c.failure[0] ? "FAIL" : "PASS", M, N, K, lda, (long long)M * lda, worst, c.failure[0] ? "  " : "",
           c.failure);
    c.failure[0] ? gc_failed++ : gc_passed++;
    free(got);
    (void)cudaFree(C);
    for (int i = 0; i < c.nbufs; i++) {
        free(c.bufs[i].host);
        (void)cudaFree(c.bufs[i].dev_base);
    }
}

/* Unsigned comparisons: the launcher counts what C's conversions make of the
 * bounds (the reversed loop ends when its index wraps; a start of -1 against
 * an unsigned bound runs no iteration). The CPU run is the reference: the
 * outputs start equal on both sides, so an iteration the GPU runs that C does
 * not, or the reverse, is a mismatch. */
static void test_unsigned(unsigned n, int start)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, n, 0), *y = gc_inout(&c, GC_F32, n, 0, TOL_F32);
    reverse_unsigned(n, x->host, y->host);
    gc_finish(&c, reverse_unsigned_gpu(n, x->dev, y->dev), "reverse_unsigned n=%u", n);
    gc_begin(&c);
    gc_buf *z = gc_inout(&c, GC_F32, n, 0, TOL_F32);
    mixed_sign_bound(start, n, z->host);
    gc_finish(&c, mixed_sign_bound_gpu(start, n, z->dev), "mixed_sign_bound start=%d n=%u", start, n);
}

static void run_shapes(bool small)
{
    printf("-- empty, one element, one past a multiple, misaligned\n");
    const long long lengths[] = {0, 1, 3, 4, 5, 8, 9, 1025, 1000003};
    for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++)
        for (size_t off = 0; off < 2; off++) {
            test_saxpy(lengths[i], off);
            test_norm(lengths[i], off);
        }
    const int shapes[][2] = {{0, 0}, {0, 5}, {5, 0}, {1, 1}, {1, 4097}, {257, 3}, {129, 1023}, {1000, 1001}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (size_t off = 0; off < 2; off++)
            test_row_max(shapes[i][0], shapes[i][1], off);

    const unsigned counts[] = {0, 1, 2, 257, 100003};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        for (int start = -1; start <= 1; start++)
            test_unsigned(counts[i], start);

    const int gemms[][4] = {
        /* M, N, K, lda */
        {0, 64, 64, 64},     {64, 0, 64, 64},     {64, 64, 0, 8},       {0, 0, 0, 1},      {1, 1, 1, 1},
        {129, 129, 33, 33},  {129, 129, 33, 40},  {200, 136, 100, 101}, {257, 72, 64, 72}, {1000, 1003, 1007, 1007},
        {1000, 1000, 1000, 1024},
    };
    for (size_t i = 0; i < sizeof gemms / sizeof *gemms; i++)
        for (size_t off = 0; off < 2; off++)
            test_gemm(gemms[i][0], gemms[i][1], gemms[i][2], gemms[i][3], off);

    if (small) {
        printf("-- past 2^31 elements: skipped (--small)\n");
        return;
    }
    printf("-- past 2^31 elements\n");
    test_saxpy(BIG, 1);
    test_norm(BIG, 0);
    test_row_max(65536, 32771, 0); /* 2^31 + 2^17 elements */
    test_gemm_big();
}

/* ---- the runtime failing under the launchers (child processes) --------------- */

static int report(bool ok, const char *what, cudaError_t err)
{
    printf("%s  %s: %s\n", ok ? "PASS" : "FAIL", what, cudaGetErrorName(err));
    ok ? gc_passed++ : gc_failed++;
    return ok;
}

/* No visible device: every launcher returns an error. */
static int child_no_device(void)
{
    cudaError_t a = saxpy_long_gpu(16, 1.0f, NULL, NULL);
    report(a != cudaSuccess, "no device: saxpy_long_gpu returns an error", a);
    cudaError_t b = norm_long_gpu(16, NULL, NULL);
    report(b != cudaSuccess, "no device: norm_long_gpu (a grid-wide reduction) returns an error", b);
    cudaError_t g = gemm_lda_gpu(64, 64, 64, 64, NULL, NULL, NULL);
    report(g != cudaSuccess, "no device: gemm_lda_gpu returns an error", g);
    return gc_summary();
}

/* Device memory exhausted: a grid-wide reduction, which needs scratch
 * memory, fails with an error; once memory is back it runs and is right. */
static int child_out_of_memory(void)
{
    gc_require_gpu();
    const long long n = 1 << 22;
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F16, (size_t)n, 0), *out = gc_out(&c, GC_F32, 2, 0, 1e-5);
    float cpu[2];
    norm_long(n, x->host, cpu);
    norm_exact(n, x->host, out->host);
    check_norm_cpu(&c, n, cpu, out->host);

    void *hog[4096];
    int nhog = 0;
    for (size_t chunk = (size_t)1 << 30; chunk >= ((size_t)1 << 16) && nhog < 4096; chunk /= 2)
        while (nhog < 4096 && cudaMalloc(&hog[nhog], chunk) == cudaSuccess)
            nhog++;
    (void)cudaGetLastError();
    cudaError_t full = norm_long_gpu(n, x->dev, out->dev);
    cudaError_t sync = cudaDeviceSynchronize();
    report(full != cudaSuccess || sync != cudaSuccess, "memory exhausted: norm_long_gpu returns an error",
           full != cudaSuccess ? full : sync);
    while (nhog > 0)
        SU_CHECK(cudaFree(hog[--nhog]));
    (void)cudaGetLastError();
    SU_CHECK(cudaMemset(out->dev, 0xFF, 2 * sizeof(float)));
    gc_finish(&c, norm_long_gpu(n, x->dev, out->dev), "memory back: norm_long n=%lld", n);
    return gc_summary();
}

/* A kernel fault (a pointer to nowhere): the fault comes back as an error,
 * and the next launcher call returns one too instead of aborting. */
static int child_fault(void)
{
    gc_require_gpu();
    float *nowhere = (float *)(uintptr_t)0x1000;
    cudaError_t launch = saxpy_long_gpu(1 << 20, 2.0f, nowhere, nowhere);
    cudaError_t sync = cudaDeviceSynchronize();
    report(launch != cudaSuccess || sync != cudaSuccess, "fault: the illegal access comes back as an error",
           launch != cudaSuccess ? launch : sync);
    cudaError_t next = row_max_scale_gpu(4, 4, nowhere, nowhere, nowhere);
    report(next != cudaSuccess, "fault: the next launcher call returns an error", next);
    return gc_summary();
}

/* Runs this program again with `arg`, CUDA_VISIBLE_DEVICES set to `devices`
 * when not NULL; the child must exit normally with status 0. */
static bool run_child(const char *arg, const char *devices)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (devices)
            setenv("CUDA_VISIBLE_DEVICES", devices, 1);
        execl("/proc/self/exe", "edge_test", arg, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) {
        printf("FAIL  child %s: killed by signal %d (an abort?)\n", arg, WTERMSIG(status));
        return false;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        printf("FAIL  child %s: exit status %d\n", arg, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    const char *arg = argc > 1 ? argv[1] : "";
    if (strcmp(arg, "--child-no-device") == 0)
        return child_no_device();
    if (strcmp(arg, "--child-oom") == 0)
        return child_out_of_memory();
    if (strcmp(arg, "--child-fault") == 0)
        return child_fault();

    /* The children first: fork and CUDA do not mix. */
    char reason[200];
    bool children_ok = true, small = strcmp(arg, "--small") == 0;
    if (!small && tile_check_gpu_available(reason, sizeof reason)) {
        printf("-- the runtime failing under the launchers (child processes)\n");
        children_ok &= run_child("--child-no-device", "");
        children_ok &= run_child("--child-oom", NULL);
        children_ok &= run_child("--child-fault", NULL);
    }
    gc_require_gpu();
    run_shapes(small);
    int status = gc_summary();
    if (!children_ok) {
        printf("FAIL: a child process failed (see above)\n");
        status = 1;
    }
    return status;
}

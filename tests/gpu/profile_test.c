/* profile_test.c — TILEPP_PROFILE, the launchers' profiler, on the kernels
 * of profile_kernels.c.
 *
 * With TILEPP_PROFILE=1 the program makes a known number of calls of each
 * kernel (results checked against the CPU reference once, so the timed
 * kernels are known to run), one more call while its stream is captured
 * into a CUDA graph (not timed), and at exit reads back the table the
 * profiler printed on stderr: one row per kernel, with the call counts made,
 * the code path (sm_90a for the GEMM on Hopper, sm_80 elsewhere and for the
 * element-wise kernels), rates where the kernel declares its work and '-'
 * where it does not. A call of prof_strided with step 0 (an endless C loop)
 * must fail with cudaErrorInvalidValue and be reported once, with the
 * kernel's name and line. Children run the same calls with TILEPP_PROFILE
 * unset and set to "nvtx" (no table), and one child, under TILEPP_DEBUG=1,
 * hands prof_fill an address outside every allocation: the call itself must
 * return the fault and report it with the kernel's name.
 *
 * Exits 0 when every check passed, 1 otherwise, 77 without a CUDA device. */
#define _GNU_SOURCE
#include "gpu_check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profile_kernels.tile.h"

void prof_axpy(int n, float a, const float *x, float *y);
void prof_fill(int n, float v, float *y);
void prof_gemm(int M, int N, int K, const half *A, const half *B, float *C);
void prof_strided(int n, int step, float *y);

enum { AXPY_CALLS = 10, FILL_CALLS = 3, GEMM_CALLS = 4, N = (1 << 20) + 3, GM = 1000, GN = 520, GK = 1000 };

static FILE *captured;   /* what the program wrote on stderr */
static int main_status;  /* gc_summary's, before the exit checks */
static const char *mode; /* "1", "nvtx" or NULL (unset) */

/* The row of `kernel` in the profile table, split into fields. */
static int profile_row(const char *text, const char *kernel, char fields[10][64])
{
    const char *line = text;
    while (line && *line) {
        if (strncmp(line, kernel, strlen(kernel)) == 0 && line[strlen(kernel)] == ' ') {
            int n = 0;
            const char *p = line;
            while (n < 10 && *p && *p != '\n') {
                while (*p == ' ')
                    p++;
                int len = 0;
                while (*p && *p != ' ' && *p != '\n' && len < 63)
                    fields[n][len++] = *p++;
                fields[n][len] = '\0';
                if (len)
                    n++;
            }
            return n;
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    return 0;
}

/* A rate column: '-' when no work is declared (work < 0), else the
 * declared work of every call over the total time, as printed (%.2f
 * TFLOP/s, %.1f GB/s): within the printing's rounding and 2%. Holds however
 * slow the run (under compute-sanitizer a rate may print as 0.00). */
static int check_rate(const char *kernel, const char *what, const char *field, double work, int calls, double total_ms,
                      double unit, double rounding)
{
    if (work < 0) {
        if (strcmp(field, "-") == 0)
            return 0;
        printf("FAIL: %s declares no %s, but %s is printed\n", kernel, what, field);
        return 1;
    }
    const double want = calls * work / (total_ms * 1e-3) / unit, got = atof(field);
    if (strcmp(field, "-") != 0 && fabs(got - want) <= rounding + 0.02 * want)
        return 0;
    printf("FAIL: %s: %s '%s', expected %.3f from the declared work and the total time\n", kernel, what, field, want);
    return 1;
}

/* kernel's row: calls, path, source, consistent times, and the rates its
 * declared flops and bytes per call give (< 0: not declared). */
static int check_row(const char *text, const char *kernel, int calls, const char *path, double flops, double bytes)
{
    char f[10][64];
    int n = profile_row(text, kernel, f);
    if (n != 9) {
        printf("FAIL: no row of 9 fields for %s in the profile (found %d)\n", kernel, n);
        return 1;
    }
    /* kernel source path calls total median min TFLOP/s GB/s */
    int bad = 0;
    if (atoi(f[3]) != calls)
        printf("FAIL: %s: %s calls counted, %d made\n", kernel, f[3], calls), bad = 1;
    if (strcmp(f[2], path) != 0)
        printf("FAIL: %s: path %s, expected %s\n", kernel, f[2], path), bad = 1;
    if (strncmp(f[1], "profile_kernels.c:", 18) != 0)
        printf("FAIL: %s: source %s, expected profile_kernels.c:LINE\n", kernel, f[1]), bad = 1;
    const double total = atof(f[4]), median = atof(f[5]), least = atof(f[6]);
    if (!(total > 0 && median > 0 && least > 0 && least <= median && median * 1e-3 <= total))
        printf("FAIL: %s: times total %s ms, median %s us, min %s us are inconsistent\n", kernel, f[4], f[5], f[6]),
            bad = 1;
    bad |= check_rate(kernel, "TFLOP/s", f[7], flops, calls, total, 1e12, 0.005);
    bad |= check_rate(kernel, "GB/s", f[8], bytes, calls, total, 1e9, 0.05);
    if (!bad)
        printf("PASS: profile row of %s: %d calls, path %s\n", kernel, calls, path);
    return bad;
}

/* Runs after the profiler's own exit handler (registered later), so the
 * table is in `captured` by now. */
static void check_at_exit(void)
{
    fflush(stderr);
    long size = ftell(captured);
    char *text = calloc((size_t)size + 1, 1);
    rewind(captured);
    size_t got = fread(text, 1, (size_t)size, captured);
    text[got] = '\0';
    printf("---- stderr ----\n%s---- end ----\n", text);
    int failed = 0;
    if (!strstr(text, "tilepp: prof_strided (profile_kernels.c:") ||
        !strstr(text, "would never end: cudaErrorInvalidValue")) {
        printf("FAIL: the endless loop of prof_strided was not reported with its kernel and line\n");
        failed = 1;
    }
    if (mode && strcmp(mode, "1") == 0) {
        int major = 0;
        (void)cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
        failed |= !strstr(text, "tilepp profile (TILEPP_PROFILE=1)");
        /* the work profile_kernels.c declares: axpy 2n flops and 3n floats, the GEMM 2MNK flops */
        failed |= check_row(text, "prof_axpy", AXPY_CALLS, "sm_80", 2.0 * N, 3.0 * 4 * N);
        failed |= check_row(text, "prof_fill", FILL_CALLS, "sm_80", -1, -1);
        failed |= check_row(text, "prof_gemm", GEMM_CALLS, major == 9 ? "sm_90a" : "sm_80", 2.0 * GM * GN * GK, -1);
    } else if (strstr(text, "tilepp profile")) {
        printf("FAIL: TILEPP_PROFILE=%s printed a profile\n", mode ? mode : "(unset)");
        failed = 1;
    } else {
        printf("PASS: TILEPP_PROFILE=%s: no profile\n", mode ? mode : "(unset)");
    }
    fflush(stdout);
    _exit(failed ? 1 : main_status);
}

static void run_calls(void)
{
    /* buffers of their own for the calls after the checked ones (a case's
     * buffers are freed when it finishes) */
    float *sx, *sy;
    SU_CHECK(cudaMalloc((void **)&sx, N * sizeof(float)));
    SU_CHECK(cudaMalloc((void **)&sy, N * sizeof(float)));
    SU_CHECK(cudaMemset(sx, 0, N * sizeof(float)));
    SU_CHECK(cudaMemset(sy, 0, N * sizeof(float)));

    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, N, 0), *y = gc_in(&c, GC_F32, N, 0), *ref = gc_out(&c, GC_F32, N, 0, 1e-5);
    memcpy(ref->host, y->host, N * sizeof(float));
    prof_axpy(N, 1.5f, x->host, ref->host);
    SU_CHECK(cudaMemcpy(ref->dev, y->dev, N * sizeof(float), cudaMemcpyDeviceToDevice));
    gc_finish(&c, prof_axpy_gpu(N, 1.5f, x->dev, ref->dev), "prof_axpy n=%d", N);
    for (int i = 1; i < AXPY_CALLS; i++)
        SU_CHECK(prof_axpy_gpu(N, 0.5f, sx, sy));

    gc_begin(&c);
    gc_buf *f = gc_out(&c, GC_F32, N, 0, 1e-12); /* a fill is exact */
    prof_fill(N, 2.5f, f->host);
    gc_finish(&c, prof_fill_gpu(N, 2.5f, f->dev), "prof_fill n=%d", N);
    for (int i = 1; i < FILL_CALLS; i++)
        SU_CHECK(prof_fill_gpu(N, 1.0f, sy));

    /* under capture: not timed. The fills above were queued on the legacy
     * stream, which a non-blocking stream does not wait for: without this
     * wait the graph's fill could run before them (it does under
     * compute-sanitizer, whose instrumented launches are slow) and be
     * overwritten. */
    SU_CHECK(cudaDeviceSynchronize());
    cudaStream_t s;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    SU_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    SU_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    SU_CHECK(prof_fill_gpu_stream(N, 3.0f, sy, s));
    SU_CHECK(cudaStreamEndCapture(s, &graph));
    SU_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    SU_CHECK(cudaGraphLaunch(exec, s));
    SU_CHECK(cudaStreamSynchronize(s));
    float *back = (float *)malloc(N * sizeof(float));
    SU_CHECK(cudaMemcpy(back, sy, N * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += back[i] != 3.0f;
    if (wrong) {
        printf("FAIL: prof_fill captured in a graph left %d of %d elements unwritten (first: %g, not 3)\n", wrong, N,
               back[0]);
        gc_failed++;
    }
    free(back);
    (void)cudaGraphExecDestroy(exec);
    (void)cudaGraphDestroy(graph);
    (void)cudaStreamDestroy(s);

    gc_begin(&c);
    gc_buf *A = gc_in(&c, GC_F16, (size_t)GM * GK, 0), *B = gc_in(&c, GC_F16, (size_t)GK * GN, 0);
    gc_buf *C = gc_out(&c, GC_F32, (size_t)GM * GN, 0, 1e-3);
    prof_gemm(GM, GN, GK, A->host, B->host, C->host);
    gc_finish(&c, prof_gemm_gpu(GM, GN, GK, A->dev, B->dev, C->dev), "prof_gemm %dx%dx%d", GM, GN, GK);
    half *sa, *sb;
    float *sc;
    SU_CHECK(cudaMalloc((void **)&sa, (size_t)GM * GK * sizeof(half)));
    SU_CHECK(cudaMalloc((void **)&sb, (size_t)GK * GN * sizeof(half)));
    SU_CHECK(cudaMalloc((void **)&sc, (size_t)GM * GN * sizeof(float)));
    SU_CHECK(cudaMemset(sa, 0, (size_t)GM * GK * sizeof(half)));
    SU_CHECK(cudaMemset(sb, 0, (size_t)GK * GN * sizeof(half)));
    for (int i = 1; i < GEMM_CALLS; i++)
        SU_CHECK(prof_gemm_gpu(GM, GN, GK, sa, sb, sc));
    SU_CHECK(cudaDeviceSynchronize());

    for (int i = 0; i < 2; i++) { /* reported once */
        cudaError_t err = prof_strided_gpu(16, 0, sy);
        if (err != cudaErrorInvalidValue) {
            printf("FAIL: prof_strided with step 0 returned %s, not cudaErrorInvalidValue\n", cudaGetErrorName(err));
            gc_failed++;
        }
    }
    SU_CHECK(cudaDeviceSynchronize());
    (void)cudaFree(sx);
    (void)cudaFree(sy);
    (void)cudaFree(sa);
    (void)cudaFree(sb);
    (void)cudaFree(sc);
}

/* Child under TILEPP_DEBUG=1: a fault inside the kernel comes back from the
 * call that caused it, reported with the kernel's name and line. */
static int run_fault(void)
{
    gc_require_gpu();
    FILE *err_file = tmpfile();
    if (!err_file || dup2(fileno(err_file), 2) < 0)
        return 1;
    float *bad = (float *)(uintptr_t)0x100; /* no allocation is there */
    cudaError_t err = prof_fill_gpu(1 << 20, 1.0f, bad);
    fflush(stderr);
    char text[4096] = {0};
    rewind(err_file);
    size_t got = fread(text, 1, sizeof text - 1, err_file);
    text[got] = '\0';
    printf("---- stderr ----\n%s---- end ----\n", text);
    const bool reported = strstr(text, "tilepp: prof_fill (profile_kernels.c:") && strstr(text, "failed while running");
    if (err == cudaSuccess || !reported) {
        printf("FAIL: TILEPP_DEBUG=1: the fault came back as %s, %s\n", cudaGetErrorName(err),
               reported ? "reported" : "not reported with the kernel's name");
        return 1;
    }
    printf("PASS: TILEPP_DEBUG=1: the faulting call returned %s and named prof_fill\n", cudaGetErrorName(err));
    return 0;
}

/* Runs this program again with TILEPP_PROFILE set to `value` (NULL:
 * unset); its checks decide the status. */
static int run_child(const char *self, const char *value, const char *arg)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (value)
            setenv("TILEPP_PROFILE", value, 1);
        else
            unsetenv("TILEPP_PROFILE");
        if (strcmp(arg, "--fault") == 0)
            setenv("TILEPP_DEBUG", "1", 1);
        execl(self, self, arg, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--fault") == 0)
        return run_fault();
    const bool child = argc > 1 && strcmp(argv[1], "--child") == 0;
    int children_failed = 0;
    if (!child) { /* before this process touches CUDA: fork and CUDA do not mix */
        children_failed |= run_child("/proc/self/exe", NULL, "--child") != 0;
        children_failed |= run_child("/proc/self/exe", "nvtx", "--child") != 0;
        children_failed |= run_child("/proc/self/exe", NULL, "--fault") != 0;
        setenv("TILEPP_PROFILE", "1", 1);
    }
    gc_require_gpu();
    mode = getenv("TILEPP_PROFILE");
    captured = tmpfile();
    if (!captured || dup2(fileno(captured), 2) < 0) {
        printf("FAIL: cannot capture stderr\n");
        return 1;
    }
    atexit(check_at_exit); /* before the first launch, so it runs after the profiler's handler */
    run_calls();
    main_status = gc_summary();
    if (children_failed) {
        printf("FAIL: a run without the profiler (see above)\n");
        main_status = 1;
    }
    return main_status;
}

/* tune_test.c — the autotuner on the GPU (issue 13): the tuned kernels of
 * tune_kernels.c against their CPU run, on fresh random
 * data with poisoned outputs and shapes that are no multiple of the tiles.
 *
 *   - axpy_inplace: the output is also an input; after the first call (which
 *     tunes) y must be exactly one update away from what was passed;
 *   - scale_rows: its point SKIP=1 is wrong on purpose (and the fastest): the
 *     result must be right, the cache must hold SKIP=0, and the wrong point,
 *     run by name, must really be wrong (so this test can fail);
 *   - gemm_tuned (a GEMM with a space of 4 points): ragged shapes, each shape
 *     class tuned once;
 *   - child processes on one cache directory: the first tunes (the table on
 *     stderr with TILEPP_TUNE_VERBOSE=1), the second loads the choice without
 *     tuning, a corrupt entry is ignored with a warning and tuned again,
 *     TILEPP_TUNE=off and TILEPP_TUNE_PIN run without tuning, and
 *     TILEPP_TUNE_CHECK=cpu (the CPU functions are linked here) catches the
 *     wrong point too.
 *
 * Prints PASS/FAIL per case; exits 77 (SKIPPED) without a device.
 * `tune_test point NAME M N K` launches one point of gemm_tuned once (for
 * compute-sanitizer). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tilepp/check.h>

#include "tune_kernels.tile.h"

/* The CPU references, compiled from the same files by the C compiler. */
void axpy_inplace(int n, float a, const float x[n], float y[n]);
void scale_rows(int rows, int cols, const float x[rows][cols], float y[rows][cols]);
void gemm_tuned(int M, int N, int K, const half A[M][K], const half B[K][N], half C[M][N]);

static int failures, passes;

static void report(int ok, const char *label, const char *why)
{
    printf("%s  %-60s %s\n", ok ? "PASS" : "FAIL", label, ok ? "" : why);
    fflush(stdout);
    if (ok)
        passes++;
    else
        failures++;
}

static char cache_dir[512];

/* ---- the cases ---------------------------------------------------------- */

static int check_axpy(int n)
{
    tile_check_rng rng = tile_check_rng_seed(100 + (uint64_t)n);
    float *x = tile_check_xmalloc((size_t)n * 4), *y = tile_check_xmalloc((size_t)n * 4);
    float *want = tile_check_xmalloc((size_t)n * 4), *got = tile_check_xmalloc((size_t)n * 4);
    tile_check_fill(TILE_CHECK_F32, x, (size_t)n, &rng);
    tile_check_fill(TILE_CHECK_F32, y, (size_t)n, &rng);
    memcpy(want, y, (size_t)n * 4);
    axpy_inplace(n, 1.5f, x, want);
    float *dx = tile_check_to_device(x, (size_t)n * 4), *dy = tile_check_to_device(y, (size_t)n * 4);
    cudaError_t err = axpy_inplace_gpu(n, 1.5f, dx, dy);
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    if (err == cudaSuccess)
        err = cudaMemcpy(got, dy, (size_t)n * 4, cudaMemcpyDeviceToHost);
    double rel = err == cudaSuccess ? tile_check_rel_err(TILE_CHECK_F32, got, TILE_CHECK_F32, want, (size_t)n) : NAN;
    char label[96], why[160];
    snprintf(label, sizeof label, "axpy_inplace n=%d: one update, whatever the tuning ran", n);
    snprintf(why, sizeof why, "%s, relative error %.3g", cudaGetErrorString(err), rel);
    int ok = err == cudaSuccess && rel < 1e-6;
    report(ok, label, why);
    cudaFree(dx);
    cudaFree(dy);
    free(x);
    free(y);
    free(want);
    free(got);
    return ok;
}

/* scale_rows through the tuned launcher (point == NULL) or one point. */
static double run_scale_rows(int rows, int cols, const char *point, cudaError_t *err)
{
    size_t n = (size_t)rows * (size_t)cols;
    tile_check_rng rng = tile_check_rng_seed(7 + n);
    float *x = tile_check_xmalloc(n * 4), *want = tile_check_xmalloc(n * 4), *got = tile_check_xmalloc(n * 4);
    tile_check_fill(TILE_CHECK_F32, x, n, &rng);
    scale_rows(rows, cols, (const float(*)[cols])x, (float(*)[cols])want);
    float *dx = tile_check_to_device(x, n * 4), *dy = NULL;
    TILE_CHECK_CUDA(cudaMalloc((void **)&dy, n * 4));
    TILE_CHECK_CUDA(tile_check_poison(dy, n * 4));
    *err = point ? scale_rows_gpu_point(point, rows, cols, dx, dy, 0) : scale_rows_gpu(rows, cols, dx, dy);
    if (*err == cudaSuccess)
        *err = cudaDeviceSynchronize();
    if (*err == cudaSuccess)
        *err = cudaMemcpy(got, dy, n * 4, cudaMemcpyDeviceToHost);
    /* a row left poisoned (NaN) makes the error NaN: count it as infinite */
    double rel = tile_check_rel_err(TILE_CHECK_F32, got, TILE_CHECK_F32, want, n);
    cudaFree(dx);
    cudaFree(dy);
    free(x);
    free(want);
    free(got);
    return isnan(rel) ? INFINITY : rel;
}

static int check_scale_rows(int rows, int cols)
{
    cudaError_t err;
    double rel = run_scale_rows(rows, cols, NULL, &err);
    char label[96], why[160];
    snprintf(label, sizeof label, "scale_rows %dx%d: the tuned call is right", rows, cols);
    snprintf(why, sizeof why, "%s, relative error %.3g", cudaGetErrorString(err), rel);
    int ok = err == cudaSuccess && rel < 1e-6;
    report(ok, label, why);
    return ok;
}

/* The wrong point must really be wrong, or the case above proves nothing. */
static void check_wrong_point_is_wrong(void)
{
    cudaError_t err;
    double rel = run_scale_rows(301, 77, "SKIP=1", &err);
    char why[160];
    snprintf(why, sizeof why, "%s, relative error %.3g", cudaGetErrorString(err), rel);
    report(err == cudaSuccess && rel > 0.1, "scale_rows SKIP=1 run by name is wrong (the test's premise)", why);
    err = scale_rows_gpu_point("SKIP=7", 3, 3, NULL, NULL, 0);
    report(err == cudaErrorInvalidValue, "a point that is not in the space: cudaErrorInvalidValue",
           cudaGetErrorString(err));
    err = axpy_inplace_gpu_point("VEC=4,THREADS=48", 3, 1.0f, NULL, NULL, 0);
    report(err == cudaErrorInvalidValue, "a pruned point: cudaErrorInvalidValue", cudaGetErrorString(err));
    err = scale_rows_gpu_point("SKIP=0,", 3, 3, NULL, NULL, 0);
    report(err == cudaErrorInvalidValue, "a name that is almost a point: cudaErrorInvalidValue",
           cudaGetErrorString(err));
}

static int check_gemm(int M, int N, int K)
{
    tile_check_case c;
    tile_check_begin(&c, 11 + (uint64_t)M * 7 + (uint64_t)N * 3 + (uint64_t)K);
    tile_check_buf *a = tile_check_in(&c, TILE_CHECK_F16, (size_t)M * K, 0);
    tile_check_buf *b = tile_check_in(&c, TILE_CHECK_F16, (size_t)K * N, 0);
    tile_check_buf *out = tile_check_out(&c, TILE_CHECK_F16, (size_t)M * N, 0, 2e-3);
    gemm_tuned(M, N, K, a->host, b->host, out->host);
    cudaError_t err = gemm_tuned_gpu(M, N, K, a->dev, b->dev, out->dev);
    int ok = tile_check_finish(&c, err, "gemm_tuned %dx%dx%d", M, N, K);
    if (ok)
        passes++;
    else
        failures++;
    return ok;
}

/* ---- the cache directory ------------------------------------------------- */

/* The text of the cache entry of `kernel` whose shape line is `shape`
 * ("shape 512,256,128"), and its path; NULL when there is none. */
static char *find_entry(const char *kernel, const char *shape, char *path, size_t len)
{
    DIR *d = opendir(cache_dir);
    if (!d)
        return NULL;
    char *found = NULL;
    size_t klen = strlen(kernel);
    for (struct dirent *e; !found && (e = readdir(d));) {
        if (strncmp(e->d_name, kernel, klen) != 0 || e->d_name[klen] != '-')
            continue;
        snprintf(path, len, "%s/%s", cache_dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        char *text = tile_check_xmalloc(4096);
        size_t n = fread(text, 1, 4095, f);
        text[n] = '\0';
        fclose(f);
        if (strstr(text, shape))
            found = text;
        else
            free(text);
    }
    closedir(d);
    return found;
}

static void check_cache_holds(const char *kernel, const char *shape, const char *variant_line, const char *label)
{
    char path[1024];
    char *text = find_entry(kernel, shape, path, sizeof path);
    char why[200];
    snprintf(why, sizeof why, "no entry of %s with '%s' in %s, or not '%s'", kernel, shape, cache_dir, variant_line);
    report(text && strstr(text, variant_line), label, why);
    free(text);
}

/* ---- child processes ------------------------------------------------------ */

/* Runs this program as `tune_test child WHAT` with the environment
 * `env` ("NAME=VALUE" pairs, NULL-terminated, on top of ours) and its
 * stderr in a file; returns the exit status and the stderr text. */
static int run_child(const char *what, const char *const *env, char **err_text)
{
    char err_path[600];
    snprintf(err_path, sizeof err_path, "%s/../child.stderr", cache_dir);
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; env && env[i]; i++) {
            char name[128];
            const char *eq = strchr(env[i], '=');
            snprintf(name, sizeof name, "%.*s", (int)(eq - env[i]), env[i]);
            setenv(name, eq + 1, 1);
        }
        if (!freopen(err_path, "w", stderr))
            _exit(99);
        execl("/proc/self/exe", "tune_test", "child", what, (char *)NULL);
        _exit(98);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    FILE *f = fopen(err_path, "rb");
    *err_text = tile_check_xmalloc(1 << 16);
    size_t n = f ? fread(*err_text, 1, (1 << 16) - 1, f) : 0;
    (*err_text)[n] = '\0';
    if (f)
        fclose(f);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int child_main(const char *what)
{
    if (strcmp(what, "gemm") == 0)
        return check_gemm(300, 200, 100) ? 0 : 1; /* shape class 512,256,128 */
    if (strcmp(what, "scale") == 0)
        return check_scale_rows(700, 33) ? 0 : 1;
    return 2;
}

static void check_children(void)
{
    char *text;
    const char *verbose[] = {"TILEPP_TUNE_VERBOSE=1", NULL};
    int rc = run_child("gemm", verbose, &text);
    report(rc == 0 && strstr(text, "tilepp tune: gemm_tuned ("),
           "child 1 tunes gemm_tuned 300x200x100 (the table on stderr)", text);
    free(text);
    check_cache_holds("gemm_tuned", "shape 512,256,128", "variant GBM=", "child 1 stored its choice");

    rc = run_child("gemm", verbose, &text);
    report(rc == 0 && !strstr(text, "tilepp tune:"), "child 2 loads the choice from the cache: no tuning", text);
    free(text);

    char path[1024];
    char *entry = find_entry("gemm_tuned", "shape 512,256,128", path, sizeof path);
    if (entry) { /* a byte of the variant's name changed: the check line no longer agrees */
        char *v = strstr(entry, "variant GBM=");
        if (v)
            v[strlen("variant G")] = 'X';
        FILE *f = fopen(path, "wb");
        if (f) {
            fputs(entry, f);
            fclose(f);
        }
        free(entry);
    }
    rc = run_child("gemm", verbose, &text);
    report(rc == 0 && strstr(text, "ignoring the tune cache entry") && strstr(text, "tilepp tune: gemm_tuned ("),
           "child 3: a corrupt entry is ignored with a warning and tuned again", text);
    free(text);
    rc = run_child("gemm", verbose, &text);
    report(rc == 0 && !strstr(text, "tilepp tune:") && !strstr(text, "ignoring"),
           "child 4: the entry child 3 rewrote is loaded", text);
    free(text);

    const char *off[] = {"TILEPP_TUNE_VERBOSE=1", "TILEPP_TUNE=off", "TILEPP_TUNE_CACHE=off", NULL};
    rc = run_child("scale", off, &text);
    report(rc == 0 && !strstr(text, "tilepp tune:"), "TILEPP_TUNE=off: the file's values, no tuning", text);
    free(text);

    const char *pin[] = {"TILEPP_TUNE_VERBOSE=1", "TILEPP_TUNE_CACHE=off",
                         "TILEPP_TUNE_PIN=gemm_tuned:GBM=64,GSTAGES=2", NULL};
    rc = run_child("gemm", pin, &text);
    report(rc == 0 && !strstr(text, "tilepp tune:"), "TILEPP_TUNE_PIN: that point, no tuning", text);
    free(text);

    const char *cpu[] = {"TILEPP_TUNE_VERBOSE=1", "TILEPP_TUNE=force", "TILEPP_TUNE_CHECK=cpu", "TILEPP_TUNE_CACHE=off",
                         NULL};
    rc = run_child("scale", cpu, &text);
    const char *row = strstr(text, "SKIP=1");
    report(rc == 0 && row && !strstr(text, "SKIP=1 (chosen)") && strstr(text, "tilepp tune: scale_rows ("),
           "TILEPP_TUNE_CHECK=cpu: the wrong point is discarded against the CPU run", text);
    free(text);
}

/* `tune_test point NAME M N K`: one launch of one point of gemm_tuned, for
 * compute-sanitizer (a reproduction as small as a GEMM gets). */
static int point_main(const char *name, int M, int N, int K)
{
    tile_check_require_gpu();
    size_t a = (size_t)M * K * 2, b = (size_t)K * N * 2, c = (size_t)M * N * 2;
    void *dA, *dB, *dC;
    TILE_CHECK_CUDA(cudaMalloc(&dA, a));
    TILE_CHECK_CUDA(cudaMalloc(&dB, b));
    TILE_CHECK_CUDA(cudaMalloc(&dC, c));
    TILE_CHECK_CUDA(cudaMemset(dA, 0, a));
    TILE_CHECK_CUDA(cudaMemset(dB, 0, b));
    cudaError_t err = gemm_tuned_gpu_point(name, M, N, K, dA, dB, dC, 0);
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    printf("gemm_tuned %s %dx%dx%d: %s\n", name, M, N, K, cudaGetErrorString(err));
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    return err == cudaSuccess ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "child") == 0)
        return child_main(argv[2]);
    if (argc == 6 && strcmp(argv[1], "point") == 0)
        return point_main(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
    tile_check_require_gpu();
    tile_check_print_device(stdout);
    /* A cache of this run's own, so that the first calls tune. */
    char base[] = "/tmp/tilepp_tune_test_XXXXXX";
    if (!mkdtemp(base)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(cache_dir, sizeof cache_dir, "%s/cache", base);
    setenv("TILEPP_TUNE_CACHE", cache_dir, 1);
    unsetenv("TILEPP_TUNE");
    unsetenv("TILEPP_TUNE_PIN");
    unsetenv("TILEPP_TUNE_CHECK");

    check_axpy(1000003);
    check_axpy(37);
    check_axpy(1);
    check_scale_rows(1000, 1003);
    check_scale_rows(1, 5);
    check_cache_holds("scale_rows", "shape 1024,1024", "variant SKIP=0", "the cache holds SKIP=0 for 1000x1003");
    check_wrong_point_is_wrong();
    int shapes[][3] = {{1000, 1003, 1007}, {64, 64, 64}, {1, 300, 17}, {257, 129, 33}, {1000, 1003, 1007}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        check_gemm(shapes[i][0], shapes[i][1], shapes[i][2]);
    check_children();

    printf("%d passed, %d failed\n", passes, failures);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", base);
    return failures ? 1 : 0;
}

/* debug_test.c — the debug translation (tilepp -g, tile_add_kernels DEBUG)
 * on the kernels of debug_kernels.c.
 *
 * Shapes for which every promise holds: each kernel's launcher returns
 * cudaSuccess, reports nothing, and its outputs match the CPU reference
 * (poisoned guards around them untouched). Shapes that break a promise:
 *   dbg_gemm   M = 100: the 4-argument load of block row 1 would read rows
 *              64..127 of 100;
 *   dbg_rows   M = 100: the 4-argument store of block 1 would write rows
 *              64..127 of 100;
 *   dbg_vec    n = 300: the 3-argument 1-D load of block 1 would read
 *              elements 256..511 of 300;
 *   dbg_bounds rows = 128 > M = 100: the 6-argument load's extents exceed
 *              the matrix's;
 * for each, the launcher must return cudaErrorAssert, stderr must hold the
 * report with the operation's file:line:col, tile and matrix and the
 * kernel's failure line, the skipped access must have left its part of the
 * output poisoned (what the other blocks wrote is right), and nothing past
 * the output may be written: each output is allocated with a whole tile of
 * poisoned rows after it. A promise-keeping call after the violations still
 * passes (the record was cleared; no kernel trapped).
 *
 * Exits 0 when every check passed, 1 otherwise, 77 without a CUDA device. */
#define _GNU_SOURCE
#include "gpu_check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debug_kernels.tile.h"

void dbg_gemm(int M, int N, int K, const half *A, const half *B, float *C);
void dbg_rows(int M, const float *X, float *Y);
void dbg_vec(int n, const float *x, float *y);
void dbg_bounds(int M, int rows, const float *X, float *Y);

enum { TN = 64, PAD_ROWS = 64 };

/* Where debug_kernels.c has the operations the reports name (its
 * `check: NAME` comments); checked against the file itself when
 * DEBUG_KERNELS_C names a readable copy. */
static const struct {
    const char *name, *where;
} sites[] = {
    {"gemm_load_a", "debug_kernels.c:29:17"},
    {"rows_store", "debug_kernels.c:45:9"},
    {"vec_load", "debug_kernels.c:56:9"},
    {"bounds_load", "debug_kernels.c:68:9"},
};

static const char *site(const char *name)
{
    for (size_t i = 0; i < sizeof sites / sizeof sites[0]; i++)
        if (strcmp(sites[i].name, name) == 0)
            return sites[i].where;
    return "?";
}

/* site(name) followed by `rest` (static storage, one at a time). */
static const char *at_site(const char *name, const char *rest)
{
    static char text[256];
    snprintf(text, sizeof text, "%s%s", site(name), rest);
    return text;
}

static void check_sites(void)
{
#ifdef DEBUG_KERNELS_C
    FILE *f = fopen(DEBUG_KERNELS_C, "r");
    if (!f) {
        printf("note: %s not readable; the expected locations are not checked against it\n", DEBUG_KERNELS_C);
        return;
    }
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        n++;
        const char *mark = strstr(line, "/* check: ");
        const char *op = strstr(line, "tile_");
        if (!mark || !op)
            continue;
        char name[64] = {0}, where[96];
        sscanf(mark + 10, "%63[a-z_]", name);
        snprintf(where, sizeof where, "debug_kernels.c:%d:%d", n, (int)(op - line) + 1);
        if (strcmp(site(name), where) != 0) {
            printf("FAIL: debug_test.c expects %s at %s, debug_kernels.c has it at %s\n", name, site(name), where);
            gc_failed++;
        }
    }
    fclose(f);
#endif
}

/* ---- stderr, captured ---- */

static FILE *captured;
static long captured_at;

/* What was written on stderr since the last call (static storage). */
static const char *new_stderr(void)
{
    static char text[8192];
    fflush(stderr);
    fseek(captured, captured_at, SEEK_SET);
    size_t got = fread(text, 1, sizeof text - 1, captured);
    text[got] = '\0';
    captured_at = ftell(captured);
    printf("---- stderr ----\n%s---- end ----\n", text);
    return text;
}

/* ---- buffers of the violating calls ---- */

static const uint32_t POISON = 0xFFFFFFFFu; /* a NaN */

/* n floats on the device and `pad` more after them, all poisoned. */
static float *poisoned(size_t n, size_t pad)
{
    float *p = NULL;
    SU_CHECK(cudaMalloc((void **)&p, (n + pad) * sizeof(float)));
    SU_CHECK(cudaMemset(p, 0xFF, (n + pad) * sizeof(float)));
    return p;
}

static float *to_host(const float *dev, size_t n)
{
    float *h = malloc(n * sizeof(float));
    SU_CHECK(cudaMemcpy(h, dev, n * sizeof(float), cudaMemcpyDeviceToHost));
    return h;
}

static void *upload(const void *host, size_t bytes)
{
    void *d = NULL;
    SU_CHECK(cudaMalloc(&d, bytes));
    SU_CHECK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
    return d;
}

static bool is_poison(float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits == POISON;
}

/* Elements [from, to) of h all still poisoned? */
static bool all_poison(const float *h, size_t from, size_t to, const char *what)
{
    for (size_t i = from; i < to; i++)
        if (!is_poison(h[i])) {
            printf("FAIL: %s: element %zu was written (%g)\n", what, i, h[i]);
            return false;
        }
    return true;
}

/* Elements [from, to) of h equal to ref (within rel)? */
static bool all_close(const float *h, const float *ref, size_t from, size_t to, double rel, const char *what)
{
    for (size_t i = from; i < to; i++) {
        double d = fabs((double)h[i] - ref[i]), m = fabs((double)ref[i]);
        if (!(d <= rel * (m > 1 ? m : 1))) {
            printf("FAIL: %s: element %zu is %g, expected %g\n", what, i, h[i], ref[i]);
            return false;
        }
    }
    return true;
}

/* The launcher's result and the report it left on stderr. */
static bool expect_report(const char *label, cudaError_t err, const char *kernel, const char *prefix, const char *tail)
{
    const char *text = new_stderr();
    bool ok = true;
    if (err != cudaErrorAssert) {
        printf("FAIL: %s: the launcher returned %s, not cudaErrorAssert\n", label, cudaGetErrorName(err));
        ok = false;
    }
    const char *at = strstr(text, prefix);
    if (!at) {
        printf("FAIL: %s: no line starting '%s' on stderr\n", label, prefix);
        ok = false;
    } else {
        const char *end = strchr(at, '\n');
        const char *t = strstr(at, tail);
        if (!t || (end && t > end)) {
            printf("FAIL: %s: the report does not end '%s'\n", label, tail);
            ok = false;
        }
    }
    char failed_line[160];
    snprintf(failed_line, sizeof failed_line, "tilepp: %s (debug_kernels.c:", kernel);
    if (!strstr(text, failed_line) || !strstr(text, "a bounds check failed (translated with -g): cudaErrorAssert")) {
        printf("FAIL: %s: no failure line 'tilepp: %s (debug_kernels.c:N), device D: a bounds check failed ...'\n",
               label, kernel);
        ok = false;
    }
    /* the context is fine: no kernel trapped */
    cudaError_t sticky = cudaDeviceSynchronize();
    if (sticky != cudaSuccess) {
        printf("FAIL: %s: the device is left in error: %s\n", label, cudaGetErrorName(sticky));
        ok = false;
    }
    return ok;
}

static void count(bool ok, const char *label)
{
    if (ok) {
        printf("PASS: %s\n", label);
        gc_passed++;
    } else
        gc_failed++;
}

/* ---- promises kept ---- */

static void good_calls(const char *when)
{
    {
        const int M = 128, N = 192, K = 96;
        gc_case c;
        gc_begin(&c);
        gc_buf *a = gc_in(&c, GC_F16, (size_t)M * K, 0), *b = gc_in(&c, GC_F16, (size_t)K * N, 0);
        gc_buf *o = gc_out(&c, GC_F32, (size_t)M * N, 0, 1e-5);
        dbg_gemm(M, N, K, a->host, b->host, o->host);
        gc_finish(&c, dbg_gemm_gpu(M, N, K, a->dev, b->dev, o->dev), "%s: dbg_gemm %dx%dx%d", when, M, N, K);
    }
    {
        const int M = 192;
        gc_case c;
        gc_begin(&c);
        gc_buf *x = gc_in(&c, GC_F32, (size_t)M * TN, 0), *y = gc_out(&c, GC_F32, (size_t)M * TN, 0, 1e-7);
        dbg_rows(M, x->host, y->host);
        gc_finish(&c, dbg_rows_gpu(M, x->dev, y->dev), "%s: dbg_rows M=%d", when, M);
    }
    {
        const int n = 768;
        gc_case c;
        gc_begin(&c);
        gc_buf *x = gc_in(&c, GC_F32, n, 0), *y = gc_out(&c, GC_F32, n, 0, 1e-7);
        dbg_vec(n, x->host, y->host);
        gc_finish(&c, dbg_vec_gpu(n, x->dev, y->dev), "%s: dbg_vec n=%d", when, n);
    }
    {
        const int M = 100;
        gc_case c;
        gc_begin(&c);
        gc_buf *x = gc_in(&c, GC_F32, (size_t)M * TN, 0), *y = gc_out(&c, GC_F32, (size_t)M * TN, 0, 1e-7);
        dbg_bounds(M, M, x->host, y->host);
        gc_finish(&c, dbg_bounds_gpu(M, M, x->dev, y->dev), "%s: dbg_bounds M=rows=%d", when, M);
    }
    const char *text = new_stderr();
    if (*text) {
        printf("FAIL: %s: the calls that keep their promises wrote on stderr\n", when);
        gc_failed++;
    }
}

/* ---- promises broken ---- */

static void random_floats(float *p, size_t n, unsigned seed)
{
    srand(seed);
    for (size_t i = 0; i < n; i++)
        p[i] = (float)((double)rand() / RAND_MAX - 0.5);
}

static void gemm_past_end(void)
{
    const int M = 100, N = 128, K = 128, BM = 64;
    uint16_t *a = malloc((size_t)M * K * 2), *b = malloc((size_t)K * N * 2);
    for (int i = 0; i < M * K; i++)
        a[i] = tile_check_float_to_half((float)((i * 37) % 17) / 16 - 0.5f);
    for (int i = 0; i < K * N; i++)
        b[i] = tile_check_float_to_half((float)((i * 11) % 13) / 12 - 0.5f);
    float *ref = malloc((size_t)BM * N * sizeof(float));
    dbg_gemm(BM, N, K, (const half *)a, (const half *)b, ref); /* block row 0 keeps its promise */
    void *da = upload(a, (size_t)M * K * 2), *db = upload(b, (size_t)K * N * 2);
    float *dc = poisoned((size_t)M * N, (size_t)PAD_ROWS * N);
    cudaError_t err = dbg_gemm_gpu(M, N, K, da, db, dc);
    bool ok =
        expect_report("dbg_gemm M=100", err, "dbg_gemm",
                      at_site("gemm_load_a", ": tile_load of 'As' from 'A': rows 64..127 of 100 (block by=1, bx="),
                      "): the 4-argument form promises the window is inside the matrix\n");
    float *h = to_host(dc, (size_t)(M + PAD_ROWS) * N);
    ok &= all_close(h, ref, 0, (size_t)BM * N, 1e-5, "dbg_gemm M=100, rows 0..63");
    ok &=
        all_poison(h, (size_t)BM * N, (size_t)(M + PAD_ROWS) * N, "dbg_gemm M=100, rows 64..163 (skipped, and past C)");
    count(ok, "dbg_gemm M=100: the broken promise of the A load reported, rows 64.. untouched");
    free(h), free(ref), free(a), free(b);
    (void)cudaFree(da), (void)cudaFree(db), (void)cudaFree(dc);
}

static void rows_past_end(void)
{
    const int M = 100, TM = 64;
    float *x = malloc((size_t)M * TN * sizeof(float));
    random_floats(x, (size_t)M * TN, 1);
    float *dx = upload(x, (size_t)M * TN * sizeof(float));
    float *dy = poisoned((size_t)M * TN, (size_t)PAD_ROWS * TN);
    cudaError_t err = dbg_rows_gpu(M, dx, dy);
    bool ok = expect_report("dbg_rows M=100", err, "dbg_rows",
                            at_site("rows_store", ": tile_store of 'Xf' to 'Y': rows 64..127 of 100 (block by=1)"),
                            "): the 4-argument form promises the window is inside the matrix\n");
    float *h = to_host(dy, (size_t)(M + PAD_ROWS) * TN);
    ok &= all_close(h, x, 0, (size_t)TM * TN, 0, "dbg_rows M=100, rows 0..63");
    ok &= all_poison(h, (size_t)TM * TN, (size_t)(M + PAD_ROWS) * TN,
                     "dbg_rows M=100, rows 64..163 (skipped, and past Y)");
    count(ok, "dbg_rows M=100: the broken promise of the store reported, nothing written past row 63");
    free(h), free(x);
    (void)cudaFree(dx), (void)cudaFree(dy);
}

static void vec_past_end(void)
{
    const int n = 300, VL = 256;
    float *x = malloc((size_t)n * sizeof(float));
    random_floats(x, n, 2);
    float *dx = upload(x, (size_t)n * sizeof(float));
    float *dy = poisoned(n, 1024);
    cudaError_t err = dbg_vec_gpu(n, dx, dy);
    bool ok = expect_report("dbg_vec n=300", err, "dbg_vec",
                            at_site("vec_load", ": tile_load of 'xs' from 'x': elements 256..511 of 300 (block b=1)"),
                            "): the 3-argument form promises the window is inside the vector\n");
    float *h = to_host(dy, (size_t)n + 1024);
    ok &= all_close(h, x, 0, VL, 0, "dbg_vec n=300, elements 0..255");
    ok &= all_poison(h, n, (size_t)n + 1024, "dbg_vec n=300, past y");
    count(ok, "dbg_vec n=300: the broken promise of the 1-D load reported, nothing written past y");
    free(h), free(x);
    (void)cudaFree(dx), (void)cudaFree(dy);
}

static void bounds_too_large(void)
{
    const int M = 100, rows = 128;
    float *x = malloc((size_t)M * TN * sizeof(float));
    random_floats(x, (size_t)M * TN, 3);
    float *dx = upload(x, (size_t)M * TN * sizeof(float));
    float *dy = poisoned((size_t)M * TN, (size_t)PAD_ROWS * TN);
    cudaError_t err = dbg_bounds_gpu(M, rows, dx, dy);
    bool ok = expect_report(
        "dbg_bounds rows=128 M=100", err, "dbg_bounds",
        at_site("bounds_load", ": tile_load of 'Xf' from 'X': extents 128 x 64, the matrix is 100 x 64 (block by="),
        "): the extents given to the 6-argument form must lie between 0 and the matrix's\n");
    float *h = to_host(dy, (size_t)(M + PAD_ROWS) * TN);
    ok &= all_poison(h, (size_t)M * TN, (size_t)(M + PAD_ROWS) * TN, "dbg_bounds, past Y");
    count(ok, "dbg_bounds rows=128 > M=100: the extents reported, nothing written past Y");
    free(h), free(x);
    (void)cudaFree(dx), (void)cudaFree(dy);
}

int main(void)
{
    check_sites(); /* needs no device */
    gc_require_gpu();
    captured = tmpfile();
    if (!captured || dup2(fileno(captured), 2) < 0) {
        printf("FAIL: cannot capture stderr\n");
        return 1;
    }
    good_calls("promises kept");
    gemm_past_end();
    rows_past_end();
    vec_past_end();
    bounds_too_large();
    good_calls("after the violations");
    return gc_summary();
}

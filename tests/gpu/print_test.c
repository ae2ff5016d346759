/* print_test.c — tile_print in kernels (print_kernels.c): the GPU prints
 * what the CPU reference prints.
 *
 * Each kernel runs in child processes whose stdout goes to a file: once as
 * the CPU reference, and on the GPU with TILEPP_PRINT_BLOCK=all, unset (the
 * first block) and 1,1. The GPU writes a line `-- block (by=1, bx=0)` before
 * each print (the CPU does not); a print's lines come together, blocks in
 * any order. The documented filter — group the GPU's prints by that line,
 * blocks in the grid loops' order, drop the lines — must give the CPU's
 * output exactly with `all`; unset, only block (0, 0) prints, and with 1,1
 * only block (1, 1), each what it printed under `all`.
 *
 * Exits 0 when every check passed, 1 otherwise, 77 without a CUDA device. */
#define _GNU_SOURCE
#include <tilepp/check.h>
#include <tilepp/tile.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "print_kernels.tile.h"

void print_gemm(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N]);
void print_shared(int M, int N, float scale, const half X[M][N], const float w[N], half Y[M][N]);
void print_rows(int M, int N, const float X[M][N], const float v[N], float Y[M][N]);

enum { GM = 128, GN = 128, GK = 64, SM = 128, SN = 128, RM = 64, RN = 128 };

/* ---- the children: one kernel, on the CPU or the GPU, printing to stdout ---- */

/* Device copies of a child's arrays, freed before it returns (compute-sanitizer's
 * memcheck --leak-check full reports what a program leaves allocated). */
static void *dev_allocs[3];
static int ndev_allocs;

#define DEV_COPY(dst, src, bytes)                                                                                      \
    do {                                                                                                               \
        if (cudaMalloc((void **)&(dst), (bytes)) != cudaSuccess)                                                       \
            return 3;                                                                                                  \
        dev_allocs[ndev_allocs++] = (dst);                                                                             \
        if (cudaMemcpy((dst), (src), (bytes), cudaMemcpyHostToDevice) != cudaSuccess)                                  \
            return 3;                                                                                                  \
    } while (0)

static int run_kernel(const char *where, const char *name)
{
    const bool gpu = strcmp(where, "gpu") == 0;
    if (gpu)
        tile_check_require_gpu(); /* exits 77 without a device */
    cudaError_t err = cudaSuccess;
    if (strcmp(name, "gemm") == 0) {
        static half A[GM][GK], B[GK][GN];
        static float C[GM][GN];
        for (int i = 0; i < GM; i++)
            for (int k = 0; k < GK; k++)
                A[i][k] = (half)(float)((i * 3 + k) % 5 - 2);
        for (int k = 0; k < GK; k++)
            for (int j = 0; j < GN; j++)
                B[k][j] = (half)(float)((k + 2 * j) % 5 - 2);
        if (!gpu)
            print_gemm(GM, GN, GK, A, B, C);
        else {
            half *dA, *dB;
            float *dC;
            DEV_COPY(dA, A, sizeof A);
            DEV_COPY(dB, B, sizeof B);
            DEV_COPY(dC, C, sizeof C);
            err = print_gemm_gpu(GM, GN, GK, dA, dB, dC);
        }
    } else if (strcmp(name, "shared") == 0) {
        static half X[SM][SN], Y[SM][SN];
        static float w[SN];
        for (int i = 0; i < SM; i++)
            for (int j = 0; j < SN; j++)
                X[i][j] = (half)((float)((i * 7 + j) % 17) * 0.25f - 2.0f);
        for (int j = 0; j < SN; j++)
            w[j] = (float)j * 0.5f - 3.0f;
        if (!gpu)
            print_shared(SM, SN, 1.5f, X, w, Y);
        else {
            half *dX, *dY;
            float *dw;
            DEV_COPY(dX, X, sizeof X);
            DEV_COPY(dY, Y, sizeof Y);
            DEV_COPY(dw, w, sizeof w);
            err = print_shared_gpu(SM, SN, 1.5f, dX, dw, dY);
        }
    } else {
        static float X[RM][RN], Y[RM][RN], v[RN];
        for (int i = 0; i < RM; i++)
            for (int j = 0; j < RN; j++)
                X[i][j] = (float)((i * 5 + j * 3) % 23 - 11) * 0.125f;
        for (int j = 0; j < RN; j++)
            v[j] = (float)(j % 9) * 0.25f;
        if (!gpu)
            print_rows(RM, RN, X, v, Y);
        else {
            float *dX, *dY, *dv;
            DEV_COPY(dX, X, sizeof X);
            DEV_COPY(dY, Y, sizeof Y);
            DEV_COPY(dv, v, sizeof v);
            err = print_rows_gpu(RM, RN, dX, dv, dY);
        }
    }
    if (gpu && err == cudaSuccess)
        err = cudaDeviceSynchronize(); /* the device's printf buffer comes out here */
    for (int i = 0; i < ndev_allocs; i++)
        (void)cudaFree(dev_allocs[i]);
    fflush(stdout);
    if (err != cudaSuccess) {
        fprintf(stderr, "%s on the GPU: %s\n", name, cudaGetErrorString(err));
        return 2;
    }
    return 0;
}

/* ---- the parent ---- */

/* Runs this program as `--run where name` with TILEPP_PRINT_BLOCK = sel
 * (NULL: unset), its stdout into `out`; its exit status. */
static int run_child(const char *where, const char *name, const char *sel, const char *out)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (sel)
            setenv("TILEPP_PRINT_BLOCK", sel, 1);
        else
            unsetenv("TILEPP_PRINT_BLOCK");
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 1) < 0)
            _exit(126);
        execl("/proc/self/exe", "print_test", "--run", where, name, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return strdup("");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

/* The GPU's output split by block: each block's prints, in order, without
 * the `-- block (...)` lines. */
typedef struct Block {
    long long key[3];
    int nkey;
    char *text;
    size_t len, cap;
} Block;

typedef struct Blocks {
    Block b[64];
    int n;
    bool bad; /* a line before the first header, or too many blocks */
} Blocks;

static void append(Block *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->text = realloc(b->text, b->cap);
    }
    memcpy(b->text + b->len, s, n);
    b->len += n;
    b->text[b->len] = '\0';
}

static int key_cmp(const Block *x, const Block *y)
{
    for (int d = 0; d < 3; d++)
        if (x->key[d] != y->key[d])
            return x->key[d] < y->key[d] ? -1 : 1;
    return 0;
}

static void split_blocks(const char *out, Blocks *bs)
{
    memset(bs, 0, sizeof *bs);
    Block *cur = NULL;
    for (const char *p = out; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
        if (strncmp(p, "-- block (", 10) == 0) {
            Block k = {{0, 0, 0}, 0, NULL, 0, 0};
            for (const char *q = p; q < p + n && k.nkey < 3; q++)
                if (*q == '=')
                    k.key[k.nkey++] = strtoll(q + 1, NULL, 10);
            cur = NULL;
            for (int i = 0; i < bs->n && !cur; i++)
                if (key_cmp(&bs->b[i], &k) == 0)
                    cur = &bs->b[i];
            if (!cur && bs->n < 64) {
                cur = &bs->b[bs->n++];
                *cur = k;
                append(cur, "", 0);
            }
            if (!cur)
                bs->bad = true;
        } else if (cur)
            append(cur, p, n);
        else
            bs->bad = true;
        p += n;
    }
    /* the grid loops' order (insertion sort: a handful of blocks) */
    for (int i = 1; i < bs->n; i++)
        for (int j = i; j > 0 && key_cmp(&bs->b[j - 1], &bs->b[j]) > 0; j--) {
            Block t = bs->b[j];
            bs->b[j] = bs->b[j - 1];
            bs->b[j - 1] = t;
        }
}

static int passed, failed;

static void check(bool ok, const char *kernel, const char *what)
{
    printf("%s: %s: %s\n", ok ? "PASS" : "FAIL", kernel, what);
    if (ok)
        passed++;
    else
        failed++;
}

/* The first line where a and b differ, for the log. */
static void show_difference(const char *a, const char *b)
{
    int line = 1;
    const char *la = a, *lb = b;
    while (*a && *a == *b) {
        if (*a == '\n') {
            line++;
            la = a + 1;
            lb = b + 1;
        }
        a++, b++;
    }
    printf("    first difference at line %d:\n    cpu: %.120s\n    gpu: %.120s\n", line, la, lb);
}

static bool only_block(const Blocks *bs, long long by, long long bx)
{
    return !bs->bad && bs->n == 1 && bs->b[0].nkey == 2 && bs->b[0].key[0] == by && bs->b[0].key[1] == bx;
}

static const Block *block_of(const Blocks *bs, long long by, long long bx)
{
    for (int i = 0; i < bs->n; i++)
        if (bs->b[i].nkey == 2 && bs->b[i].key[0] == by && bs->b[i].key[1] == bx)
            return &bs->b[i];
    return NULL;
}

/* 77 when there is no device, else 0 (failures counted). */
static int test_kernel(const char *name, const char *dir)
{
    char cpu_path[512], all_path[512], first_path[512], sel_path[512];
    snprintf(cpu_path, sizeof cpu_path, "%s/%s.cpu.txt", dir, name);
    snprintf(all_path, sizeof all_path, "%s/%s.gpu_all.txt", dir, name);
    snprintf(first_path, sizeof first_path, "%s/%s.gpu_first.txt", dir, name);
    snprintf(sel_path, sizeof sel_path, "%s/%s.gpu_1_1.txt", dir, name);
    int rc = run_child("cpu", name, NULL, cpu_path);
    check(rc == 0, name, "the CPU reference ran");
    rc = run_child("gpu", name, "all", all_path);
    if (rc == 77)
        return 77;
    check(rc == 0, name, "the GPU run with TILEPP_PRINT_BLOCK=all");
    char *cpu = read_file(cpu_path), *all = read_file(all_path);
    Blocks bs;
    split_blocks(all, &bs);
    check(!bs.bad && bs.n == 4, name, "TILEPP_PRINT_BLOCK=all: 4 blocks print, each line after a '-- block' line");
    size_t total = 0;
    for (int i = 0; i < bs.n; i++)
        total += bs.b[i].len;
    char *sorted = calloc(total + 1, 1);
    for (int i = 0; i < bs.n; i++)
        strcat(sorted, bs.b[i].text);
    bool same = strcmp(sorted, cpu) == 0 && cpu[0];
    check(same, name,
          "TILEPP_PRINT_BLOCK=all, grouped by block in grid order, without the '-- block' lines: the "
          "CPU's output");
    if (!same)
        show_difference(cpu, sorted);

    rc = run_child("gpu", name, NULL, first_path);
    check(rc == 0, name, "the GPU run with TILEPP_PRINT_BLOCK unset");
    char *first = read_file(first_path);
    Blocks fs;
    split_blocks(first, &fs);
    const Block *b00 = block_of(&bs, 0, 0);
    check(only_block(&fs, 0, 0) && b00 && strcmp(fs.b[0].text, b00->text) == 0, name,
          "TILEPP_PRINT_BLOCK unset: block (0, 0) alone prints, what it printed under 'all'");

    rc = run_child("gpu", name, "1,1", sel_path);
    check(rc == 0, name, "the GPU run with TILEPP_PRINT_BLOCK=1,1");
    char *sel = read_file(sel_path);
    Blocks ss;
    split_blocks(sel, &ss);
    const Block *b11 = block_of(&bs, 1, 1);
    check(only_block(&ss, 1, 1) && b11 && strcmp(ss.b[0].text, b11->text) == 0, name,
          "TILEPP_PRINT_BLOCK=1,1: block (by=1, bx=1) alone prints, what it printed under 'all'");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--run") == 0)
        return run_kernel(argv[2], argv[3]);
    /* the children's outputs stay for a look: in a fresh temporary folder */
    char dir[] = "/tmp/tilepp_print_test_XXXXXX";
    if (!mkdtemp(dir)) {
        printf("FAIL: cannot make a temporary folder\n");
        return 1;
    }
    printf("outputs in %s\n", dir);
    const char *kernels[] = {"gemm", "shared", "rows"};
    for (int i = 0; i < 3; i++)
        if (test_kernel(kernels[i], dir) == 77) {
            printf("SKIPPED: no CUDA device\n");
            return 77;
        }
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}

/* CPU tests of tile.h: each tile operation against straightforward loops
 * written out by hand, on random data (a fixed seed), at the edges of the
 * matrix and past them, for the element types the operations convert between.
 * Prints one line per failed check and "N passed, N failed" at the end; the
 * exit status is 1 when a check failed.
 *
 * The in-bounds promises and shape checks abort the program: those tests run
 * the call in a child process (fork) and expect SIGABRT and the message.
 */
#define _POSIX_C_SOURCE 200809L
#include <tilepp/tile.h>

#include <float.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- harness ------------------------------------------------------------ */
static int n_pass, n_fail;

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (cond) {                                                                                                    \
            n_pass++;                                                                                                  \
        } else {                                                                                                       \
            n_fail++;                                                                                                  \
            fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond);                                         \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
        }                                                                                                              \
    } while (0)

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
/* A value in [-4, 4) on a 1/64 grid (exact in half and bfloat16 when small),
 * or with full float precision. */
static float rnd_grid(void) { return (float)((int)(rnd() % 512) - 256) / 64.0f; }
static float rnd_float(void) { return (float)((double)(rnd() >> 11) / 9007199254740992.0 * 8.0 - 4.0); }

static uint16_t bits16(const void *p)
{
    uint16_t b;
    memcpy(&b, p, sizeof b);
    return b;
}
static uint32_t bits32(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}
static uint64_t bits64(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}
/* Bitwise equality (so -0.0 != +0.0), with all NaNs equal. */
static int same_f(float a, float b) { return (a != a && b != b) || bits32(a) == bits32(b); }
static int same_d(double a, double b) { return (a != a && b != b) || bits64(a) == bits64(b); }
static int same_h(half a, half b) { return ((float)a != (float)a && (float)b != (float)b) || bits16(&a) == bits16(&b); }

/* Runs fn in a child with stdout (fd 1) or stderr (fd 2) going to a pipe;
 * returns what it wrote (static buffer) and its wait status. */
static const char *run_child(void (*fn)(void), int fd, int *status)
{
    static char buf[16384];
    int p[2];
    size_t len = 0;
    fflush(stdout);
    fflush(stderr);
    if (pipe(p) != 0)
        abort();
    pid_t pid = fork();
    if (pid < 0)
        abort();
    if (pid == 0) {
        close(p[0]);
        dup2(p[1], fd);
        fn();
        fflush(stdout);
        fflush(stderr);
        _exit(0);
    }
    close(p[1]);
    for (;;) {
        ssize_t n = read(p[0], buf + len, sizeof buf - 1 - len);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(p[0]);
    buf[len] = '\0';
    waitpid(pid, status, 0);
    return buf;
}

/* fn must abort with a message on stderr containing `expect`. */
#define EXPECT_ABORT(fn, expect)                                                                                       \
    do {                                                                                                               \
        int status_;                                                                                                   \
        const char *msg_ = run_child(fn, 2, &status_);                                                                 \
        CHECK(WIFSIGNALED(status_) && WTERMSIG(status_) == SIGABRT, "%s did not abort (message: %s)", #fn, msg_);      \
        CHECK(strstr(msg_, expect) != NULL, "%s: message \"%s\" lacks \"%s\"", #fn, msg_, expect);                     \
    } while (0)

/* ---- conversions ----------------------------------------------------------- */
static void test_conversions(void)
{
    /* float -> half: ties go to even, overflow at the tie to infinity. */
    {
        float f[8] = {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 2049.0f, 2051.0f, 65520.0f, 0x1p-25f, 3 * 0x1p-26f, -0.0f};
        const uint16_t expect[8] = {0x3C00, 0x3C02, 0x6800, 0x6802, 0x7C00, 0x0000, 0x0001, 0x8000};
        half h[8];
        tile_copy(h, f);
        for (int i = 0; i < 8; i++) {
            CHECK(bits16(&h[i]) == expect[i], "float %a -> half 0x%04x, expected 0x%04x", (double)f[i], bits16(&h[i]),
                  expect[i]);
            half c = (half)f[i];
            CHECK(same_h(h[i], c), "float %a -> half differs from the cast", (double)f[i]);
        }
    }
    /* double -> half rounds once: 1 + 2^-11 + 2^-40 is above the tie. */
    {
        double d[3] = {1.0 + 0x1p-11, 1.0 + 0x1p-11 + 0x1p-40, -(1.0 + 3 * 0x1p-11)};
        const uint16_t expect[3] = {0x3C00, 0x3C01, 0xBC02};
        half h[3];
        tile_copy(h, d);
        for (int i = 0; i < 3; i++)
            CHECK(bits16(&h[i]) == expect[i], "double %a -> half 0x%04x, expected 0x%04x", d[i], bits16(&h[i]),
                  expect[i]);
    }
#if TILE_HAVE_BFLOAT16
    /* float / double -> bfloat16: ties to even, one rounding from double. */
    {
        float f[7] = {1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, FLT_MAX, 0x1.FEp127f, INFINITY, -0.0f, 0x1p-140f};
        const uint16_t expect[7] = {0x3F80, 0x3F82, 0x7F80, 0x7F7F, 0x7F80, 0x8000, 0x0000};
        bfloat16 b[7];
        tile_copy(b, f);
        for (int i = 0; i < 7; i++)
            CHECK(bits16(&b[i]) == expect[i], "float %a -> bfloat16 0x%04x, expected 0x%04x", (double)f[i],
                  bits16(&b[i]), expect[i]);
        double d[5] = {1.0 + 0x1p-8 + 0x1p-40, 1.0 + 0x1p-8, -(1.0 + 0x1p-8 + 0x1p-50), 0x1p-133 * 1.25,
                       0x1p-133 * 1.5 + 0x1p-160};
        const uint16_t dexpect[5] = {0x3F81, 0x3F80, 0xBF81, 0x0001, 0x0002};
        bfloat16 db[5];
        tile_copy(db, d);
        for (int i = 0; i < 5; i++)
            CHECK(bits16(&db[i]) == dexpect[i], "double %a -> bfloat16 0x%04x, expected 0x%04x", d[i], bits16(&db[i]),
                  dexpect[i]);
        float nan1[1] = {NAN};
        bfloat16 nb[1];
        tile_copy(nb, nan1);
        CHECK((float)nb[0] != (float)nb[0], "NaN -> bfloat16 is not NaN");
    }
#if !defined(TILE_TEST_NO_BF16_CAST)
    /* Random bit patterns: the same as the compiler's conversion (normal
     * numbers only: with -march=native the compiler may use an instruction
     * that flushes subnormal inputs; those are checked above). */
    {
        enum { N = 4096 };
        static float f[N];
        static double d[N];
        static bfloat16 bf[N], bd[N];
        int bad_f = 0, bad_d = 0;
        for (int round = 0; round < 16; round++) {
            for (int i = 0; i < N; i++) {
                uint32_t u = (uint32_t)rnd();
                uint64_t v = rnd();
                if (i % 4 == 1) /* near ties */
                    u = (u & 0xFFFF0000u) | 0x8000u | (uint32_t)(i & 1);
                if (i % 4 == 2)
                    v = (v & 0xFFFFFFFFF0000000u) | 0x0000000008000000u;
                memcpy(&f[i], &u, sizeof u);
                memcpy(&d[i], &v, sizeof v);
            }
            tile_copy(bf, f);
            tile_copy(bd, d);
            for (int i = 0; i < N; i++) {
                bfloat16 cf = (bfloat16)f[i], cd = (bfloat16)d[i];
                if (fabsf(f[i]) < FLT_MIN || fabs(d[i]) < FLT_MIN)
                    continue;
                int nf = f[i] != f[i], nd = d[i] != d[i];
                bad_f += nf ? (float)bf[i] == (float)bf[i] : bits16(&bf[i]) != bits16(&cf);
                bad_d += nd ? (float)bd[i] == (float)bd[i] : bits16(&bd[i]) != bits16(&cd);
            }
        }
        CHECK(bad_f == 0, "%d random floats convert to bfloat16 unlike the cast", bad_f);
        CHECK(bad_d == 0, "%d random doubles convert to bfloat16 unlike the cast", bad_d);
    }
#endif
    /* bfloat16 <-> half through float. */
    {
        bfloat16 b[2] = {(bfloat16)1.5f, (bfloat16)-3.0f};
        half h[2];
        tile_copy(h, b);
        CHECK((float)h[0] == 1.5f && (float)h[1] == -3.0f, "bfloat16 -> half");
        half h2[2] = {(half)0.1f, (half)65504.0f};
        bfloat16 b2[2];
        tile_copy(b2, h2);
        CHECK(bits16(&b2[0]) == 0x3DCD && bits16(&b2[1]) == 0x4780, "half -> bfloat16: 0x%04x 0x%04x", bits16(&b2[0]),
              bits16(&b2[1]));
    }
#endif
    /* Random floats -> half against the cast. */
    {
        enum { N = 4096 };
        static float f[N];
        static half h[N];
        int bad = 0;
        for (int i = 0; i < N; i++) {
            uint32_t u = (uint32_t)rnd();
            memcpy(&f[i], &u, sizeof u);
        }
        tile_copy(h, f);
        for (int i = 0; i < N; i++) {
            half c = (half)f[i];
            bad += !same_h(h[i], c);
        }
        CHECK(bad == 0, "%d random floats convert to half unlike the cast", bad);
    }
    /* Integers: C's conversions, directly (not through double). */
    {
        int i4[4] = {300, -1, 255, 256};
        unsigned char u4[4];
        tile_copy(u4, i4);
        CHECK(u4[0] == 44 && u4[1] == 255 && u4[2] == 255 && u4[3] == 0, "int -> unsigned char: %d %d %d %d", u4[0],
              u4[1], u4[2], u4[3]);
        float f4[4] = {-2.7f, 2.7f, 0.5f, -0.0f};
        int n4[4];
        _Bool b4[4];
        tile_copy(n4, f4);
        tile_copy(b4, f4);
        CHECK(n4[0] == -2 && n4[1] == 2 && n4[2] == 0 && n4[3] == 0, "float -> int");
        CHECK(b4[0] && b4[1] && b4[2] && !b4[3], "float -> _Bool");
        long long ll[3] = {16777217, (1LL << 60) + (1LL << 36) + 1, -((1LL << 60) + (1LL << 36) + 1)};
        float fl[3];
        tile_copy(fl, ll);
        CHECK(fl[0] == 16777216.0f, "long long -> float: %a", (double)fl[0]);
        CHECK(fl[1] == 0x1p60f + 0x1p37f && fl[2] == -(0x1p60f + 0x1p37f),
              "long long -> float rounds once (not through double): %a", (double)fl[1]);
        unsigned long long ull[2] = {ULLONG_MAX, 70000};
        float fu[2];
        half hu[2];
        tile_copy(fu, ull);
        tile_copy(hu, ull);
        CHECK(fu[0] == 0x1p64f && fu[1] == 70000.0f, "unsigned long long -> float");
        CHECK(isinf((float)hu[0]) && isinf((float)hu[1]), "unsigned long long -> half overflows");
        half hi[3] = {(half)-7.75f, (half)65504.0f, (half)0.99f}, hs[2] = {(half)-7.75f, (half)0.99f};
        int ni[3];
        short si[2];
        tile_copy(ni, hi);
        tile_copy(si, hs);
        CHECK(ni[0] == -7 && ni[1] == 65504 && ni[2] == 0, "half -> int");
        CHECK(si[0] == -7 && si[1] == 0, "half -> short");
        signed char sc[2] = {-128, 127};
        double dc[2];
        tile_copy(dc, sc);
        CHECK(dc[0] == -128.0 && dc[1] == 127.0, "signed char -> double");
    }
    /* 2-D, same shape. */
    {
        float f[3][5];
        double d[3][5];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 5; j++)
                f[i][j] = rnd_float();
        tile_copy(d, f);
        int bad = 0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 5; j++)
                bad += d[i][j] != (double)f[i][j];
        CHECK(bad == 0, "2-D float -> double: %d differ", bad);
    }
}

/* ---- clear / fill ----------------------------------------------------------- */
static void test_clear_fill(void)
{
    float f[4][6];
    half h[8];
    int n[2][3];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 6; j++)
            f[i][j] = 1.0f;
    tile_clear(f);
    int bad = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 6; j++)
            bad += bits32(f[i][j]) != 0;
    CHECK(bad == 0, "tile_clear left %d nonzero", bad);

    tile_fill(f, -INFINITY);
    bad = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 6; j++)
            bad += f[i][j] != -INFINITY;
    CHECK(bad == 0, "tile_fill(float, -INFINITY): %d wrong", bad);

    tile_fill(h, 0.1); /* a double: rounded to half once */
    half expect = (half)0.1;
    bad = 0;
    for (int i = 0; i < 8; i++)
        bad += !same_h(h[i], expect);
    CHECK(bad == 0 && bits16(&h[0]) == 0x2E66, "tile_fill(half, 0.1): 0x%04x", bits16(&h[0]));
    tile_clear(h);
    CHECK(bits16(&h[7]) == 0, "tile_clear(half)");

    tile_fill(n, 3.7);
    CHECK(n[0][0] == 3 && n[1][2] == 3, "tile_fill(int, 3.7)");
    tile_fill(n, -2);
    CHECK(n[0][1] == -2 && n[1][2] == -2, "tile_fill(int, -2)");
#if TILE_HAVE_BFLOAT16
    bfloat16 b[2][2];
    tile_fill(b, 1.0 / 3.0);
    CHECK(bits16(&b[1][1]) == 0x3EAB, "tile_fill(bfloat16, 1/3): 0x%04x", bits16(&b[1][1]));
#endif
}

/* ---- 2-D load / store ------------------------------------------------------- */
enum { LM = 37, LN = 29, TR = 8, TC = 16 };

/* Origins that put the tile before, across and past each edge. */
static const int origins_r[] = {-9, -3, 0, 5, LM - TR, LM - 3, LM, LM + 4};
static const int origins_c[] = {-17, -5, 0, 7, LN - TC, LN - 6, LN, LN + 2};
#define NORIG 8

/* One load/store test per (matrix element type, tile element type); rows
 * and cols below the array's own extents, to see that the given extents,
 * not the array's, are the edge. */
#define TEST_WINDOW_2D(NAME, MT, TT)                                                                                   \
    static void NAME(void)                                                                                             \
    {                                                                                                                  \
        static MT src[LM][LN], dst[LM][LN];                                                                            \
        TT t[TR][TC];                                                                                                  \
        int bad_load = 0, bad_store = 0, bad_inside = 0;                                                               \
        for (int i = 0; i < LM; i++)                                                                                   \
            for (int j = 0; j < LN; j++)                                                                               \
                src[i][j] = (MT)rnd_grid();                                                                            \
        const int exts[2][2] = {{LM, LN}, {LM - 2, LN - 3}};                                                           \
        for (int e = 0; e < 2; e++) {                                                                                  \
            int rows = exts[e][0], cols = exts[e][1];                                                                  \
            for (int a = 0; a < NORIG; a++)                                                                            \
                for (int b = 0; b < NORIG; b++) {                                                                      \
                    int r0 = origins_r[a], c0 = origins_c[b];                                                          \
                    tile_fill(t, 99);                                                                                  \
                    tile_load(t, src, r0, c0, rows, cols);                                                             \
                    for (int i = 0; i < TR; i++)                                                                       \
                        for (int j = 0; j < TC; j++) {                                                                 \
                            int r = r0 + i, c = c0 + j;                                                                \
                            TT want = (r >= 0 && r < rows && c >= 0 && c < cols) ? (TT)src[r][c] : (TT)0;              \
                            bad_load += memcmp(&t[i][j], &want, sizeof want) != 0;                                     \
                        }                                                                                              \
                    for (int i = 0; i < TR; i++)                                                                       \
                        for (int j = 0; j < TC; j++)                                                                   \
                            t[i][j] = (TT)rnd_grid();                                                                  \
                    for (int i = 0; i < LM; i++)                                                                       \
                        for (int j = 0; j < LN; j++)                                                                   \
                            dst[i][j] = (MT)-7;                                                                        \
                    tile_store(dst, t, r0, c0, rows, cols);                                                            \
                    for (int r = 0; r < LM; r++)                                                                       \
                        for (int c = 0; c < LN; c++) {                                                                 \
                            int i = r - r0, j = c - c0;                                                                \
                            MT want =                                                                                  \
                                (r < rows && c < cols && i >= 0 && i < TR && j >= 0 && j < TC) ? (MT)t[i][j] : (MT)-7; \
                            bad_store += memcmp(&dst[r][c], &want, sizeof want) != 0;                                  \
                        }                                                                                              \
                }                                                                                                      \
        }                                                                                                              \
        /* The 4-argument forms where the tile is inside: the same as the 6. */                                        \
        for (int r0 = 0; r0 + TR <= LM; r0 += 5)                                                                       \
            for (int c0 = 0; c0 + TC <= LN; c0 += 3) {                                                                 \
                TT u[TR][TC];                                                                                          \
                tile_load(t, src, r0, c0, LM, LN);                                                                     \
                tile_load(u, src, r0, c0);                                                                             \
                bad_inside += memcmp(t, u, sizeof t) != 0;                                                             \
                for (int i = 0; i < LM; i++)                                                                           \
                    for (int j = 0; j < LN; j++)                                                                       \
                        dst[i][j] = (MT)-7;                                                                            \
                tile_store(dst, t, r0, c0);                                                                            \
                for (int r = 0; r < LM; r++)                                                                           \
                    for (int c = 0; c < LN; c++) {                                                                     \
                        int i = r - r0, j = c - c0;                                                                    \
                        MT want = (i >= 0 && i < TR && j >= 0 && j < TC) ? (MT)t[i][j] : (MT)-7;                       \
                        bad_inside += memcmp(&dst[r][c], &want, sizeof want) != 0;                                     \
                    }                                                                                                  \
            }                                                                                                          \
        CHECK(bad_load == 0, "%s: tile_load: %d elements wrong", #NAME, bad_load);                                     \
        CHECK(bad_store == 0, "%s: tile_store: %d elements wrong", #NAME, bad_store);                                  \
        CHECK(bad_inside == 0, "%s: 4-argument forms: %d wrong", #NAME, bad_inside);                                   \
    }

TEST_WINDOW_2D(window_half_half, half, half)
TEST_WINDOW_2D(window_float_half, float, half)
TEST_WINDOW_2D(window_half_float, half, float)
TEST_WINDOW_2D(window_float_float, float, float)
TEST_WINDOW_2D(window_int_double, int, double)
#if TILE_HAVE_BFLOAT16
TEST_WINDOW_2D(window_bf16_float, bfloat16, float)
TEST_WINDOW_2D(window_float_bf16, float, bfloat16)
#endif

/* A C99 array parameter, as in a kernel: const half A[M][K]. */
static void load_from_param(int M, int K, const half A[M][K], int r0, int c0, half t[TR][TC])
{
    half tile[TR][TC];
    tile_load(tile, A, r0, c0, M, K);
    memcpy(t, tile, sizeof tile);
}

static void store_to_param(int M, int N, half C[M][N], int r0, int c0)
{
    float t[TR][TC];
    for (int i = 0; i < TR; i++)
        for (int j = 0; j < TC; j++)
            t[i][j] = (float)(i * TC + j) + 0.5f;
    tile_store(C, t, r0, c0, M, N);
}

static void test_param_matrix(void)
{
    enum { M = 21, K = 19 };
    half *a = malloc(sizeof(half) * M * K);
    half t[TR][TC];
    int bad = 0;
    for (int i = 0; i < M * K; i++)
        a[i] = (half)rnd_grid();
    load_from_param(M, K, (const half(*)[K])a, 16, 8, t);
    for (int i = 0; i < TR; i++)
        for (int j = 0; j < TC; j++) {
            half want = (16 + i < M && 8 + j < K) ? a[(16 + i) * K + 8 + j] : (half)0;
            bad += !same_h(t[i][j], want);
        }
    CHECK(bad == 0, "load from a VLA parameter: %d wrong", bad);
    for (int i = 0; i < M * K; i++)
        a[i] = (half)-1;
    store_to_param(M, K, (half(*)[K])a, 17, 10);
    bad = 0;
    for (int r = 0; r < M; r++)
        for (int c = 0; c < K; c++) {
            int i = r - 17, j = c - 10;
            float want = (i >= 0 && i < TR && j >= 0 && j < TC) ? (float)(i * TC + j) + 0.5f : -1.0f;
            bad += (float)a[r * K + c] != (float)(half)want;
        }
    CHECK(bad == 0, "store to a VLA parameter: %d wrong", bad);
    free(a);
}

/* ---- slices of 4-D arrays ------------------------------------------------------ */
enum { QB = 2, QH = 3, QS = 40, QD = 16, QT = 16 };

static int check_slice_tile(half t[QT][QD], const half (*q)[QD], int r0, int rows)
{
    int bad = 0;
    for (int i = 0; i < QT; i++)
        for (int j = 0; j < QD; j++) {
            half want = r0 + i < rows ? q[r0 + i][j] : (half)0;
            bad += !same_h(t[i][j], want);
        }
    return bad;
}

/* Q[b][h] of a VLA parameter: the slice has type const half[S][D]. */
static int slice_of_vla(int B, int H, int S, int D, const half Q[B][H][S][D], int b, int h)
{
    half t[QT][QD];
    int bad = 0;
    tile_load(t, Q[b][h], 32, 0, S, D); /* rows 32..47, 40..47 past the edge */
    bad += check_slice_tile(t, (const half(*)[QD])Q[b][h], 32, S);
    tile_load(t, Q[b][h], 24, 0); /* inside */
    bad += check_slice_tile(t, (const half(*)[QD])Q[b][h], 24, S);
    return bad;
}

static void test_slices(void)
{
    static half Q[QB][QH][QS][QD];
    half t[QT][QD];
    for (int b = 0; b < QB; b++)
        for (int h = 0; h < QH; h++)
            for (int s = 0; s < QS; s++)
                for (int d = 0; d < QD; d++)
                    Q[b][h][s][d] = (half)rnd_grid();
    int bad = 0;
    for (int b = 0; b < QB; b++)
        for (int h = 0; h < QH; h++) {
            tile_load(t, Q[b][h], 32, 0, QS, QD);
            bad += check_slice_tile(t, (const half(*)[QD])Q[b][h], 32, QS);
            tile_load(t, Q[b][h], 16, 0);
            bad += check_slice_tile(t, (const half(*)[QD])Q[b][h], 16, QS);
        }
    CHECK(bad == 0, "slices Q[b][h] of a fixed-size array: %d wrong", bad);
    CHECK(slice_of_vla(QB, QH, QS, QD, (const half(*)[QH][QS][QD])Q, 1, 2) == 0, "slice of a VLA parameter");

    /* Store into a slice; the rest of Q stays. */
    float o[QT][QD];
    for (int i = 0; i < QT; i++)
        for (int j = 0; j < QD; j++)
            o[i][j] = (float)(i - j);
    static half before[QB][QH][QS][QD];
    memcpy(before, Q, sizeof Q);
    tile_store(Q[1][0], o, 32, 0, QS, QD);
    bad = 0;
    for (int b = 0; b < QB; b++)
        for (int h = 0; h < QH; h++)
            for (int s = 0; s < QS; s++)
                for (int d = 0; d < QD; d++) {
                    int inside = b == 1 && h == 0 && s >= 32;
                    half want = inside ? (half)o[s - 32][d] : before[b][h][s][d];
                    bad += !same_h(Q[b][h][s][d], want);
                }
    CHECK(bad == 0, "store into a slice: %d wrong", bad);
}

/* ---- 1-D forms ------------------------------------------------------------------ */
static void test_1d(void)
{
    enum { N = 37, L = 8 };
    float x[N], y[N];
    half v[L];
    int bad = 0;
    for (int i = 0; i < N; i++)
        x[i] = rnd_grid();
    /* (dst, src, i0): inside. */
    for (int i0 = 0; i0 + L <= N; i0 += 3) {
        tile_load(v, x, i0);
        for (int k = 0; k < L; k++)
            bad += !same_h(v[k], (half)x[i0 + k]);
    }
    CHECK(bad == 0, "tile_load(dst, src, i0): %d wrong", bad);
    /* (dst, src, i0, n): past either end reads 0; n below the array length. */
    const int starts[] = {-10, -3, 0, 13, 29, 33, 36, 40};
    bad = 0;
    for (int s = 0; s < 8; s++)
        for (int n = N - 4; n <= N; n += 4) {
            int i0 = starts[s];
            tile_load(v, x, i0, n);
            for (int k = 0; k < L; k++) {
                int i = i0 + k;
                bad += !same_h(v[k], i >= 0 && i < n ? (half)x[i] : (half)0);
            }
        }
    CHECK(bad == 0, "tile_load(dst, src, i0, n): %d wrong", bad);
    /* Any pointer expression works in the (i0, n) form. */
    const float *xp = x;
    tile_load(v, xp + 5, 26, 30);
    bad = 0;
    for (int k = 0; k < L; k++)
        bad += !same_h(v[k], 26 + k < 30 ? (half)x[5 + 26 + k] : (half)0);
    CHECK(bad == 0, "tile_load(dst, x + 5, i0, n): %d wrong", bad);
    /* Stores. */
    bad = 0;
    for (int k = 0; k < L; k++)
        v[k] = (half)(k + 1);
    for (int s = 0; s < 8; s++) {
        int i0 = starts[s], n = N - 2;
        for (int i = 0; i < N; i++)
            y[i] = -5.0f;
        tile_store(y, v, i0, n);
        for (int i = 0; i < N; i++) {
            int k = i - i0;
            bad += y[i] != (i < n && k >= 0 && k < L ? (float)(k + 1) : -5.0f);
        }
    }
    for (int i = 0; i < N; i++)
        y[i] = -5.0f;
    tile_store(y, v, 20);
    for (int i = 0; i < N; i++)
        bad += y[i] != (i >= 20 && i < 20 + L ? (float)(i - 19) : -5.0f);
    CHECK(bad == 0, "1-D tile_store: %d wrong", bad);
    /* A matrix row is a 1-D source. */
    float m2[4][N];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < N; j++)
            m2[i][j] = (float)(i * 100 + j);
    float w[L];
    tile_load(w, m2[2], 30, N);
    bad = 0;
    for (int k = 0; k < L; k++)
        bad += w[k] != (30 + k < N ? (float)(200 + 30 + k) : 0.0f);
    CHECK(bad == 0, "1-D load from a matrix row: %d wrong", bad);
}

/* ---- gemm -------------------------------------------------------------------------- */
enum { GM = 5, GN = 7, GK = 9 };

/* The documented order: acc = C; for k in order: p = a * b; acc = acc + p.
 * (p is volatile so that no -ffp-contract setting fuses the reference.) */
#define TEST_GEMM(NAME, IT)                                                                                            \
    static void NAME(void)                                                                                             \
    {                                                                                                                  \
        IT A[GM][GK], At[GK][GM], B[GK][GN], Bt[GN][GK];                                                               \
        float C0[GM][GN], C[GM][GN], R[GM][GN];                                                                        \
        for (int i = 0; i < GM; i++)                                                                                   \
            for (int k = 0; k < GK; k++)                                                                               \
                At[k][i] = A[i][k] = (IT)rnd_float();                                                                  \
        for (int k = 0; k < GK; k++)                                                                                   \
            for (int j = 0; j < GN; j++)                                                                               \
                Bt[j][k] = B[k][j] = (IT)rnd_float();                                                                  \
        for (int i = 0; i < GM; i++)                                                                                   \
            for (int j = 0; j < GN; j++)                                                                               \
                C0[i][j] = rnd_float();                                                                                \
        for (int i = 0; i < GM; i++)                                                                                   \
            for (int j = 0; j < GN; j++) {                                                                             \
                float acc = C0[i][j];                                                                                  \
                for (int k = 0; k < GK; k++) {                                                                         \
                    volatile float p = (float)A[i][k] * (float)B[k][j];                                                \
                    acc = acc + p;                                                                                     \
                }                                                                                                      \
                R[i][j] = acc;                                                                                         \
            }                                                                                                          \
        int bad[4] = {0, 0, 0, 0};                                                                                     \
        for (int v = 0; v < 4; v++) {                                                                                  \
            memcpy(C, C0, sizeof C);                                                                                   \
            if (v == 0)                                                                                                \
                tile_gemm(A, B, C);                                                                                    \
            else if (v == 1)                                                                                           \
                tile_gemm_nt(A, Bt, C);                                                                                \
            else if (v == 2)                                                                                           \
                tile_gemm_tn(At, B, C);                                                                                \
            else                                                                                                       \
                tile_gemm_tt(At, Bt, C);                                                                               \
            for (int i = 0; i < GM; i++)                                                                               \
                for (int j = 0; j < GN; j++)                                                                           \
                    bad[v] += !same_f(C[i][j], R[i][j]);                                                               \
        }                                                                                                              \
        CHECK(bad[0] == 0, "%s: tile_gemm: %d differ", #NAME, bad[0]);                                                 \
        CHECK(bad[1] == 0, "%s: tile_gemm_nt: %d differ", #NAME, bad[1]);                                              \
        CHECK(bad[2] == 0, "%s: tile_gemm_tn: %d differ", #NAME, bad[2]);                                              \
        CHECK(bad[3] == 0, "%s: tile_gemm_tt: %d differ", #NAME, bad[3]);                                              \
    }

TEST_GEMM(gemm_half, half)
TEST_GEMM(gemm_float, float)
#if TILE_HAVE_BFLOAT16
TEST_GEMM(gemm_bf16, bfloat16)
#endif

static void test_gemm_other(void)
{
    /* Larger, with a half C: float accumulation, one rounding at the end. */
    enum { M = 64, N = 48, K = 32 };
    static half A[M][K], B[K][N], C[M][N], R[M][N];
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++)
            A[i][k] = (half)rnd_float();
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++)
            B[k][j] = (half)rnd_float();
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            C[i][j] = (half)rnd_float();
            float acc = (float)C[i][j];
            for (int k = 0; k < K; k++) {
                volatile float p = (float)A[i][k] * (float)B[k][j];
                acc = acc + p;
            }
            R[i][j] = (half)acc;
        }
    tile_gemm(A, B, C);
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            bad += !same_h(C[i][j], R[i][j]);
    CHECK(bad == 0, "gemm with a half C: %d differ", bad);

    /* A double C: double accumulation. */
    float fa[3][4], fb[4][2];
    double dc[3][2], dr[3][2];
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 4; k++)
            fa[i][k] = rnd_float();
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < 2; j++)
            fb[k][j] = rnd_float();
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) {
            dc[i][j] = 0.25;
            double acc = 0.25;
            for (int k = 0; k < 4; k++) {
                volatile double p = (double)fa[i][k] * (double)fb[k][j];
                acc = acc + p;
            }
            dr[i][j] = acc;
        }
    tile_gemm(fa, fb, dc);
    bad = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            bad += !same_d(dc[i][j], dr[i][j]);
    CHECK(bad == 0, "gemm with a double C: %d differ", bad);

    /* int8 inputs, int C. */
    signed char ia[4][6], ib[2][6];
    int ic[4][2], ir[4][2];
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 6; k++)
            ia[i][k] = (signed char)(rnd() % 256 - 128);
    for (int j = 0; j < 2; j++)
        for (int k = 0; k < 6; k++)
            ib[j][k] = (signed char)(rnd() % 256 - 128);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++) {
            ic[i][j] = ir[i][j] = 1000;
            for (int k = 0; k < 6; k++)
                ir[i][j] += ia[i][k] * ib[j][k];
        }
    tile_gemm_nt(ia, ib, ic);
    CHECK(memcmp(ic, ir, sizeof ic) == 0, "int8 gemm_nt into int");
}

/* ---- reductions ------------------------------------------------------------------- */
enum { RR = 6, RC = 10 };
enum { OP_MAX, OP_MIN, OP_SUM, OP_ABSMAX, OP_ABSSUM };

static float ref_op(int op, float acc, float x)
{
    switch (op) {
    case OP_MAX:
        return fmaxf(acc, x);
    case OP_MIN:
        return fminf(acc, x);
    case OP_SUM:
        return acc + x;
    case OP_ABSMAX:
        return fmaxf(acc, fabsf(x));
    default:
        return acc + fabsf(x);
    }
}
static float ref_identity(int op) { return op == OP_MAX ? -INFINITY : op == OP_MIN ? INFINITY : 0.0f; }

#define REDUCE_CALL(op, s, d, dim, clear)                                                                              \
    do {                                                                                                               \
        switch (op) {                                                                                                  \
        case OP_MAX:                                                                                                   \
            tile_reduce_max(s, d, dim, clear);                                                                         \
            break;                                                                                                     \
        case OP_MIN:                                                                                                   \
            tile_reduce_min(s, d, dim, clear);                                                                         \
            break;                                                                                                     \
        case OP_SUM:                                                                                                   \
            tile_reduce_sum(s, d, dim, clear);                                                                         \
            break;                                                                                                     \
        case OP_ABSMAX:                                                                                                \
            tile_reduce_absmax(s, d, dim, clear);                                                                      \
            break;                                                                                                     \
        default:                                                                                                       \
            tile_reduce_abssum(s, d, dim, clear);                                                                      \
            break;                                                                                                     \
        }                                                                                                              \
    } while (0)

/* src of type ST, dst of type DT (float or half or float); reference in float. */
#define TEST_REDUCE(NAME, ST, DT)                                                                                      \
    static void NAME(void)                                                                                             \
    {                                                                                                                  \
        ST s[RR][RC];                                                                                                  \
        DT rows_[RR], cols_[RC];                                                                                       \
        int bad = 0;                                                                                                   \
        for (int i = 0; i < RR; i++)                                                                                   \
            for (int j = 0; j < RC; j++)                                                                               \
                s[i][j] = (ST)rnd_float();                                                                             \
        for (int op = 0; op < 5; op++)                                                                                 \
            for (int clear = 0; clear < 2; clear++) {                                                                  \
                DT init_r[RR], init_c[RC];                                                                             \
                for (int i = 0; i < RR; i++)                                                                           \
                    rows_[i] = init_r[i] = (DT)rnd_float();                                                            \
                for (int j = 0; j < RC; j++)                                                                           \
                    cols_[j] = init_c[j] = (DT)rnd_float();                                                            \
                REDUCE_CALL(op, s, rows_, 1, clear);                                                                   \
                REDUCE_CALL(op, s, cols_, 0, clear);                                                                   \
                for (int i = 0; i < RR; i++) {                                                                         \
                    float acc = clear ? ref_identity(op) : (float)init_r[i];                                           \
                    for (int j = 0; j < RC; j++)                                                                       \
                        acc = ref_op(op, acc, (float)s[i][j]);                                                         \
                    DT want = (DT)acc;                                                                                 \
                    bad += memcmp(&rows_[i], &want, sizeof want) != 0;                                                 \
                }                                                                                                      \
                for (int j = 0; j < RC; j++) {                                                                         \
                    float acc = clear ? ref_identity(op) : (float)init_c[j];                                           \
                    for (int i = 0; i < RR; i++)                                                                       \
                        acc = ref_op(op, acc, (float)s[i][j]);                                                         \
                    DT want = (DT)acc;                                                                                 \
                    bad += memcmp(&cols_[j], &want, sizeof want) != 0;                                                 \
                }                                                                                                      \
            }                                                                                                          \
        CHECK(bad == 0, "%s: %d reduced values differ", #NAME, bad);                                                   \
    }

TEST_REDUCE(reduce_float_float, float, float)
TEST_REDUCE(reduce_half_float, half, float)
TEST_REDUCE(reduce_float_half, float, half)
#if TILE_HAVE_BFLOAT16
TEST_REDUCE(reduce_bf16_float, bfloat16, float)
#endif

static void test_reduce_other(void)
{
    /* Integers: exact, in long long. */
    int s[3][4] = {{1, -7, 3, 2}, {-4, 5, -6, 0}, {9, 9, -9, 1}};
    int r[3], c[4];
    tile_reduce_max(s, r, 1, 1);
    CHECK(r[0] == 3 && r[1] == 5 && r[2] == 9, "int reduce_max dim 1");
    tile_reduce_min(s, c, 0, 1);
    CHECK(c[0] == -4 && c[1] == -7 && c[2] == -9 && c[3] == 0, "int reduce_min dim 0");
    tile_reduce_abssum(s, r, 1, 0); /* accumulates onto the maxima */
    CHECK(r[0] == 3 + 13 && r[1] == 5 + 15 && r[2] == 9 + 28, "int reduce_abssum dim 1, clear 0");
    tile_reduce_absmax(s, c, 0, 1);
    CHECK(c[0] == 9 && c[1] == 9 && c[2] == 9 && c[3] == 2, "int reduce_absmax dim 0");
    /* NaN elements are ignored by max and min (fmaxf). */
    float f[2][3] = {{NAN, 1.0f, -2.0f}, {NAN, NAN, NAN}};
    float m[2];
    tile_reduce_max(f, m, 1, 1);
    CHECK(m[0] == 1.0f && m[1] == -INFINITY, "reduce_max with NaN: %g %g", (double)m[0], (double)m[1]);
    /* A double dst: double accumulation. */
    float fs[1][3] = {{1.0f, 0x1p-30f, 0x1p-30f}};
    double ds[1];
    tile_reduce_sum(fs, ds, 1, 1);
    CHECK(ds[0] == 1.0 + 0x1p-29, "reduce_sum into double accumulates in double");
}

/* ---- tile_print ------------------------------------------------------------------- */
static void print_scalars(void)
{
    float x = 1.5f;
    int i = -3;
    half h = (half)0.25f;
    unsigned long long u = 18446744073709551615ULL;
    tile_print(x);
    tile_print(i + 1);
    tile_print(h);
    tile_print(u);
}
static void print_tiles(void)
{
    int t[2][3] = {{1, 2, 3}, {4, 5, -6}};
    half v[4] = {(half)0.5f, (half)-1.0f, (half)65504.0f, (half)0.0f};
    _Bool b[1][2] = {{1, 0}};
    double d[1] = {1e-300};
    tile_print(t);
    tile_print(v);
    tile_print(b);
    tile_print(d);
}

static void test_print(void)
{
    int status;
    const char *out = run_child(print_scalars, 1, &status);
    CHECK(strcmp(out, "x = 1.5\ni + 1 = -2\nh = 0.25\nu = 18446744073709551615\n") == 0, "scalars printed as:\n%s",
          out);
    out = run_child(print_tiles, 1, &status);
    CHECK(strcmp(out, "t = [2 x 3] int\n  1 2 3\n  4 5 -6\n"
                      "v = [4] half\n  0.5 -1 65504 0\n"
                      "b = [1 x 2] _Bool\n  1 0\n"
                      "d = [1] double\n  1e-300\n") == 0,
          "tiles printed as:\n%s", out);
}

/* ---- the checks that abort ------------------------------------------------------- */
static float big[40][24];
static half bigh[2][3][40][16];

static void oob_cols(void)
{
    float t[8][16];
    tile_load(t, big, 0, 16); /* columns 16..31 of 24 */
}
static void oob_rows_array(void)
{
    float t[8][16];
    tile_load(t, big, 36, 0); /* rows 36..43 of 40: the array's extent is known */
}
static void oob_negative(void)
{
    float t[8][16];
    tile_load(t, big, -1, 0);
}
static void oob_slice(void)
{
    half t[16][16];
    tile_load(t, bigh[1][2], 32, 0); /* rows 32..47 of the 40-row slice */
}
static void oob_slice_vla_impl(int S, int D, const half Q[2][3][S][D])
{
    half t[16][16];
    tile_load(t, Q[0][1], 25, 0);
}
static void oob_slice_vla(void) { oob_slice_vla_impl(40, 16, (const half(*)[3][40][16])bigh); }
static void oob_param_impl(int M, int K, const float A[M][K])
{
    float t[8][16];
    tile_load(t, A, 0, 9); /* columns 9..24 of 24 */
}
static void oob_param(void) { oob_param_impl(40, 24, (const float(*)[24])big); }
static void oob_store(void)
{
    float t[8][16] = {{0}};
    tile_store(big, t, 33, 8);
}
static void oob_1d(void)
{
    float x[10] = {0}, v[4];
    tile_load(v, x, 7);
}
static void oob_1d_store(void)
{
    float x[10] = {0}, v[4] = {0};
    tile_store(x, v, -1);
}
static void cols_past_row(void)
{
    float t[8][16];
    tile_load(t, big, 0, 0, 40, 25);
}
static void gemm_shapes(void)
{
    float a[4][8], b[8][4], c[4][5];
    tile_clear(a);
    tile_clear(b);
    tile_clear(c);
    tile_gemm(a, b, c);
}
static void gemm_nt_shapes(void)
{
    float a[4][8], b[8][4], c[4][4];
    tile_clear(a);
    tile_clear(b);
    tile_clear(c);
    tile_gemm_nt(a, b, c); /* B must be N x K = 4 x 8 */
}
static void copy_shapes(void)
{
    float a[4][8], b[8][4];
    tile_clear(b);
    tile_copy(a, b);
}
static void reduce_shapes(void)
{
    float a[4][8], r[8];
    tile_clear(a);
    tile_reduce_sum(a, r, 1, 1);
}
static void reduce_dim(void)
{
    float a[4][8], r[8];
    tile_clear(a);
    tile_reduce_sum(a, r, 2, 1);
}
static void inside_is_fine(void)
{
    float t[8][16];
    tile_load(t, big, 32, 8);
    tile_store(big, t, 32, 8);
    half s[16][16];
    tile_load(s, bigh[1][2], 24, 0);
}

static void test_checks(void)
{
    EXPECT_ABORT(oob_cols, "tile_load: the 8 x 16 tile at (0, 16) is not inside the 40 x 24 matrix");
    EXPECT_ABORT(oob_rows_array, "tile_test.c:");
    EXPECT_ABORT(oob_rows_array, "at (36, 0) is not inside the 40 x 24 matrix");
    EXPECT_ABORT(oob_negative, "at (-1, 0) is not inside");
    EXPECT_ABORT(oob_slice, "the 16 x 16 tile at (32, 0) is not inside the 40 x 16 matrix");
    EXPECT_ABORT(oob_slice_vla, "the 16 x 16 tile at (25, 0) is not inside the 40 x 16 matrix");
    EXPECT_ABORT(oob_param, "not inside the matrix of 24 columns");
    EXPECT_ABORT(oob_store, "tile_store: the 8 x 16 tile at (33, 8) is not inside");
    EXPECT_ABORT(oob_1d, "tile_load: the 4-element tile at 7 is not inside the vector of 10 elements");
    EXPECT_ABORT(oob_1d_store, "tile_store: the 4-element tile at -1");
    EXPECT_ABORT(cols_past_row, "25 columns given, but the matrix rows hold 24 elements");
    EXPECT_ABORT(gemm_shapes, "tile_gemm: shapes do not match");
    EXPECT_ABORT(gemm_nt_shapes, "tile_gemm_nt: shapes do not match");
    EXPECT_ABORT(copy_shapes, "tile_copy: shapes differ: dst 4 x 8, src 8 x 4");
    EXPECT_ABORT(reduce_shapes, "tile_reduce_sum: a 4 x 8 tile reduced along dim 1 gives 4 values, but dst has 8");
    EXPECT_ABORT(reduce_dim, "dim is 2");
    int status;
    run_child(inside_is_fine, 2, &status);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "in-bounds 4-argument forms aborted");
}

/* ---- each argument once ------------------------------------------------------------ */
static void test_evaluation(void)
{
    static float m[16][16], q[4][16][16];
    float t[4][4], v[4];
    int r0 = 2, c0 = 3, rows = 16, b = 1, n = 0;
    tile_load(t, m, r0++, c0++, rows++, (n++, 16));
    CHECK(r0 == 3 && c0 == 4 && rows == 17 && n == 1, "6-argument tile_load evaluates its scalars once");
    tile_load(t, q[b++], 0, 0);
    CHECK(b == 2, "a fixed-size slice is evaluated once (b = %d)", b);
    tile_store(q[b--], t, r0++, 0, 16, 16);
    CHECK(b == 1 && r0 == 4, "tile_store evaluates its arguments once");
    tile_load(v, m[b++], c0++, n++);
    CHECK(b == 2 && c0 == 5 && n == 2, "1-D tile_load evaluates its arguments once");
    tile_fill(t, (float)(n++));
    CHECK(n == 3 && t[3][3] == 2.0f, "tile_fill evaluates its value once");
    int dim = 1, clear = 1;
    tile_reduce_sum(t, v, dim++, clear++);
    CHECK(dim == 2 && clear == 2 && v[0] == 8.0f, "tile_reduce evaluates dim and clear once");
}

/* tile_min/tile_max: the type C's usual arithmetic conversions give the two
 * arguments (the generated CUDA's functions give the same: the static_asserts
 * after their definition in tile_runtime.cuh), and the value. */
#define INT_NAME(x) _Generic((x), int : "int", unsigned : "unsigned", default : "other")
#define TYPE_NAME(x) _Generic((x), half : "half", float : "float", double : "double", default : INT_NAME(x))
static void test_min_max(void)
{
    half h = (half)1.5f, g = (half)-2.0f;
    short s = 3;
    int two = 2;
    CHECK(!strcmp(TYPE_NAME(tile_min(h, 1)), "half"), "half with int is %s", TYPE_NAME(tile_min(h, 1)));
    CHECK(!strcmp(TYPE_NAME(tile_max(1.0f, h)), "float"), "half with float is %s", TYPE_NAME(tile_max(1.0f, h)));
    CHECK(!strcmp(TYPE_NAME(tile_max(h, 1.0)), "double"), "half with double is %s", TYPE_NAME(tile_max(h, 1.0)));
    CHECK(!strcmp(TYPE_NAME(tile_min(h, g)), "half"), "half with half is %s", TYPE_NAME(tile_min(h, g)));
    CHECK(!strcmp(TYPE_NAME(tile_min(s, s)), "int"), "short with short is %s", TYPE_NAME(tile_min(s, s)));
    CHECK(!strcmp(TYPE_NAME(tile_max(1, 2u)), "unsigned"), "int with unsigned is %s", TYPE_NAME(tile_max(1, 2u)));
    CHECK(!strcmp(TYPE_NAME(tile_max(1LL, 2.0f)), "float"), "long long with float is %s",
          TYPE_NAME(tile_max(1LL, 2.0f)));
    /* (An int that half cannot hold, 2049, is where compilers differ: gcc
     * keeps it in float, excess precision; clang, like the GPU, rounds it.) */
    CHECK((float)tile_min(h, two) == 1.5f && (float)tile_max(h, two) == 2.0f, "half with int");
    CHECK(tile_max(h, 1.25f) == 1.5f && tile_min(g, 0.5f) == -2.0f, "half with float");
    int c = 0;
    CHECK((c < 1 ? h : 0.0f) == 1.5f && (c > 1 ? h : 0.25f) == 0.25f, "a conditional of half and float");
}

int main(void)
{
    test_conversions();
    test_clear_fill();
    window_half_half();
    window_float_half();
    window_half_float();
    window_float_float();
    window_int_double();
#if TILE_HAVE_BFLOAT16
    window_bf16_float();
    window_float_bf16();
#endif
    test_param_matrix();
    test_slices();
    test_1d();
    gemm_half();
    gemm_float();
#if TILE_HAVE_BFLOAT16
    gemm_bf16();
#endif
    test_gemm_other();
    reduce_float_float();
    reduce_half_float();
    reduce_float_half();
#if TILE_HAVE_BFLOAT16
    reduce_bf16_float();
#endif
    test_reduce_other();
    test_print();
    test_checks();
    test_evaluation();
    test_min_max();
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail != 0;
}

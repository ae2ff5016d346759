/* gen.c — random programs in the tile language, for differential testing
 * (issue 16, item 1: the Csmith idea for tilepp).
 *
 *   difftest_gen --seed S --count N --out DIR [--first F] [--per-file K | --groups G]
 *                [--tilepp PATH [--jobs J] [--timeout T]] [--family LIST]
 *
 * Writes N programs — each one kernel, as a user writes it in ordinary C
 * annotated with `#pragma tile` — into DIR/dt_group_NN.c files (K programs a
 * file, or exactly G files), and DIR/difftest_table.c: the driver's table of
 * every kernel (its name, its parameters: scalars with the values chosen for
 * them, arrays with element type, element count, role and fill, and each
 * output's tolerance). README.md describes the families of programs.
 *
 * Program F + k depends only on (S, F + k): `--first 42 --count 1`
 * regenerates program 42 of a seed alone.
 *
 * With --tilepp, the programs are translated K to a file (J translations at
 * a time, each limited to T seconds; translate_grouped): a file that
 * translates settles its programs; in a refused file the programs its located
 * errors point into are translated alone (DIR/single/NAME.c), and the file
 * again without them. With --single every program is translated alone. A
 * program the translator accepts goes into the group files and the table;
 * one it refuses (exit 1 with at least one located `file:line:col: error:`
 * and no output left behind) goes to DIR/refused/ with its diagnostics, and
 * into DIR/refused_all.c (all of them, for the C compiler's syntax check);
 * any other outcome (a crash, a hang, another exit status, an exit 1 without
 * a located error, outputs left behind, a sanitizer report) is a failure:
 * the program (or the file) is kept in DIR/failures/ with what happened, and
 * the generator exits 1. Then the final group files are translated too, as
 * the GPU build will.
 * DIR/summary.txt (also printed) counts the outcomes per family and groups
 * the refusals by message.
 *
 * Every program is valid C that means something well-defined on the CPU: no
 * undefined behaviour, no two iterations of a parallel loop writing the same
 * element, values kept in ranges where nothing overflows, conditions that
 * decide control flow computed exactly (from inputs and indices), so that the
 * CPU run and the GPU run take the same branches. */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- random numbers: xoshiro256**, seeded by splitmix64 ------------------ */

typedef struct {
    uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t a, uint64_t b)
{
    uint64_t x = a * 0xD1B54A32D192ED03ull ^ (b + 0x632BE59BD9B4E019ull);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* ---- growing strings -------------------------------------------------------- */

typedef struct {
    char *p;
    size_t len, cap;
} sb;

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "difftest_gen: out of memory\n");
        exit(2);
    }
    return q;
}

static void sb_vprintf(sb *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (b->len + (size_t)n + 1 > b->cap) {
        b->cap = (b->len + (size_t)n + 1) * 2;
        b->p = xrealloc(b->p, b->cap);
    }
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

static void sb_printf(sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

static const char *sb_str(const sb *b) { return b->p ? b->p : ""; }

static void sb_free(sb *b)
{
    free(b->p);
    *b = (sb){0};
}

/* Does `text` use the identifier `name` (as a whole word)? */
static int uses(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *s = strstr(text, name); s; s = strstr(s + 1, name)) {
        int before = s > text && (isalnum((unsigned char)s[-1]) || s[-1] == '_');
        int after = isalnum((unsigned char)s[n]) || s[n] == '_';
        if (!before && !after)
            return 1;
    }
    return 0;
}

/* ---- the model of a program ---------------------------------------------- */

enum { ET_F32, ET_F16, ET_BF16, ET_I32 };
static const char *const et_c[] = {"float", "half", "bfloat16", "int"};
static const char *const et_dt[] = {"DT_F32", "DT_F16", "DT_BF16", "DT_I32"};
/* The coarsest rounding a value stored in the type goes through. */
static const int et_lvl[] = {0, 1, 2, 0};

enum { PK_INT, PK_FLOAT, PK_ARRAY, PK_DOUBLE };
enum { ROLE_IN, ROLE_OUT, ROLE_INOUT };
static const char *const role_dt[] = {"DT_IN", "DT_OUT", "DT_INOUT"};
/* Inputs: uniform non-zero in [-1, 1]; in (0, 1]; integers in [-arg, arg]
 * without 0; indices in [0, arg). */
enum { FILL_UNIT, FILL_POS, FILL_INT, FILL_INDEX };
static const char *const fill_dt[] = {"DT_FILL_UNIT", "DT_FILL_POS", "DT_FILL_INT", "DT_FILL_INDEX"};

/* Relative tolerance of an inexact output, by the coarsest rounding an
 * inexact value met on its way (float, half, bfloat16): a float differing in
 * its last bits rounds to the neighbouring half / bfloat16, one unit in the
 * last place of the largest value is 2^-10 / 2^-7 of it; twice that, and 4e-3
 * and 3e-2 leave room for a second such flip upstream. The float 1e-4 covers
 * the device math library (expf, tanhf, erff: a few ulp), fma contraction
 * (nvcc contracts a * b + c; the CPU reference does not) and cancellation in
 * expressions whose intermediate values are at most ~16 times the output's
 * largest. Reductions add their own term (out_red). */
static const double lvl_tol[] = {1e-4, 4e-3, 3e-2};

#define MAXP 24

typedef struct {
    char name[24];
    int kind;
    long long ival;
    double fval;
    int et, role, fill;
    long long fill_arg;
    long long count;
    int offset;
    char decl[200];
    /* outputs */
    int inexact, lvl;
    double red;
    double tol;
    int keep; /* never pruned */
} param;

typedef struct {
    rng r;
    unsigned long long seed;
    int index;
    char pfx[16];  /* p0042: the prefix of every file-level name */
    char name[64]; /* the kernel */
    const char *family;
    char what[256];
    param par[MAXP];
    int npar;
    sb head; /* enums, macros, tables and helpers before the kernel */
    sb body; /* the kernel's body */
    int ind;
    int threads; /* 0: the default */
    int reject;  /* the generator could not complete it: draw again */
    int nnames;  /* counter for fresh local names */
    /* file-level definitions (helpers, tables) kept only when the kernel uses them */
    char def_name[4][48];
    sb def_text[4];
    int ndefs;
} prog;

static void add_def(prog *p, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void prune_dead(prog *p);
static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static int rnd(prog *p, int n) { return n <= 1 ? 0 : (int)(rng_next(&p->r) % (uint64_t)n); }
static long long rnd_range(prog *p, long long lo, long long hi)
{
    return hi <= lo ? lo : lo + (long long)(rng_next(&p->r) % (uint64_t)(hi - lo + 1));
}
static int chance(prog *p, int percent) { return rnd(p, 100) < percent; }

/* An index drawn with the given weights. */
static int pickw(prog *p, int n, const int *w)
{
    int total = 0;
    for (int i = 0; i < n; i++)
        total += w[i];
    int x = rnd(p, total);
    for (int i = 0; i < n; i++) {
        if (x < w[i])
            return i;
        x -= w[i];
    }
    return n - 1;
}
#define PICKW(p, ...) pickw(p, (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), (int[]){__VA_ARGS__})
#define PICK(p, arr) (arr)[rnd(p, (int)(sizeof(arr) / sizeof((arr)[0])))]

/* A line of the kernel body at the current indentation. */
static void ln(prog *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ln(prog *p, const char *fmt, ...)
{
    va_list ap;
    if (fmt[0] != '#')
        for (int i = 0; i < p->ind + 1; i++)
            sb_printf(&p->body, "    ");
    va_start(ap, fmt);
    sb_vprintf(&p->body, fmt, ap);
    va_end(ap);
    sb_printf(&p->body, "\n");
}

static void add_def(prog *p, const char *name, const char *fmt, ...)
{
    va_list ap;
    if (p->ndefs == 4)
        return;
    snprintf(p->def_name[p->ndefs], sizeof p->def_name[0], "%s", name);
    va_start(ap, fmt);
    sb_vprintf(&p->def_text[p->ndefs], fmt, ap);
    va_end(ap);
    p->ndefs++;
}

static param *new_param(prog *p, const char *name, int kind)
{
    if (p->npar == MAXP) {
        p->reject = 1;
        return &p->par[MAXP - 1];
    }
    param *q = &p->par[p->npar++];
    memset(q, 0, sizeof *q);
    snprintf(q->name, sizeof q->name, "%s", name);
    q->kind = kind;
    return q;
}

static param *add_int(prog *p, const char *name, long long v)
{
    param *q = new_param(p, name, PK_INT);
    q->ival = v;
    snprintf(q->decl, sizeof q->decl, "int %s", name);
    return q;
}

static param *add_flt(prog *p, const char *name, double v)
{
    param *q = new_param(p, name, PK_FLOAT);
    q->fval = v;
    snprintf(q->decl, sizeof q->decl, "float %s", name);
    return q;
}

static param *add_dbl(prog *p, const char *name, double v)
{
    param *q = new_param(p, name, PK_DOUBLE);
    q->fval = v;
    snprintf(q->decl, sizeof q->decl, "double %s", name);
    return q;
}

/* An array parameter; `decl` is the declarator as written in the signature
 * ("const float x[rows][cols]", "half *y"). */
static param *add_arr(prog *p, const char *name, int et, int role, long long count, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static param *add_arr(prog *p, const char *name, int et, int role, long long count, const char *fmt, ...)
{
    param *q = new_param(p, name, PK_ARRAY);
    va_list ap;
    q->et = et;
    q->role = role;
    q->count = count;
    q->fill = et == ET_I32 ? FILL_INT : FILL_UNIT;
    q->fill_arg = 1000;
    q->keep = role != ROLE_IN;
    va_start(ap, fmt);
    vsnprintf(q->decl, sizeof q->decl, fmt, ap);
    va_end(ap);
    /* a pointer offset by one element: misaligned for vector and 16-byte accesses */
    if (chance(p, 10))
        q->offset = 1;
    return q;
}

/* A 1-D array parameter, as a pointer or as a C99 array. */
/* Array parameters are `restrict` now and then: the driver's buffers never
 * overlap (and tilepp warns about those that may). */
static const char *maybe_restrict(prog *p) { return chance(p, 30) ? "restrict " : ""; }

static param *add_vec(prog *p, const char *name, int et, int role, long long count, const char *extent)
{
    const char *cq = role == ROLE_IN ? "const " : "";
    const char *rq = maybe_restrict(p);
    if (chance(p, 50))
        return add_arr(p, name, et, role, count, "%s%s *%s%s", cq, et_c[et], rq, name);
    return add_arr(p, name, et, role, count, "%s%s %s[%s%s]", cq, et_c[et], name, rq, extent);
}

/* A 2-D array parameter: `T x[rows][cols]` or `T (*x)[cols]`. */
static param *add_mat(prog *p, const char *name, int et, int role, long long count, const char *rows, const char *cols)
{
    const char *cq = role == ROLE_IN ? "const " : "";
    const char *rq = maybe_restrict(p);
    if (chance(p, 20))
        return add_arr(p, name, et, role, count, "%s%s (*%s%s)[%s]", cq, et_c[et], rq, name, cols);
    return add_arr(p, name, et, role, count, "%s%s %s[%s%s][%s]", cq, et_c[et], name, rq, rows, cols);
}

/* A reduction's rounding: random errors grow with sqrt(n), but a sequential
 * float sum or product of n terms that round alike (a constant added n
 * times, factors near 1) drifts by up to n roundings (2^-24 each). Seed 1's
 * p0292 (a constant summed 28576 times: the CPU's in-order sum was 3.4e-4
 * off, the GPU's tree 1e-6) and p0299 (a product of 154112 factors near 1,
 * 7.0e-4 apart) exceeded the sqrt(n) bound; half the worst case covers both.
 * Skipped or doubled elements are what the exact integer reductions catch. */
static void out_red(param *o, double n, double per_term)
{
    double drift = n * 0x1p-25;
    double t = fmax(per_term * sqrt(n > 1 ? n : 1), drift);
    o->inexact = 1;
    if (t > o->red)
        o->red = t;
}

/* A float constant as C writes it. */
static const char *fmt_f(char *buf, double v)
{
    char tmp[48];
    snprintf(tmp, sizeof tmp, "%.9g", v);
    if (!strpbrk(tmp, ".eEn"))
        strcat(tmp, ".0");
    snprintf(buf, 48, "%sf", tmp);
    return buf;
}

/* A value exactly representable in half, bfloat16 and float: k / 8. */
static double nice_value(prog *p, int allow_negative)
{
    double v = (double)rnd_range(p, 1, 24) / 8.0;
    return allow_negative && chance(p, 35) ? -v : v;
}

static int pick_threads(prog *p)
{
    static const int t[] = {0, 32, 64, 128, 128, 256, 256, 512, 1024};
    return PICK(p, t);
}

static long long pick_len(prog *p, long long maxv)
{
    long long v;
    switch (PICKW(p, 12, 18, 22, 20, 12, 8, 8)) {
    case 0:
        v = rnd_range(p, 1, 8);
        break;
    case 1:
        v = rnd_range(p, 9, 300);
        break;
    case 2:
        v = rnd_range(p, 301, 5000);
        break;
    case 3:
        v = rnd_range(p, 5001, 100000);
        break;
    case 4:
        v = rnd_range(p, 100001, maxv);
        break;
    case 5:
        v = 1LL << rnd_range(p, 5, 17);
        v += rnd_range(p, -1, 1);
        break;
    default:
        v = 256 * rnd_range(p, 1, 64);
        break;
    }
    return v < 1 ? 1 : v > maxv ? maxv : v;
}

/* rows x cols with at most `max_elems` elements. */
static void pick_shape2(prog *p, long long *rows, long long *cols, long long max_elems)
{
    static const long long small[] = {1, 2, 3, 5, 7, 8, 16, 31, 32, 33, 64, 100, 127, 128, 255, 256, 333, 512, 700};
    for (;;) {
        long long r = chance(p, 40) ? PICK(p, small) : rnd_range(p, 1, 900);
        long long c = chance(p, 30) ? PICK(p, small) : chance(p, 60) ? rnd_range(p, 1, 1200) : rnd_range(p, 1, 5000);
        if (r * c <= max_elems) {
            *rows = r;
            *cols = c;
            return;
        }
    }
}

static void fresh(prog *p, char *out, size_t len, const char *stem) { snprintf(out, len, "%s%d", stem, p->nnames++); }

/* ---- expressions ------------------------------------------------------------
 * Each expression carries what the tolerance needs: a bound on its magnitude,
 * whether the CPU and the GPU compute it to the same bits (`exact`: loads,
 * conversions, and correctly rounded operations that nvcc cannot contract:
 * a product is exact, but a sum that takes a product may become an fma on
 * the GPU: `mulroot` marks a product at the top), and the coarsest 16-bit
 * rounding an inexact value went through. */

#define EXMAX 3072

typedef struct {
    char s[EXMAX];
    double mag;
    int exact, mulroot, lvl;
    int is16; /* of C type half (ET_F16) or bfloat16 (ET_BF16), or 0 */
    int dbl;  /* of C type double (fabs, not fabsf) */
} ex;

typedef struct {
    char s[128];
    double mag;
    int exact, mulroot, lvl, is16, dbl;
} leaf;

/* Arithmetic between two half or two bfloat16 operands (`a[i] + b[i]`)
 * rounds to the 16-bit type with clang on x86-64 but not with gcc, nor on
 * the GPU (findings/half_plus_half.c); off unless --f16-arith. */
static int g_f16_arith;

/* The cast a conditional's operand needs (also tile_max/tile_min's): none
 * between a half or bfloat16 and another type (`c < n ? bias[c] : 0.0f`,
 * which tilepp once translated into CUDA nvcc rejects:
 * findings/ternary_16bit_float.c), but between half and bfloat16 through
 * float (see mix16). */
static const char *tern1(int a16, int b16) { return a16 && b16 && a16 != b16 ? "(float)" : ""; }

typedef struct {
    leaf f[48];
    int nf;
    leaf i[24];
    int ni;
    char cond[24][128]; /* conditions computed exactly on both sides */
    int nc;
    char helper[48]; /* a float -> float function of the file, or "" */
    int helper_exact;
    double helper_mag; /* |helper(v)| <= helper_mag * (|v| + 1) */
    double cap;        /* the largest magnitude an expression may reach */
} ctx;

static void ctx_f(ctx *c, double mag, int exact, int mulroot, int lvl, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static void ctx_f(ctx *c, double mag, int exact, int mulroot, int lvl, const char *fmt, ...)
{
    if (c->nf == (int)(sizeof c->f / sizeof c->f[0]))
        return;
    leaf *l = &c->f[c->nf++];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->s, sizeof l->s, fmt, ap);
    va_end(ap);
    l->mag = mag;
    l->exact = exact;
    l->mulroot = mulroot;
    l->lvl = lvl;
    l->is16 = 0;
    l->dbl = 0;
}

/* The last float leaf is of a 16-bit C type (ET_F16 or ET_BF16). */
static void ctx_mark16(ctx *c, int et) { c->f[c->nf - 1].is16 = et; }

/* Two 16-bit operands of one operator: clang 19 crashes on a conversion
 * between half and bfloat16 ("Do not know how to soft promote this
 * operator's operand"), and arithmetic within one of them rounds (see
 * g_f16_arith): the first goes through float. */
static const char *mix16(const ex *a, const ex *b, int arith)
{
    if (!a->is16 || !b->is16)
        return "";
    if (a->is16 != b->is16 || (arith && !g_f16_arith))
        return "(float)";
    return "";
}

static int same16(const ex *a, const ex *b, int arith)
{
    return a->is16 && a->is16 == b->is16 && (!arith || g_f16_arith) ? a->is16 : 0;
}

static void ctx_i(ctx *c, double mag, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void ctx_i(ctx *c, double mag, const char *fmt, ...)
{
    if (c->ni == (int)(sizeof c->i / sizeof c->i[0]))
        return;
    leaf *l = &c->i[c->ni++];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->s, sizeof l->s, fmt, ap);
    va_end(ap);
    l->mag = mag;
    l->exact = 1;
}

static void ctx_cond(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ctx_cond(ctx *c, const char *fmt, ...)
{
    if (c->nc == (int)(sizeof c->cond / sizeof c->cond[0]))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->cond[c->nc++], sizeof c->cond[0], fmt, ap);
    va_end(ap);
}

/* The leaves an element read as `text` gives (and conditions on it): a value
 * of at most `mag`, exact or not (an inexact value takes part in no
 * condition and no conversion to int: those could go either way). */
static void ctx_loadv(prog *p, ctx *c, int et, const char *text, double mag, int exact, int lvl)
{
    char k[48];
    if (et == ET_I32) {
        ctx_i(c, 1000, "%s", text);
        ctx_f(c, 1, 1, 1, 0, "(float)%s * 0.001f", text);
        if (chance(p, 50))
            ctx_cond(c, "%s %% 3 == 0", text);
        else
            ctx_cond(c, "(%s & 1) != 0", text);
        return;
    }
    ctx_f(c, mag, exact, 0, lvl, "%s", text);
    if (et != ET_F32)
        ctx_mark16(c, et);
    if (!exact)
        return;
    if (chance(p, 40) && mag <= 1.0)
        ctx_i(c, 64, "(int)(%s * 64.0f)", text);
    const char *cmp = chance(p, 50) ? ">" : "<";
    ctx_cond(c, "%s %s %s", text, cmp, fmt_f(k, (double)rnd_range(p, -4, 4) / 8.0 * mag));
}

static void ctx_load(prog *p, ctx *c, int et, const char *text) { ctx_loadv(p, c, et, text, 1.0, 1, 0); }

static void exs(ex *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void exs(ex *e, const char *fmt, ...)
{
    char tmp[EXMAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof tmp) /* too long: the caller's magnitude check throws it away */
        e->mag = INFINITY;
    memcpy(e->s, tmp, sizeof tmp);
}

static ex leaf_ex(const leaf *l)
{
    ex e;
    snprintf(e.s, sizeof e.s, "%s", l->s);
    e.mag = l->mag;
    e.exact = l->exact;
    e.mulroot = l->mulroot;
    e.lvl = l->lvl;
    e.is16 = l->is16;
    e.dbl = l->dbl;
    return e;
}

static ex const_ex(prog *p)
{
    ex e;
    char b[48];
    double v = nice_value(p, 1);
    snprintf(e.s, sizeof e.s, "%s", fmt_f(b, v));
    e.mag = fabs(v);
    e.exact = 1;
    e.mulroot = 0;
    e.lvl = 0;
    e.is16 = 0;
    e.dbl = 0;
    return e;
}

static ex gen_f_leaf(prog *p, const ctx *c)
{
    if (c->nf == 0 || chance(p, 8))
        return const_ex(p);
    return leaf_ex(&c->f[rnd(p, c->nf)]);
}

static ex gen_i(prog *p, const ctx *c, int depth);

static int imax(int a, int b) { return a > b ? a : b; }

static ex gen_f(prog *p, const ctx *c, int depth)
{
    if (depth <= 0 || chance(p, 20))
        return gen_f_leaf(p, c);
    for (int tries = 0; tries < 10; tries++) {
        ex r, a = gen_f(p, c, depth - 1), b;
        char k[48];
        r.lvl = a.lvl;
        r.mulroot = 0;
        r.is16 = 0;
        r.dbl = 0;
        switch (rnd(p, 19)) {
        case 0:
        case 1:
        case 2: /* + and - */
            b = gen_f(p, c, depth - 1);
            if (!strcmp(a.s, b.s))
                b = const_ex(p);
            exs(&r, "(%s%s %s %s)", mix16(&a, &b, 1), a.s, chance(p, 60) ? "+" : "-", b.s);
            r.is16 = same16(&a, &b, 1);
            r.dbl = a.dbl || b.dbl;
            r.mag = a.mag + b.mag;
            r.exact = a.exact && b.exact && !a.mulroot && !b.mulroot;
            r.lvl = imax(a.lvl, b.lvl);
            break;
        case 3:
        case 4: /* * */
            b = gen_f(p, c, depth - 1);
            exs(&r, "(%s%s * %s)", mix16(&a, &b, 1), a.s, b.s);
            r.is16 = same16(&a, &b, 1);
            r.dbl = a.dbl || b.dbl;
            r.mag = a.mag * b.mag;
            r.exact = a.exact && b.exact;
            r.mulroot = 1;
            r.lvl = imax(a.lvl, b.lvl);
            break;
        case 5: /* * constant */
            b = const_ex(p);
            exs(&r, "(%s * %s)", b.s, a.s);
            r.mag = a.mag * b.mag;
            r.exact = a.exact;
            r.mulroot = 1;
            r.dbl = a.dbl;
            break;
        case 6: /* division by something at least k */
            b = gen_f(p, c, depth - 1);
            {
                static const double ks[] = {0.5, 1.0, 2.0};
                double kv = PICK(p, ks);
                exs(&r, "(%s / (%s(%s) + %s))", a.s, b.dbl ? "fabs" : "fabsf", b.s, fmt_f(k, kv));
                r.dbl = a.dbl || b.dbl;
                r.mag = a.mag / kv;
                r.exact = a.exact && b.exact;
                r.lvl = imax(a.lvl, b.lvl);
            }
            break;
        case 7:
            exs(&r, a.s[0] == '-' ? "(-(%s))" : "(-%s)", a.s);
            r.mag = a.mag;
            r.exact = a.exact;
            r.mulroot = a.mulroot;
            r.is16 = a.is16;
            r.dbl = a.dbl;
            break;
        case 8:
            exs(&r, "%s(%s)", a.dbl ? "fabs" : "fabsf", a.s);
            r.mag = a.mag;
            r.exact = a.exact;
            r.dbl = a.dbl;
            break;
        case 9: /* fmaxf, fminf, tile_max, tile_min */
            b = gen_f(p, c, depth - 1);
            {
                static const char *const fns[] = {"fmaxf", "fminf", "fmaxf", "fminf", "tile_max", "tile_min"};
                const char *fn = PICK(p, fns);
                if (fn[0] == 't') /* a conditional */
                    exs(&r, "%s(%s%s, %s%s)", fn, tern1(a.is16, b.is16), a.s, tern1(b.is16, a.is16), b.s);
                else
                    exs(&r, "%s(%s%s, %s)", fn, mix16(&a, &b, 0), a.s, b.s);
                r.mag = fmax(a.mag, b.mag);
                r.exact = a.exact && b.exact;
                r.mulroot = fn[0] == 't' && (a.mulroot || b.mulroot);
                r.is16 = fn[0] == 't' ? same16(&a, &b, 0) : 0;
                r.dbl = fn[0] == 't' && (a.dbl || b.dbl);
                r.lvl = imax(a.lvl, b.lvl);
            }
            break;
        case 10: /* sqrtf away from 0, where its slope stays bounded */
            exs(&r, "sqrtf(%s(%s) + %s)", a.dbl ? "(float)fabs" : "fabsf", a.s, chance(p, 50) ? "0.25f" : "1.0f");
            r.mag = sqrt(a.mag + 1.0);
            r.exact = a.exact;
            break;
        case 11: /* exponentials of bounded arguments */
            if (a.mag > 5.0)
                continue;
            {
                static const char *const fns[] = {"expf", "exp2f", "expf"};
                const char *fn = PICK(p, fns);
                if (chance(p, 30))
                    exs(&r, (a.s[0] == '(' || !strchr(a.s, ' ')) && a.s[0] != '-' ? "%s(-%s)" : "%s(-(%s))", fn, a.s);
                else
                    exs(&r, "%s(%s)", fn, a.s);
                r.mag = exp(a.mag);
                r.exact = 0;
            }
            break;
        case 12: {
            static const char *const fns[] = {"tanhf", "erff", "tanhf"};
            exs(&r, "%s(%s)", PICK(p, fns), a.s);
            r.mag = 1.0;
            r.exact = 0;
        } break;
        case 13: /* a ternary on an exactly computed condition */
            if (c->nc == 0)
                continue;
            b = gen_f(p, c, depth - 1);
            exs(&r, "(%s ? %s%s : %s%s)", c->cond[rnd(p, c->nc)], tern1(a.is16, b.is16), a.s, tern1(b.is16, a.is16),
                b.s);
            r.mag = fmax(a.mag, b.mag);
            r.exact = a.exact && b.exact;
            r.mulroot = a.mulroot || b.mulroot;
            r.is16 = same16(&a, &b, 0);
            r.dbl = a.dbl || b.dbl;
            r.lvl = imax(a.lvl, b.lvl);
            break;
        case 14: /* the larger of two computed values: continuous where it switches */
            b = gen_f(p, c, depth - 1);
            if (!strcmp(a.s, b.s))
                continue;
            {
                const char *ma = tern1(a.is16, b.is16);
                const char *mb = tern1(b.is16, a.is16);
                exs(&r, "(%s%s %s %s ? %s%s : %s%s)", ma, a.s, chance(p, 50) ? ">" : "<", b.s, ma, a.s, mb, b.s);
            }
            r.mag = fmax(a.mag, b.mag);
            r.exact = a.exact && b.exact;
            r.mulroot = a.mulroot || b.mulroot;
            r.is16 = same16(&a, &b, 0);
            r.dbl = a.dbl || b.dbl;
            r.lvl = imax(a.lvl, b.lvl);
            break;
        case 15: /* the file's helper */
            if (!c->helper[0])
                continue;
            exs(&r, "%s(%s)", c->helper, a.s);
            r.mag = c->helper_mag * (a.mag + 1.0);
            r.exact = a.exact && c->helper_exact;
            r.mulroot = 1;
            break;
        case 16: /* a value rounded to half or bfloat16 on the way */
            if (a.mag > 60000.0)
                continue;
            {
                int bf = a.is16 ? a.is16 == ET_BF16 : !a.dbl && chance(p, 40);
                exs(&r, "(float)(%s)(%s)", bf ? "bfloat16" : "half", a.s);
                r.mag = a.mag * 1.01;
                r.exact = a.exact;
                if (!a.exact)
                    r.lvl = imax(r.lvl, bf ? 2 : 1);
            }
            break;
        case 17: /* an integer expression, scaled into range */
        {
            ex i = gen_i(p, c, depth - 1);
            double scale = 1.0;
            while (i.mag * scale > 4.0)
                scale /= 2.0;
            exs(&r, "(float)(%s) * %s", i.s, fmt_f(k, scale));
            r.mag = i.mag * scale;
            r.exact = 1;
            r.mulroot = 1;
            r.lvl = 0;
        } break;
        default: /* a constant added: never a cancellation to 0 */
            b = const_ex(p);
            exs(&r, "(%s + %s)", a.s, b.s);
            r.mag = a.mag + b.mag;
            r.exact = a.exact && !a.mulroot;
            r.dbl = a.dbl;
            break;
        }
        if (r.mag <= c->cap)
            return r;
    }
    return gen_f_leaf(p, c);
}

static ex gen_i_leaf(prog *p, const ctx *c)
{
    if (c->ni == 0 || chance(p, 10)) {
        ex e;
        long long v = rnd_range(p, 1, 40);
        snprintf(e.s, sizeof e.s, "%lld", v);
        e.mag = (double)v;
        e.exact = 1;
        e.mulroot = e.lvl = e.is16 = e.dbl = 0;
        return e;
    }
    return leaf_ex(&c->i[rnd(p, c->ni)]);
}

/* Integer expressions: every intermediate stays below 2^30 in magnitude, so
 * nothing overflows; no shifts of negative values, no division by zero. */
static ex gen_i(prog *p, const ctx *c, int depth)
{
    if (depth <= 0 || chance(p, 25))
        return gen_i_leaf(p, c);
    for (int tries = 0; tries < 10; tries++) {
        ex r, a = gen_i(p, c, depth - 1), b;
        long long k = rnd_range(p, 2, 13);
        r.exact = 1;
        r.mulroot = r.lvl = r.is16 = r.dbl = 0;
        switch (rnd(p, 10)) {
        case 0:
        case 1:
            b = gen_i(p, c, depth - 1);
            exs(&r, "(%s %s %s)", a.s, chance(p, 50) ? "+" : "-", b.s);
            r.mag = a.mag + b.mag;
            break;
        case 2:
            b = gen_i(p, c, depth - 1);
            exs(&r, "(%s * %s)", a.s, b.s);
            r.mag = a.mag * b.mag;
            break;
        case 3:
            exs(&r, "(%s %% %lld)", a.s, k);
            r.mag = (double)(k - 1);
            break;
        case 4:
            exs(&r, "(%s / %lld)", a.s, k);
            r.mag = a.mag / (double)k + 1;
            break;
        case 5: {
            static const char *const ops[] = {"&", "|", "^"};
            long long m = rnd_range(p, 1, 255);
            exs(&r, "(%s %s %lld)", a.s, PICK(p, ops), m);
            r.mag = a.mag + 256;
        } break;
        case 6:
            exs(&r, "((%s & 1023) >> %lld)", a.s, k % 5 + 1);
            r.mag = 1023;
            break;
        case 7:
            if (c->nc == 0)
                continue;
            b = gen_i(p, c, depth - 1);
            exs(&r, "(%s ? %s : %s)", c->cond[rnd(p, c->nc)], a.s, b.s);
            r.mag = fmax(a.mag, b.mag);
            break;
        case 8:
            b = gen_i(p, c, depth - 1);
            exs(&r, "%s(%s, %s)", chance(p, 50) ? "tile_max" : "tile_min", a.s, b.s);
            r.mag = fmax(a.mag, b.mag);
            break;
        default:
            exs(&r, a.s[0] == '-' ? "(-(%s))" : "(-%s)", a.s);
            r.mag = a.mag;
            break;
        }
        if (r.mag <= 1e8)
            return r;
    }
    return gen_i_leaf(p, c);
}

/* A helper function of the file that kernels may call. */
static void make_helper(prog *p, ctx *c)
{
    char name[48];
    snprintf(name, sizeof name, "%s_act", p->pfx);
    switch (rnd(p, 6)) {
    case 0:
        add_def(p, name, "static float %s(float v) { return v > 0.0f ? v : 0.0625f * v; }\n\n", name);
        c->helper_exact = 1;
        c->helper_mag = 1.0;
        break;
    case 1:
        add_def(p, name,
                "static inline float %s(float v)\n{\n    const float k = 0.7978845608f;\n"
                "    return 0.5f * v * (1.0f + tanhf(k * (v + 0.044715f * v * v * v)));\n}\n\n",
                name);
        c->helper_exact = 0;
        c->helper_mag = 1.0;
        break;
    case 2:
        add_def(p, name, "static inline float %s(float v) { return 1.0f / (1.0f + expf(-v)); }\n\n", name);
        c->helper_exact = 0;
        c->helper_mag = 1.0;
        break;
    case 3:
        add_def(p, name, "static float %s(float v)\n{\n    return v / (1.0f + expf(-v));\n}\n\n", name);
        c->helper_exact = 0;
        c->helper_mag = 1.0;
        break;
    case 4:
        add_def(p, name, "static inline float %s(float v) { return fminf(fmaxf(v, -2.0f), 2.0f); }\n\n", name);
        c->helper_exact = 1;
        c->helper_mag = 1.0;
        break;
    default:
        add_def(p, name,
                "/* a helper with a branch and a loop */\nstatic float %s(float v)\n{\n    float acc = 0.0f;\n"
                "    for (int k = 0; k < 3; k++) {\n        if (v > 0.0f)\n            acc += v * 0.25f;\n"
                "        else\n            acc -= v * 0.125f;\n    }\n    return acc;\n}\n\n",
                name);
        c->helper_exact = 0;
        c->helper_mag = 1.0;
        break;
    }
    snprintf(c->helper, sizeof c->helper, "%s", name);
}

/* File-level constants a kernel body may read: a macro, an enum constant, a
 * const table. */
static void make_constants(prog *p, ctx *c, const char *index)
{
    char b[48];
    int which = rnd(p, 3);
    if (which == 0) {
        double v = nice_value(p, 1);
        char up[16];
        snprintf(up, sizeof up, "%s", p->pfx);
        up[0] = 'P';
        sb_printf(&p->head, "#define %s_SCALE %s\n\n", up, fmt_f(b, v));
        ctx_f(c, fabs(v), 1, 0, 0, "%s_SCALE", up);
    } else if (which == 1) {
        long long v = rnd_range(p, 2, 9);
        sb_printf(&p->head, "enum { %s_K = %lld };\n\n", p->pfx, v);
        ctx_i(c, (double)v, "%s_K", p->pfx);
    } else {
        char name[48], vals[8][48];
        snprintf(name, sizeof name, "%s_tab", p->pfx);
        for (int i = 0; i < 8; i++)
            fmt_f(vals[i], nice_value(p, 1) / 4.0);
        add_def(p, name, "static const float %s[8] = {%s, %s, %s, %s, %s, %s, %s, %s};\n\n", name, vals[0], vals[1],
                vals[2], vals[3], vals[4], vals[5], vals[6], vals[7]);
        ctx_f(c, 0.75, 1, 0, 0, "%s_tab[%s & 7]", p->pfx, index);
    }
}

/* ---- outputs and their tolerance ------------------------------------------ */

static void note(param *o, const ex *e)
{
    if (!e->exact) {
        o->inexact = 1;
        o->lvl = imax(o->lvl, e->lvl);
    }
}

/* What a value of `e` assigned to a `et` needs first: half and bfloat16 do
 * not convert into each other directly (clang 19 crashes on it). */
static const char *conv16(int et, const ex *e)
{
    return (et == ET_F16 || et == ET_BF16) && e->is16 && e->is16 != et ? "(float)" : "";
}

/* An assignment of a generated value to an output element. When the element
 * is also read in the loop (an in-out output), what later statements read is
 * now the value stored: its leaf becomes as inexact as the value (merged, so
 * that if/else branches add up), and conditions on it go. */
static void store(prog *p, ctx *c, param *o, const char *lhs, int depth)
{
    ex e = o->et == ET_I32 ? gen_i(p, c, depth) : gen_f(p, c, depth);
    note(o, &e);
    ln(p, "%s = %s%s;", lhs, conv16(o->et, &e), e.s);
    if (e.exact || o->et == ET_I32)
        return;
    for (int k = 0; k < c->nf; k++)
        if (!strcmp(c->f[k].s, lhs)) {
            c->f[k].exact = 0;
            c->f[k].mulroot |= o->et == ET_F32 && e.mulroot;
            c->f[k].lvl = imax(c->f[k].lvl, imax(e.lvl, et_lvl[o->et]));
            c->f[k].mag = fmax(c->f[k].mag, e.mag);
        }
    for (int k = 0; k < c->nc; k++)
        if (strstr(c->cond[k], lhs)) {
            memmove(c->cond[k], c->cond[k + 1], (size_t)(c->nc - k - 1) * sizeof c->cond[0]);
            c->nc--;
            k--;
        }
    for (int k = 0; k < c->ni; k++) /* (int)(y[i] * 64.0f) */
        if (strstr(c->i[k].s, lhs)) {
            memmove(&c->i[k], &c->i[k + 1], (size_t)(c->ni - k - 1) * sizeof c->i[0]);
            c->ni--;
            k--;
        }
}

static int pick_in_type(prog *p) { return PICKW(p, 40, 25, 20, 15); }
static int pick_out_type(prog *p) { return PICKW(p, 45, 25, 18, 12); }
static int pick_float_type(prog *p) { return PICKW(p, 50, 30, 20); }

static int pick_vector(prog *p)
{
    static const int v[] = {0, 0, 0, 1, 2, 4, 4, 8, 8, 16};
    return PICK(p, v);
}

static void pragma_parallel(prog *p, int vec, const char *reduce)
{
    char v[32] = "";
    if (vec)
        snprintf(v, sizeof v, " vector(%d)", vec);
    ln(p, "#pragma tile parallel%s%s%s", v, reduce && reduce[0] ? " " : "", reduce ? reduce : "");
}

/* Locals declared at the top of a loop body: each becomes a leaf of later
 * expressions (unused ones are dropped again by the caller's text check). */
typedef struct {
    char name[16];
    char line[EXMAX + 64];
} local;

static int make_locals(prog *p, ctx *c, local *out, int max)
{
    int n = rnd(p, max + 1);
    for (int k = 0; k < n; k++) {
        int kind = PICKW(p, 60, 20, 20); /* float, half/bfloat16, int */
        fresh(p, out[k].name, sizeof out[k].name, kind == 2 ? "q" : "v");
        if (kind == 2) {
            ex e = gen_i(p, c, rnd_range(p, 1, 2));
            snprintf(out[k].line, sizeof out[k].line, "int %s = %s;", out[k].name, e.s);
            ctx_i(c, e.mag, "%s", out[k].name);
        } else {
            ex e = gen_f(p, c, rnd_range(p, 1, 3));
            int t = kind == 1 ? (chance(p, 60) ? ET_F16 : ET_BF16) : ET_F32;
            snprintf(out[k].line, sizeof out[k].line, "%s %s = %s%s;", et_c[t], out[k].name, conv16(t, &e), e.s);
            int lvl = e.exact ? e.lvl : imax(e.lvl, et_lvl[t]);
            ctx_f(c, e.mag * 1.01, e.exact, t == ET_F32 ? e.mulroot : 0, lvl, "%s", out[k].name);
            if (t != ET_F32)
                ctx_mark16(c, t);
        }
    }
    return n;
}

/* Emits `pre` (statements computing `pre_name`, or NULL), then the locals,
 * each only when `rest` (the text after them) or what is emitted after it
 * uses it. */
static void emit_locals(prog *p, const char *pre, const char *pre_name, const local *l, int n, const char *rest)
{
    int used[8] = {0}, pre_used;
    for (int k = n - 1; k >= 0; k--) {
        used[k] = uses(rest, l[k].name);
        for (int j = k + 1; j < n && !used[k]; j++)
            used[k] = used[j] && uses(l[j].line, l[k].name);
    }
    pre_used = pre && uses(rest, pre_name);
    for (int k = 0; k < n && pre && !pre_used; k++)
        pre_used = used[k] && uses(l[k].line, pre_name);
    if (pre_used)
        sb_printf(&p->body, "%s", pre);
    for (int k = 0; k < n; k++)
        if (used[k])
            ln(p, "%s", l[k].line);
}

/* The body of a parallel loop: `pre` (see emit_locals), locals, then one
 * assignment per output (plain, under an exactly computed condition, or split
 * by if/else). Output writes are given as "name[index]" by the caller. */
static void loop_body(prog *p, ctx *c, param **outs, char (*lhs)[96], int nouts, int allow_partial, const char *pre,
                      const char *pre_name)
{
    local locs[3];
    int nl = make_locals(p, c, locs, 2);
    sb saved = p->body;
    p->body = (sb){0};
    if (allow_partial && c->nc && chance(p, 8)) { /* some iterations write nothing */
        ln(p, "if (%s)", c->cond[rnd(p, c->nc)]);
        ln(p, "    continue;");
    }
    for (int k = 0; k < nouts; k++) {
        int form = allow_partial && c->nc ? PICKW(p, 70, 15, 15) : 0;
        int depth = (int)rnd_range(p, 1, 3);
        if (outs[k]->role == ROLE_OUT && !allow_partial)
            form = 0;
        if (form == 1) {
            ln(p, "if (%s)", c->cond[rnd(p, c->nc)]);
            p->ind++;
            store(p, c, outs[k], lhs[k], depth);
            p->ind--;
        } else if (form == 2) {
            ln(p, "if (%s) {", c->cond[rnd(p, c->nc)]);
            p->ind++;
            store(p, c, outs[k], lhs[k], depth);
            p->ind--;
            ln(p, "} else {");
            p->ind++;
            store(p, c, outs[k], lhs[k], depth);
            p->ind--;
            ln(p, "}");
        } else {
            store(p, c, outs[k], lhs[k], depth);
        }
    }
    sb rest = p->body;
    p->body = saved;
    emit_locals(p, pre, pre_name, locs, nl, sb_str(&rest));
    sb_printf(&p->body, "%s", sb_str(&rest));
    sb_free(&rest);
}

/* ---- family (a): parallel loops at the top level of a kernel ---------------
 * 1-D, 2-D and 3-D nests over the grid, element-wise bodies over inputs read
 * at the loop's element, reversed, strided, offset, broadcast, transposed,
 * gathered or at a clamped neighbour; outputs written at the element, reversed,
 * transposed or at odd positions (the others must stay untouched); a second
 * loop that reads what the first wrote at other elements. */

static void ew_1d(prog *p)
{
    ctx c = {.cap = 16};
    long long n = pick_len(p, 400000);
    int vec = pick_vector(p);
    char b[48];
    add_int(p, "n", n);
    long long off = rnd_range(p, 1, 37);
    int has_off = chance(p, 25);
    if (has_off)
        add_int(p, "off", off);
    int form = PICKW(p, 40, 12, 12, 10, 10, 10, 6, 6, 6);
    long long lo = form == 4 ? rnd_range(p, 0, n - 1) : 0;
    if (form == 4)
        add_int(p, "lo", lo);
    for (int k = rnd(p, 3); k > 0; k--) {
        char name[16];
        double v = nice_value(p, 1);
        fresh(p, name, sizeof name, k == 1 ? "alpha" : "beta");
        add_flt(p, name, v);
        ctx_f(&c, fabs(v), 1, 0, 0, "%s", name);
    }
    if (chance(p, 15)) { /* a double scalar: expressions that use it are computed in double */
        double v = nice_value(p, 1);
        add_dbl(p, "dscale", v);
        ctx_f(&c, fabs(v), 1, 0, 0, "dscale");
        c.f[c.nf - 1].dbl = 1;
    }
    if (chance(p, 30))
        make_helper(p, &c);
    if (chance(p, 30))
        make_constants(p, &c, "i");
    ctx_i(&c, 61, "(i %% 61)");
    ctx_f(&c, 1, 1, 1, 0, "(float)(i %% 16) * 0.0625f");
    ctx_cond(&c, "(i & %d) == 0", (int)rnd_range(p, 1, 7));
    ctx_cond(&c, "i %s n / 2", chance(p, 50) ? "<" : ">=");

    int nin = (int)rnd_range(p, 1, 3), stencil_src = -1;
    for (int k = 0; k < nin; k++) {
        char name[16], text[96];
        int et = pick_in_type(p);
        fresh(p, name, sizeof name, "x");
        int mode = PICKW(p, 40, 10, 10, 8, has_off ? 10 : 0, 10, 8);
        switch (mode) {
        case 0:
            add_vec(p, name, et, ROLE_IN, n, "n");
            snprintf(text, sizeof text, "%s[i]", name);
            if (et != ET_I32)
                stencil_src = p->npar - 1;
            break;
        case 1:
            add_vec(p, name, et, ROLE_IN, n, "n");
            snprintf(text, sizeof text, "%s[n - 1 - i]", name);
            break;
        case 2: {
            long long s = rnd_range(p, 2, 4), o = rnd_range(p, 0, s - 1);
            char ext[32];
            snprintf(ext, sizeof ext, "%lld * n", s);
            add_vec(p, name, et, ROLE_IN, s * n, ext);
            snprintf(text, sizeof text, "%s[%lld * i + %lld]", name, s, o);
        } break;
        case 3:
            add_vec(p, name, et, ROLE_IN, n, "n");
            snprintf(text, sizeof text, "%s[i / 2]", name);
            break;
        case 4:
            add_vec(p, name, et, ROLE_IN, n + off, "n + off");
            snprintf(text, sizeof text, "%s[i + off]", name);
            break;
        case 5:
            add_vec(p, name, et, ROLE_IN, n, "n");
            snprintf(text, sizeof text, "%s[i + 1 < n ? i + 1 : i]", name);
            break;
        default: {
            char idx[16];
            fresh(p, idx, sizeof idx, "g");
            param *g = add_vec(p, idx, ET_I32, ROLE_IN, n, "n");
            g->fill = FILL_INDEX;
            g->fill_arg = n;
            add_vec(p, name, et, ROLE_IN, n, "n");
            snprintf(text, sizeof text, "%s[%s[i]]", name, idx);
        } break;
        }
        ctx_load(p, &c, et, text);
    }

    /* outputs */
    int nout = (int)rnd_range(p, 1, 2);
    int two_loops = form <= 3 && chance(p, 30);
    param *outs[3];
    char lhs[3][96];
    for (int k = 0; k < nout; k++) {
        char name[16];
        int et = pick_out_type(p);
        int mode = PICKW(p, 70, 15, 15);
        int inout = mode == 0 && chance(p, 15);
        fresh(p, name, sizeof name, "y");
        if (mode == 2) {
            outs[k] = add_vec(p, name, et, ROLE_OUT, 2 * n, "2 * n");
            snprintf(lhs[k], sizeof lhs[k], "%s[2 * i + 1]", name);
        } else {
            outs[k] = add_vec(p, name, et, inout ? ROLE_INOUT : ROLE_OUT, n, "n");
            snprintf(lhs[k], sizeof lhs[k], "%s[%s]", name, mode == 1 ? "n - 1 - i" : "i");
            if (inout) {
                snprintf(lhs[k], sizeof lhs[k], "%s[i]", name);
                ctx_load(p, &c, et, lhs[k]);
            }
        }
    }
    param *t = NULL;
    if (two_loops) { /* the first loop's result, read by the second at other elements */
        int et = pick_float_type(p);
        t = add_vec(p, "t", et, ROLE_OUT, n, "n");
    }

    static const char *const heads[] = {"for (int i = 0; i < n; i++)",
                                        "for (int i = 0; i <= n - 1; ++i)",
                                        "for (int i = n - 1; i >= 0; i--)",
                                        "for (int i = 0; i < n; i += 1)",
                                        "for (int i = lo; i < n; i++)",
                                        "for (int i = 0; i < n; i += 2)",
                                        "for (int i = 1; i <= n - 2; i = i + 1)",
                                        "for (int i = n - 1; i >= 0; i -= 2)",
                                        "for (int i = 0; i < nh; i++)"};
    if (form == 8) /* a bound the launcher computes from a declaration of the kernel */
        ln(p, "const int nh = n - n / %d;", (int)rnd_range(p, 2, 5));
    ctx outer = c; /* what the second loop may read: not the first's locals */
    pragma_parallel(p, vec, NULL);
    ln(p, "%s {", heads[form]);
    p->ind++;
    sb saved_body = p->body;
    p->body = (sb){0};
    if (stencil_src >= 0 && chance(p, 20)) { /* a per-thread window of neighbours */
        const char *x = p->par[stencil_src].name;
        int taps = (int)rnd_range(p, 2, 5);
        ln(p, "#pragma tile local");
        ln(p, "float win[%d];", taps);
        ln(p, "for (int k = 0; k < %d; k++) {", taps);
        ln(p, "    int j = i + k - %d;", taps / 2);
        ln(p, "    win[k] = %s[j < 0 ? 0 : j >= n ? n - 1 : j];", x);
        ln(p, "}");
        ln(p, "float acc = 0.0f;");
        ln(p, "for (int k = 0; k < %d; k++)", taps);
        ln(p, "    acc += win[k] * (%s + 0.125f * (float)k);", fmt_f(b, nice_value(p, 1)));
        ctx_f(&c, taps * 4.0, 0, 0, 0, "acc");
    } else if (stencil_src >= 0 && chance(p, 15)) { /* a sequential inner loop */
        const char *x = p->par[stencil_src].name;
        int taps = (int)rnd_range(p, 2, 6);
        ln(p, "float acc = 0.0f;");
        ln(p, "for (int k = 0; k < %d; k++)", taps);
        ln(p, "    acc += %s[(i + k) %% n] * %s;", x, fmt_f(b, nice_value(p, 0) / 4.0));
        ctx_f(&c, taps * 1.5, 0, 0, 0, "acc");
    }
    sb pre = p->body;
    p->body = saved_body;
    if (t) {
        param *all[4];
        char l2[4][96];
        for (int k = 0; k < nout; k++) {
            all[k] = outs[k];
            memcpy(l2[k], lhs[k], sizeof l2[k]);
        }
        all[nout] = t;
        snprintf(l2[nout], sizeof l2[nout], "t[i]");
        /* t is written unconditionally: the second loop reads all of it */
        local locs[3];
        int nl = make_locals(p, &c, locs, 1);
        sb saved = p->body;
        p->body = (sb){0};
        for (int k = 0; k < nout; k++)
            store(p, &c, all[k], l2[k], rnd_range(p, 1, 3));
        store(p, &c, t, "t[i]", rnd_range(p, 1, 3));
        sb rest = p->body;
        p->body = saved;
        emit_locals(p, sb_str(&pre), "acc", locs, nl, sb_str(&rest));
        sb_printf(&p->body, "%s", sb_str(&rest));
        sb_free(&rest);
    } else {
        loop_body(p, &c, outs, lhs, nout, 1, sb_str(&pre), "acc");
    }
    sb_free(&pre);
    p->ind--;
    ln(p, "}");

    if (t) { /* reads t at neighbours other threads wrote */
        ctx c2 = outer;
        char name[16];
        int tl = t->inexact ? imax(t->lvl, et_lvl[t->et]) : 0;
        c2.nf = 0;
        ctx_loadv(p, &c2, t->et, "t[i]", c.cap, !t->inexact, tl);
        ctx_loadv(p, &c2, t->et, "t[i > 0 ? i - 1 : i]", c.cap, !t->inexact, tl);
        ctx_loadv(p, &c2, t->et, "t[n - 1 - i]", c.cap, !t->inexact, tl);
        for (int k = 0; k < outer.nf && k < 4; k++)
            c2.f[c2.nf++] = outer.f[k];
        fresh(p, name, sizeof name, "z");
        param *z = add_vec(p, name, pick_out_type(p), ROLE_OUT, n, "n");
        char zl[96];
        snprintf(zl, sizeof zl, "%s[i]", name);
        pragma_parallel(p, pick_vector(p), NULL);
        ln(p, "for (int i = 0; i < n; i++)");
        p->ind++;
        ex e = z->et == ET_I32 ? gen_i(p, &c2, 2) : gen_f(p, &c2, rnd_range(p, 1, 3));
        note(z, &e);
        ln(p, "%s = %s%s;", zl, conv16(z->et, &e), e.s);
        p->ind--;
    }
    snprintf(p->what, sizeof p->what, "1-D parallel loop%s over n = %lld%s%s", t ? "s" : "", n, vec ? ", vector" : "",
             form >= 4 ? ", partial range" : "");
}

static void ew_2d(prog *p)
{
    ctx c = {.cap = 16};
    long long rows, cols;
    pick_shape2(p, &rows, &cols, 1 << 20);
    int vec = pick_vector(p);
    add_int(p, "rows", rows);
    add_int(p, "cols", cols);
    long long off = rnd_range(p, 1, 9);
    int has_off = chance(p, 20);
    if (has_off)
        add_int(p, "off", off);
    for (int k = rnd(p, 3); k > 0; k--) {
        char name[16];
        double v = nice_value(p, 1);
        fresh(p, name, sizeof name, k == 1 ? "scale" : "shift");
        add_flt(p, name, v);
        ctx_f(&c, fabs(v), 1, 0, 0, "%s", name);
    }
    if (chance(p, 30))
        make_helper(p, &c);
    if (chance(p, 25))
        make_constants(p, &c, "c");
    ctx_i(&c, 30, "(r %% 31)");
    ctx_f(&c, 1, 1, 1, 0, "(float)(c %% 8) * 0.125f");
    ctx_cond(&c, "c < cols / 2");
    ctx_cond(&c, "(r & 1) == 0");

    int nin = (int)rnd_range(p, 1, 3);
    for (int k = 0; k < nin; k++) {
        char name[16], text[96];
        int et = pick_in_type(p);
        fresh(p, name, sizeof name, "x");
        switch (PICKW(p, 35, 15, 12, 12, 8, 8, has_off ? 10 : 0)) {
        case 0:
            add_mat(p, name, et, ROLE_IN, rows * cols, "rows", "cols");
            snprintf(text, sizeof text, "%s[r][c]", name);
            break;
        case 1:
            add_vec(p, name, et, ROLE_IN, cols, "cols");
            snprintf(text, sizeof text, "%s[c]", name);
            break;
        case 2:
            add_vec(p, name, et, ROLE_IN, rows, "rows");
            snprintf(text, sizeof text, "%s[r]", name);
            break;
        case 3:
            add_mat(p, name, et, ROLE_IN, rows * cols, "cols", "rows");
            snprintf(text, sizeof text, "%s[c][r]", name);
            break;
        case 4:
            add_mat(p, name, et, ROLE_IN, rows * (2 * cols + 1), "rows", "2 * cols + 1");
            snprintf(text, sizeof text, "%s[r][2 * c + 1]", name);
            break;
        case 5:
            add_mat(p, name, et, ROLE_IN, rows * cols, "rows", "cols");
            snprintf(text, sizeof text, "%s[rows - 1 - r][cols - 1 - c]", name);
            break;
        default:
            add_mat(p, name, et, ROLE_IN, rows * (cols + off), "rows", "cols + off");
            snprintf(text, sizeof text, "%s[r][c + off]", name);
            break;
        }
        ctx_load(p, &c, et, text);
    }
    int nout = (int)rnd_range(p, 1, 2);
    param *outs[2];
    char lhs[2][96];
    for (int k = 0; k < nout; k++) {
        char name[16];
        int et = pick_out_type(p), mode = PICKW(p, 70, 15, 15);
        fresh(p, name, sizeof name, "y");
        if (mode == 1) {
            outs[k] = add_mat(p, name, et, ROLE_OUT, rows * cols, "cols", "rows");
            snprintf(lhs[k], sizeof lhs[k], "%s[c][r]", name);
        } else {
            outs[k] = add_mat(p, name, et, ROLE_OUT, rows * cols, "rows", "cols");
            snprintf(lhs[k], sizeof lhs[k], "%s[%s][c]", name, mode == 2 ? "rows - 1 - r" : "r");
        }
    }
    pragma_parallel(p, vec, NULL);
    ln(p, "for (int r = 0; r < rows; r++)");
    if (chance(p, 15))
        ln(p, "    for (int c = cols - 1; c >= 0; c--) {");
    else
        ln(p, "    for (int c = 0; c < cols; c++) {");
    p->ind += 2;
    loop_body(p, &c, outs, lhs, nout, 1, NULL, NULL);
    p->ind -= 2;
    ln(p, "    }");
    snprintf(p->what, sizeof p->what, "2-D parallel nest over %lld x %lld%s", rows, cols, vec ? ", vector" : "");
}

static void ew_3d(prog *p)
{
    ctx c = {.cap = 16};
    long long nb = rnd_range(p, 1, 9), nc = rnd_range(p, 1, 70), nw = rnd_range(p, 1, 600);
    int vec = pick_vector(p);
    add_int(p, "nb", nb);
    add_int(p, "nc", nc);
    add_int(p, "nw", nw);
    int et = pick_in_type(p);
    add_arr(p, "x", et, ROLE_IN, nb * nc * nw, "const %s x[nb][nc][nw]", et_c[et]);
    ctx_load(p, &c, et, "x[b][c][w]");
    if (chance(p, 70)) {
        int e2 = pick_float_type(p);
        add_vec(p, "gamma", e2, ROLE_IN, nc, "nc");
        ctx_load(p, &c, e2, "gamma[c]");
    }
    if (chance(p, 50)) {
        int e2 = pick_float_type(p);
        add_vec(p, "beta", e2, ROLE_IN, nw, "nw");
        ctx_load(p, &c, e2, "beta[w]");
    }
    ctx_cond(&c, "(b + c) %% 2 == 0");
    ctx_i(&c, 8, "(w %% 9)");
    int yt = pick_out_type(p);
    param *y = add_arr(p, "y", yt, ROLE_OUT, nb * nc * nw, "%s y[nb][nc][nw]", et_c[yt]);
    char lhs[1][96] = {"y[b][c][w]"};
    pragma_parallel(p, vec, NULL);
    ln(p, "for (int b = 0; b < nb; b++)");
    ln(p, "    for (int c = 0; c < nc; c++)");
    ln(p, "        for (int w = 0; w < nw; w++) {");
    p->ind += 3;
    loop_body(p, &c, &y, lhs, 1, 1, NULL, NULL);
    p->ind -= 3;
    ln(p, "        }");
    snprintf(p->what, sizeof p->what, "3-D parallel nest over %lld x %lld x %lld", nb, nc, nw);
}

static void fam_ew(prog *p)
{
    p->family = "parallel";
    p->threads = pick_threads(p);
    switch (PICKW(p, 55, 38, 7)) {
    case 0:
        ew_1d(p);
        break;
    case 1:
        ew_2d(p);
        break;
    default:
        ew_3d(p);
        break;
    }
}

/* ---- family (b): reductions at the top level of a kernel --------------------
 * One loop with several reduction variables (+, *, max, min on floats; +,
 * max, min, &&, ||, &, |, ^ on integers), each updated in one of the forms
 * pragmas/README.md lists, sometimes from a value before the loop; a second
 * loop reducing into a variable again; scalars computed from the results,
 * later loops that read them, and loops that store them. */

enum { RV_SUM, RV_PROD, RV_MAX, RV_MIN, RV_ISUM, RV_IMAX, RV_IMIN, RV_AND, RV_OR, RV_BAND, RV_BOR, RV_BXOR };
static const char *const rv_op[] = {"+", "*", "max", "min", "+", "max", "min", "&&", "||", "&", "|", "^"};

typedef struct {
    char name[16];
    int kind;
    double mag; /* the result's magnitude, for expressions that read it */
    int exact;
} redvar;

/* A positive term of at most about `m` (sums of positive terms are well
 * conditioned: the order of the additions moves the result by rounding
 * only). */
static ex positive_term(prog *p, const ctx *c)
{
    ex a = gen_f(p, c, (int)rnd_range(p, 0, 1)), r;
    switch (rnd(p, 5)) {
    case 0:
        exs(&r, "%s%s * %s", a.is16 ? "(float)" : "", a.s, a.s), r.mag = a.mag * a.mag;
        break;
    case 1:
        exs(&r, "fabsf(%s)", a.s), r.mag = a.mag;
        break;
    case 2:
        exs(&r, "(%s + %s)", chance(p, 50) ? "2.0f" : "1.5f", a.s), r.mag = a.mag + 2;
        break;
    case 3:
        if (a.mag <= 4) {
            exs(&r, "expf(%s)", a.s), r.mag = exp(a.mag);
            break;
        }
        /* fall through */
    default:
        exs(&r, "sqrtf(fabsf(%s) + 0.5f)", a.s), r.mag = sqrt(a.mag + 1);
        break;
    }
    if (a.mag > 1.5 && r.mag > 4) /* keep a positive term away from 0: (x + 1.5) may be */
        exs(&r, "(fabsf(%s) + 0.5f)", a.s), r.mag = a.mag + 0.5;
    r.exact = 0;
    r.mulroot = 0;
    r.lvl = a.lvl;
    r.is16 = 0;
    return r;
}

/* One update statement of a reduction variable, in a form the reference lists. */
static void reduce_update(prog *p, const ctx *c, const redvar *v, param *stats, double n)
{
    char b[48];
    const char *x = v->name;
    switch (v->kind) {
    case RV_SUM: {
        int neg = chance(p, 20);
        ex e = positive_term(p, c);
        note(stats, &e);
        out_red(stats, n, 16 * 0x1p-24);
        if (neg) { /* s -= e and s = s - e: a sum of negative terms */
            if (chance(p, 50))
                ln(p, "%s -= %s;", x, e.s);
            else
                ln(p, "%s = %s - %s;", x, x, e.s);
        } else {
            switch (rnd(p, 3)) {
            case 0:
                ln(p, "%s += %s;", x, e.s);
                break;
            case 1:
                ln(p, "%s = %s + %s;", x, x, e.s);
                break;
            default:
                ln(p, "%s = %s + %s;", x, e.s, x);
                break;
            }
        }
    } break;
    case RV_PROD: { /* factors near 1: the product stays in range for any n */
        ex a = gen_f(p, c, 1);
        double k = 1.0 / 1024.0;
        while (a.mag * k * n > 8.0 && k > 0x1p-30)
            k /= 2;
        if (!a.exact || a.lvl)
            note(stats, &a);
        out_red(stats, n, 16 * 0x1p-24);
        snprintf(b, sizeof b, "%.9g", k);
        switch (rnd(p, 3)) {
        case 0:
            ln(p, "%s *= 1.0f + %sf * %s;", x, b, a.s);
            break;
        case 1:
            ln(p, "%s = %s * (1.0f + %sf * %s);", x, x, b, a.s);
            break;
        default:
            ln(p, "%s = (1.0f - %sf * %s) * %s;", x, b, a.s, x);
            break;
        }
    } break;
    case RV_MAX:
    case RV_MIN: {
        ex e = gen_f(p, c, (int)rnd_range(p, 0, 2));
        const char *fn = v->kind == RV_MAX ? "fmaxf" : "fminf", *cmp = v->kind == RV_MAX ? ">" : "<";
        note(stats, &e);
        switch (rnd(p, 5)) {
        case 0:
            ln(p, "%s = %s(%s, %s);", x, fn, x, e.s);
            break;
        case 1:
            ln(p, "%s = %s(%s, %s);", x, fn, e.s, x);
            break;
        case 2:
            ln(p, "%s = %s %s %s ? %s : %s;", x, x, cmp, e.s, x, e.s);
            break;
        case 3:
            ln(p, "%s = %s %s %s ? %s : %s;", x, e.s, cmp, x, e.s, x);
            break;
        default:
            ln(p, "%s = %s(%s, %s);", x, v->kind == RV_MAX ? "tile_max" : "tile_min", x, e.s);
            break;
        }
    } break;
    case RV_ISUM:
        if (c->nc && chance(p, 50)) {
            ln(p, "if (%s)", c->cond[rnd(p, c->nc)]);
            ln(p, "    %s++;", x);
        } else {
            ex e = gen_i(p, c, 1);
            while (e.mag > 2000)
                e = gen_i(p, c, 0);
            ln(p, "%s += %s;", x, e.s);
        }
        break;
    case RV_IMAX:
    case RV_IMIN: {
        ex e = gen_i(p, c, (int)rnd_range(p, 0, 2));
        const char *cmp = v->kind == RV_IMAX ? ">" : "<";
        if (chance(p, 50))
            ln(p, "%s = %s(%s, %s);", x, v->kind == RV_IMAX ? "tile_max" : "tile_min", x, e.s);
        else
            ln(p, "%s = %s %s %s ? %s : %s;", x, e.s, cmp, x, e.s, x);
    } break;
    case RV_AND:
    case RV_OR: {
        const char *op = v->kind == RV_AND ? "&&" : "||";
        const char *cond = c->nc ? c->cond[rnd(p, c->nc)] : "1";
        if (chance(p, 50))
            ln(p, "%s = %s %s (%s);", x, x, op, cond);
        else
            ln(p, "%s = (%s) %s %s;", x, cond, op, x);
    } break;
    default: {
        const char *op = v->kind == RV_BAND ? "&" : v->kind == RV_BOR ? "|" : "^";
        ex e = gen_i(p, c, 1);
        char term[EXMAX + 64];
        if (v->kind == RV_BAND)
            snprintf(term, sizeof term, "~(1u << (unsigned)((%s) & 31))", e.s);
        else
            snprintf(term, sizeof term, "(unsigned)(%s)", e.s);
        switch (rnd(p, 3)) {
        case 0:
            ln(p, "%s %s= %s;", x, op, term);
            break;
        case 1:
            ln(p, "%s = %s %s %s;", x, x, op, term);
            break;
        default:
            ln(p, "%s = %s %s %s;", x, term, op, x);
            break;
        }
    } break;
    }
}

static void fam_red(prog *p)
{
    ctx c = {.cap = 8};
    p->family = "reduce";
    p->threads = pick_threads(p);
    int two_d = chance(p, 25);
    long long n, rows = 0, cols = 0;
    if (two_d) {
        pick_shape2(p, &rows, &cols, 1 << 20);
        n = rows * cols;
        add_int(p, "rows", rows);
        add_int(p, "cols", cols);
    } else {
        n = pick_len(p, 1 << 20);
        add_int(p, "n", n);
    }
    const char *idx = two_d ? "r][c" : "i";
    int nin = (int)rnd_range(p, 1, 3);
    for (int k = 0; k < nin; k++) {
        char name[16], text[64];
        int et = k == 0 ? pick_float_type(p) : pick_in_type(p);
        fresh(p, name, sizeof name, "x");
        if (two_d)
            add_mat(p, name, et, ROLE_IN, n, "rows", "cols");
        else
            add_vec(p, name, et, ROLE_IN, n, "n");
        snprintf(text, sizeof text, "%s[%s]", name, idx);
        ctx_load(p, &c, et, text);
    }
    if (two_d)
        ctx_cond(&c, "(r + c) %% 3 == 0");
    else
        ctx_cond(&c, "(i & 3) == 1");
    if (chance(p, 25))
        make_helper(p, &c);

    /* the variables */
    redvar v[5];
    int nv = (int)rnd_range(p, 1, 4);
    param *fstats = NULL, *istats = NULL;
    int nf = 0, ni = 0;
    for (int k = 0; k < nv; k++) {
        int kind = PICKW(p, 30, 6, 14, 10, 8, 5, 5, 4, 4, 4, 4, 4);
        int isf = kind <= RV_MIN;
        v[k].kind = kind;
        v[k].exact = !(kind == RV_SUM || kind == RV_PROD);
        fresh(p, v[k].name, sizeof v[k].name, isf ? (kind == RV_SUM ? "s" : kind == RV_PROD ? "prod" : "m") : "k");
        if (isf)
            nf++;
        else
            ni++;
    }
    if (nf)
        fstats = add_vec(p, "fstats", ET_F32, ROLE_OUT, nf, "");
    if (ni)
        istats = add_vec(p, "istats", ET_I32, ROLE_OUT, ni, "");
    if (fstats) { /* the table's extents are written after the fact */
        snprintf(fstats->decl, sizeof fstats->decl, "float fstats[%d]", nf);
        fstats->offset = 0;
    }
    if (istats) {
        snprintf(istats->decl, sizeof istats->decl, "int istats[%d]", ni);
        istats->offset = 0;
    }
    /* declarations, some starting from a parameter's value */
    char b[48];
    for (int k = 0; k < nv; k++) {
        const char *x = v[k].name;
        switch (v[k].kind) {
        case RV_SUM:
            if (chance(p, 30)) {
                char pn[16];
                double init = nice_value(p, 1);
                fresh(p, pn, sizeof pn, "base");
                add_flt(p, pn, init);
                ln(p, "float %s = %s;", x, pn);
            } else {
                ln(p, "float %s = 0.0f;", x);
            }
            break;
        case RV_PROD:
            ln(p, "float %s = %s;", x, chance(p, 70) ? "1.0f" : fmt_f(b, nice_value(p, 0)));
            break;
        case RV_MAX:
        case RV_MIN:
            if (chance(p, 25)) {
                char pn[16];
                fresh(p, pn, sizeof pn, "floor");
                add_flt(p, pn, nice_value(p, 1) / 4.0);
                ln(p, "float %s = %s;", x, pn);
            } else {
                ln(p, "float %s = %s;", x, v[k].kind == RV_MAX ? "-INFINITY" : "INFINITY");
            }
            break;
        case RV_ISUM:
            ln(p, "int %s = %d;", x, chance(p, 70) ? 0 : (int)rnd_range(p, -50, 50));
            break;
        case RV_IMAX:
            ln(p, "int %s = -1000000;", x);
            break;
        case RV_IMIN:
            ln(p, "int %s = 1000000;", x);
            break;
        case RV_AND:
            ln(p, "int %s = 1;", x);
            break;
        case RV_OR:
            ln(p, "int %s = 0;", x);
            break;
        case RV_BAND:
            ln(p, "unsigned %s = 0xffffffffu;", x);
            break;
        default:
            ln(p, "unsigned %s = %uu;", x, (unsigned)rnd_range(p, 0, 255));
            break;
        }
    }
    /* the reduce clauses: variables grouped by operator, clauses in random order */
    sb clause = {0};
    int done[5] = {0};
    for (int k = 0; k < nv; k++) {
        if (done[k])
            continue;
        sb_printf(&clause, "%sreduce(%s: %s", clause.len ? " " : "", rv_op[v[k].kind], v[k].name);
        done[k] = 1;
        for (int j = k + 1; j < nv; j++)
            if (!done[j] && !strcmp(rv_op[v[j].kind], rv_op[v[k].kind]) && chance(p, 70)) {
                sb_printf(&clause, ", %s", v[j].name);
                done[j] = 1;
            }
        sb_printf(&clause, ")");
    }
    int vec = pick_vector(p);
    pragma_parallel(p, vec, sb_str(&clause));
    sb_free(&clause);
    if (two_d) {
        ln(p, "for (int r = 0; r < rows; r++)");
        ln(p, "    for (int c = 0; c < cols; c++) {");
        p->ind += 2;
    } else {
        ln(p, "%s {", chance(p, 80) ? "for (int i = 0; i < n; i++)" : "for (int i = n - 1; i >= 0; --i)");
        p->ind++;
    }
    int order[5];
    for (int k = 0; k < nv; k++)
        order[k] = k;
    for (int k = nv - 1; k > 0; k--) {
        int j = rnd(p, k + 1), t = order[k];
        order[k] = order[j];
        order[j] = t;
    }
    for (int k = 0; k < nv; k++) {
        redvar *w = &v[order[k]];
        reduce_update(p, &c, w, w->kind <= RV_MIN ? fstats : istats, (double)n);
    }
    if (two_d) {
        p->ind -= 2;
        ln(p, "    }");
    } else {
        p->ind--;
        ln(p, "}");
    }
    /* a second loop into a sum: it starts from the first loop's result */
    for (int k = 0; k < nv && !two_d; k++)
        if (v[k].kind == RV_SUM && chance(p, 25)) {
            int v2 = pick_vector(p);
            char vc[24] = "";
            if (v2)
                snprintf(vc, sizeof vc, " vector(%d)", v2);
            ln(p, "#pragma tile parallel%s reduce(+: %s)", vc, v[k].name);
            ln(p, "for (int i = 0; i < n; i += 2)");
            ex e = positive_term(p, &c);
            ln(p, "    %s += %s;", v[k].name, e.s);
            note(fstats, &e);
            break;
        }
    /* the results: stored, and read by a later loop */
    ctx after = c;
    after.nc = 0;
    after.ni = 0;
    for (int k = 0; k < nv; k++) {
        if (v[k].kind == RV_SUM) {
            char mean[16];
            fresh(p, mean, sizeof mean, "mean");
            ln(p, "float %s = %s / %s;", mean, v[k].name, two_d ? "(float)(rows * cols)" : "(float)n");
            ctx_f(&after, 8, 0, 0, 0, "%s", mean);
        } else if (v[k].kind == RV_MAX || v[k].kind == RV_MIN) {
            ctx_f(&after, 8, 1, 0, 0, "%s", v[k].name);
        } else if (v[k].kind == RV_PROD) {
            ctx_f(&after, 4, 0, 0, 0, "%s", v[k].name);
        }
    }
    if (after.nf > c.nf && chance(p, 60)) {
        int et = pick_out_type(p);
        if (et == ET_I32)
            et = ET_F32;
        param *y = two_d ? add_mat(p, "y", et, ROLE_OUT, n, "rows", "cols") : add_vec(p, "y", et, ROLE_OUT, n, "n");
        char lhs[1][96];
        snprintf(lhs[0], sizeof lhs[0], "y[%s]", idx);
        /* at least one result in the expression */
        ctx only = after;
        only.nf = 0;
        for (int k = c.nf; k < after.nf; k++)
            only.f[only.nf++] = after.f[k];
        ex r = gen_f(p, &only, 1), e = gen_f(p, &after, (int)rnd_range(p, 1, 2));
        y->inexact = 1; /* results read from device memory after a reduction */
        note(y, &r);
        note(y, &e);
        y->red = fstats ? fstats->red : 0;
        pragma_parallel(p, pick_vector(p), NULL);
        if (two_d) {
            ln(p, "for (int r = 0; r < rows; r++)");
            ln(p, "    for (int c = 0; c < cols; c++)");
            ln(p, "        y[r][c] = %s + %s;", r.s, e.s);
        } else {
            ln(p, "for (int i = 0; i < n; i++)");
            ln(p, "    y[i] = %s + %s;", r.s, e.s);
        }
    }
    if (fstats) {
        sb expr = {0};
        int j = 0;
        for (int k = 0; k < nv; k++)
            if (v[k].kind <= RV_MIN) {
                if (j < nf - 1)
                    sb_printf(&expr, "j == %d ? %s : ", j, v[k].name);
                else
                    sb_printf(&expr, "%s", v[k].name);
                j++;
            }
        ln(p, "#pragma tile parallel");
        ln(p, "for (int j = 0; j < %d; j++)", nf);
        ln(p, "    fstats[j] = %s;", sb_str(&expr));
        sb_free(&expr);
    }
    if (istats) {
        sb expr = {0};
        int j = 0;
        for (int k = 0; k < nv; k++)
            if (v[k].kind > RV_MIN) {
                if (j < ni - 1)
                    sb_printf(&expr, "j == %d ? ", j);
                if (v[k].kind >= RV_BAND)
                    sb_printf(&expr, "(int)(%s & 0x7fffffffu)", v[k].name);
                else
                    sb_printf(&expr, "%s", v[k].name);
                if (j < ni - 1)
                    sb_printf(&expr, " : ");
                j++;
            }
        ln(p, "#pragma tile parallel");
        ln(p, "for (int j = 0; j < %d; j++)", ni);
        ln(p, "    istats[j] = %s;", sb_str(&expr));
        sb_free(&expr);
    }
    snprintf(p->what, sizeof p->what, "%d reduction variable%s over %s%lld elements%s", nv, nv > 1 ? "s" : "",
             two_d ? "a 2-D nest of " : "", n, vec ? ", vector" : "");
}

/* ---- family (c): grid blocks with loops over the block's threads -------------
 * A grid over rows (or batches of rows, or batches of 2-D slices, or chunks of
 * a vector); in the block, a random sequence of steps: parallel loops with
 * reductions into block variables, scalar statements every thread runs alike
 * (some under an if/else on an exactly known value), stores of scalars to
 * global memory (once per block), parallel loops writing outputs, a 1-D shared
 * tile written by one loop and read by another, an output written and read
 * back reversed, and sequential loops around parallel loops (an online
 * softmax over chunks of the row). */

typedef struct {
    prog *p;
    int variant;       /* 0 rows, 1 batches of rows, 2 batches of 2-D slices, 3 chunks of a vector */
    ctx row;           /* leaves of the element a loop visits (and block values) */
    ctx blk;           /* block-uniform leaves */
    const char *len;   /* the row's length as C ("cols", "(end - i0)") */
    double lenv;       /* its largest value */
    int nest;          /* the block loops are a 2-D nest */
    char elem_idx[64]; /* the subscripts of the element visited: "[r][c]" */
    char stat_idx[32]; /* of a per-block scalar output: "[r]" */
    long long stat_count;
    long long elem_count;
    char stat_ext[2][64]; /* extents of a stat output (1 or 2) */
    int nstat_ext;
    char elem_ext[3][32];
    int nelem_ext;
    int nouts;
    int shared_et; /* the 1-D shared tile: element type, or -1 */
    /* reduction results, stored at the end of the block if nothing reads them */
    struct {
        char name[16];
        char marker[16]; /* a line after the loop that computes it, removed at the end */
        int isint, exact, lvl, sum;
    } res[16];
    int nres;
    long long shared_cap;
} grid;

static void row_loop_open(grid *g, int vec, const char *reduce)
{
    prog *p = g->p;
    pragma_parallel(p, vec, reduce);
    switch (g->variant) {
    case 0:
    case 1:
        ln(p, "for (int c = 0; c < cols; c++) {");
        break;
    case 2:
        ln(p, "for (int i = 0; i < m; i++)");
        ln(p, "    for (int j = 0; j < w; j++) {");
        p->ind++;
        break;
    default:
        ln(p, "for (int i = i0; i < end; i++) {");
        break;
    }
    p->ind++;
}

static void row_loop_close(grid *g)
{
    prog *p = g->p;
    p->ind--;
    if (g->variant == 2) {
        p->ind--;
        ln(p, "    }");
    } else {
        ln(p, "}");
    }
}

/* A new output shaped like the input rows, or one value per block. */
static param *grid_out(grid *g, int per_block, int et)
{
    prog *p = g->p;
    char name[16];
    fresh(p, name, sizeof name, per_block ? "st" : "y");
    const char *cq = "";
    param *q;
    if (per_block) {
        if (g->nstat_ext == 1)
            q = add_vec(p, name, et, ROLE_OUT, g->stat_count, g->stat_ext[0]);
        else
            q = add_arr(p, name, et, ROLE_OUT, g->stat_count, "%s%s %s[%s][%s]", cq, et_c[et], name, g->stat_ext[0],
                        g->stat_ext[1]);
    } else if (g->nelem_ext == 1) {
        q = add_vec(p, name, et, ROLE_OUT, g->elem_count, g->elem_ext[0]);
    } else if (g->nelem_ext == 2) {
        q = add_mat(p, name, et, ROLE_OUT, g->elem_count, g->elem_ext[0], g->elem_ext[1]);
    } else {
        q = add_arr(p, name, et, ROLE_OUT, g->elem_count, "%s %s[%s][%s][%s]", et_c[et], name, g->elem_ext[0],
                    g->elem_ext[1], g->elem_ext[2]);
    }
    g->nouts++;
    return q;
}

/* Both contexts together: an element's leaves and the block's values. */
static ctx both(const grid *g)
{
    ctx c = g->row;
    for (int k = 0; k < g->blk.nf && c.nf < (int)(sizeof c.f / sizeof c.f[0]); k++)
        c.f[c.nf++] = g->blk.f[k];
    for (int k = 0; k < g->blk.ni && c.ni < (int)(sizeof c.i / sizeof c.i[0]); k++)
        c.i[c.ni++] = g->blk.i[k];
    for (int k = 0; k < g->blk.nc && c.nc < (int)(sizeof c.cond / sizeof c.cond[0]); k++)
        memcpy(c.cond[c.nc++], g->blk.cond[k], sizeof c.cond[0]);
    return c;
}

/* Parallel loops with reductions into new block variables. */
static void step_reduce(grid *g)
{
    prog *p = g->p;
    ctx c = both(g);
    int nv = (int)rnd_range(p, 1, 3);
    char names[3][16];
    int kinds[3];
    double lo[3], mag[3];
    int exact[3], lvl[3];
    ex terms[3];
    sb clause = {0};
    for (int k = 0; k < nv; k++) {
        /* sums of mixed signs only where a row's result is one of many */
        int kind = PICKW(p, 30, g->stat_count >= 16 ? 10 : 0, 20, 12, 8);
        kinds[k] = kind;
        fresh(p, names[k], sizeof names[k], kind <= 1 ? "s" : kind == 4 ? "cnt" : "m");
        lo[k] = 0;
        exact[k] = 1;
        lvl[k] = 0;
        if (kind == 0) {
            ex a = gen_f(p, &g->row, (int)rnd_range(p, 0, 1));
            switch (rnd(p, 4)) {
            case 0:
                exs(&terms[k], "%s%s * %s", a.is16 ? "(float)" : "", a.s, a.s), mag[k] = a.mag * a.mag;
                break;
            case 1:
                if (a.mag <= 4) {
                    exs(&terms[k], "expf(%s)", a.s), mag[k] = exp(a.mag), lo[k] = exp(-a.mag);
                    break;
                }
                /* fall through */
            case 2:
                exs(&terms[k], "(fabsf(%s) + 0.5f)", a.s), mag[k] = a.mag + 0.5, lo[k] = 0.5;
                break;
            default:
                exs(&terms[k], "fabsf(%s)", a.s), mag[k] = a.mag;
                break;
            }
            /* a softmax's denominator: the exponentials of the elements less their maximum */
            for (int j = 0; j < g->blk.nf; j++)
                if (!strncmp(g->blk.f[j].s, "m", 1) && g->blk.f[j].exact && g->row.nf && chance(p, 50)) {
                    const leaf *x = &g->row.f[0];
                    if (strstr(g->blk.f[j].s, "-") || x->mag > 1.0)
                        break;
                    exs(&terms[k], "expf(%s - %s)", x->s, g->blk.f[j].s);
                    mag[k] = exp(2.0);
                    lo[k] = 0;
                    break;
                }
            exact[k] = 0;
            lvl[k] = a.lvl;
        } else if (kind == 1) {
            ex a = gen_f(p, &c, (int)rnd_range(p, 1, 2));
            terms[k] = a;
            mag[k] = a.mag;
            exact[k] = 0;
            lvl[k] = a.lvl;
        } else if (kind <= 3) {
            terms[k] = gen_f(p, &c, (int)rnd_range(p, 0, 2));
            mag[k] = terms[k].mag;
            exact[k] = terms[k].exact;
            lvl[k] = terms[k].lvl;
        } else {
            mag[k] = g->lenv;
        }
        static const char *const ops[] = {"+", "+", "max", "min", "+"};
        if (kind == 4)
            ln(p, "int %s = 0;", names[k]);
        else
            ln(p, "float %s = %s;", names[k], kind <= 1 ? "0.0f" : kind == 2 ? "-INFINITY" : "INFINITY");
        sb_printf(&clause, "%sreduce(%s: %s)", clause.len ? " " : "", ops[kind], names[k]);
    }
    row_loop_open(g, pick_vector(p), sb_str(&clause));
    sb_free(&clause);
    for (int k = 0; k < nv; k++) {
        const char *x = names[k];
        switch (kinds[k]) {
        case 0:
        case 1:
            if (chance(p, 60))
                ln(p, "%s += %s;", x, terms[k].s);
            else
                ln(p, "%s = %s + %s;", x, x, terms[k].s);
            break;
        case 2:
        case 3:
            if (chance(p, 60))
                ln(p, "%s = %s(%s, %s);", x, kinds[k] == 2 ? "fmaxf" : "fminf", x, terms[k].s);
            else
                ln(p, "%s = %s(%s, %s);", x, kinds[k] == 2 ? "tile_max" : "tile_min", x, terms[k].s);
            break;
        default:
            if (c.nc) {
                ln(p, "if (%s)", c.cond[rnd(p, c.nc)]);
                ln(p, "    %s++;", x);
            } else {
                ln(p, "%s++;", x);
            }
            break;
        }
    }
    row_loop_close(g);
    for (int k = 0; k < nv && g->nres < 16; k++) {
        snprintf(g->res[g->nres].name, sizeof g->res[0].name, "%s", names[k]);
        snprintf(g->res[g->nres].marker, sizeof g->res[0].marker, "\001%d\001", g->nres);
        sb_printf(&p->body, "%s\n", g->res[g->nres].marker);
        g->res[g->nres].isint = kinds[k] == 4;
        g->res[g->nres].exact = exact[k];
        g->res[g->nres].lvl = lvl[k];
        g->res[g->nres].sum = kinds[k] <= 1;
        g->nres++;
    }
    /* what later steps may read */
    for (int k = 0; k < nv; k++) {
        const char *x = names[k];
        if (kinds[k] == 0 || kinds[k] == 1) {
            char d[16];
            fresh(p, d, sizeof d, "mean");
            ln(p, "float %s = %s / %s;", d, x, g->len);
            ctx_f(&g->blk, mag[k], 0, 0, lvl[k], "%s", d);
            if (kinds[k] == 0 && lo[k] >= 0.04) {
                char inv[16];
                fresh(p, inv, sizeof inv, "inv");
                ln(p, "float %s = 1.0f / sqrtf(%s + 1e-5f);", inv, d);
                ctx_f(&g->blk, 1.0 / sqrt(lo[k]), 0, 0, lvl[k], "%s", inv);
            }
        } else if (kinds[k] <= 3) {
            ctx_f(&g->blk, mag[k], exact[k], 0, lvl[k], "%s", x);
        } else {
            ctx_i(&g->blk, g->lenv, "%s", x);
            ctx_cond(&g->blk, "%s > %s / 2", x, g->len);
        }
    }
    /* a store of one of them, once per block */
    if (chance(p, 60)) {
        int k = rnd(p, nv);
        int et = kinds[k] == 4 ? ET_I32 : ET_F32;
        param *st = grid_out(g, 1, et);
        if (kinds[k] <= 1)
            out_red(st, g->lenv, 16 * 0x1p-24);
        if (!exact[k]) {
            st->inexact = 1;
            st->lvl = imax(st->lvl, lvl[k]);
        }
        ln(p, "%s%s = %s;", st->name, g->stat_idx, names[k]);
    }
}

static void note_block_red(const grid *g, param *o)
{
    for (int k = 0; k < g->blk.nf; k++)
        if (!g->blk.f[k].exact)
            out_red(o, g->lenv, 16 * 0x1p-24);
}

/* Scalars every thread of the block computes alike. */
static void step_scalar(grid *g)
{
    prog *p = g->p;
    char v[16];
    fresh(p, v, sizeof v, "v");
    ex e = gen_f(p, &g->blk, (int)rnd_range(p, 1, 2));
    int branched = 0;
    if (g->blk.nc && chance(p, 30)) {
        ex e2 = gen_f(p, &g->blk, 1);
        ln(p, "float %s;", v);
        ln(p, "if (%s)", g->blk.cond[rnd(p, g->blk.nc)]);
        ln(p, "    %s = %s;", v, e.s);
        ln(p, "else");
        ln(p, "    %s = %s;", v, e2.s);
        e.mag = fmax(e.mag, e2.mag);
        e.exact = e.exact && e2.exact;
        e.lvl = imax(e.lvl, e2.lvl);
        e.mulroot = 1;
        branched = 1; /* stored below: a variable assigned by if/else is always read */
    } else {
        ln(p, "float %s = %s;", v, e.s);
    }
    ctx_f(&g->blk, e.mag, e.exact, e.mulroot, e.lvl, "%s", v);
    if (branched || chance(p, 40)) {
        param *st = grid_out(g, 1, chance(p, 70) ? ET_F32 : ET_F16);
        note(st, &e);
        note_block_red(g, st);
        ln(p, "%s%s = %s;", st->name, g->stat_idx, v);
    }
}

/* A parallel loop writing an output element by element. */
static void step_write(grid *g)
{
    prog *p = g->p;
    ctx c = both(g);
    param *y = grid_out(g, 0, pick_out_type(p));
    char lhs[1][96];
    snprintf(lhs[0], sizeof lhs[0], "%s%s", y->name, g->elem_idx);
    note_block_red(g, y);
    row_loop_open(g, pick_vector(p), NULL);
    loop_body(p, &c, &y, lhs, 1, 1, NULL, NULL);
    row_loop_close(g);
}

/* The block's 1-D shared tile: written by one loop, read (reversed) by the next. */
static void step_shared(grid *g)
{
    prog *p = g->p;
    ctx c = both(g);
    char nn[16];
    fresh(p, nn, sizeof nn, "nb");
    ln(p, "int %s = tile_min(cols, %lld);", nn, g->shared_cap);
    ex e = gen_f(p, &c, (int)rnd_range(p, 1, 2));
    pragma_parallel(p, pick_vector(p), NULL);
    ln(p, "for (int c = 0; c < %s; c++)", nn);
    ln(p, "    buf[c] = %s%s;", conv16(g->shared_et, &e), e.s);
    int lvl = e.exact ? 0 : imax(e.lvl, et_lvl[g->shared_et]);
    ctx r = c;
    char t[64];
    snprintf(t, sizeof t, "buf[%s - 1 - c]", nn);
    ctx_loadv(p, &r, g->shared_et, t, e.mag, e.exact, lvl);
    snprintf(t, sizeof t, "buf[c]");
    ctx_loadv(p, &r, g->shared_et, t, e.mag, e.exact, lvl);
    param *y = grid_out(g, 0, pick_out_type(p));
    note_block_red(g, y);
    char lhs[1][96];
    snprintf(lhs[0], sizeof lhs[0], "%s%s", y->name, g->elem_idx);
    pragma_parallel(p, pick_vector(p), NULL);
    ln(p, "for (int c = 0; c < %s; c++) {", nn);
    p->ind++;
    loop_body(p, &r, &y, lhs, 1, 0, NULL, NULL);
    p->ind--;
    ln(p, "}");
}

/* An output written by one loop and read back, reversed, by the next (and by
 * a scalar statement): other threads' writes. */
static void step_write_read(grid *g)
{
    prog *p = g->p;
    ctx c = both(g);
    param *t = grid_out(g, 0, ET_F32);
    char lhs[1][96];
    snprintf(lhs[0], sizeof lhs[0], "%s%s", t->name, g->elem_idx);
    note_block_red(g, t);
    ctx outer = c; /* without the first loop's locals */
    row_loop_open(g, pick_vector(p), NULL);
    loop_body(p, &c, &t, lhs, 1, 0, NULL, NULL);
    row_loop_close(g);
    c = outer;
    char first[16], text[96];
    fresh(p, first, sizeof first, "first");
    const char *rowsel = g->variant == 1 ? "[b][r]" : "[r]";
    ln(p, "float %s = %s%s[0];", first, t->name, rowsel);
    ctx r = c;
    double mag = c.cap;
    int tl = t->inexact ? imax(t->lvl, 0) : 0;
    snprintf(text, sizeof text, "%s%s[cols - 1 - c]", t->name, rowsel);
    ctx_loadv(p, &r, ET_F32, text, mag, !t->inexact, tl);
    ctx_f(&r, mag, !t->inexact, 0, tl, "%s", first);
    ctx_f(&g->blk, mag, !t->inexact, 0, tl, "%s", first);
    param *y = grid_out(g, 0, pick_out_type(p));
    y->red = t->red;
    snprintf(lhs[0], sizeof lhs[0], "%s%s", y->name, g->elem_idx);
    row_loop_open(g, pick_vector(p), NULL);
    loop_body(p, &r, &y, lhs, 1, 1, NULL, NULL);
    row_loop_close(g);
}

/* A sequential loop over chunks of the row around parallel loops: the online
 * softmax (a running maximum, and a sum rescaled when it grows). */
static void step_chunks(grid *g)
{
    prog *p = g->p;
    static const int chs[] = {32, 64, 100, 128, 256, 500, 1024};
    int ch = PICK(p, chs);
    char m[16], s[16];
    fresh(p, m, sizeof m, "m");
    fresh(p, s, sizeof s, "s");
    const leaf *x = &g->row.f[rnd(p, g->row.nf)];
    char xs[128];
    snprintf(xs, sizeof xs, "%s", x->s);
    int sum_too = chance(p, 70);
    ln(p, "float %s = -INFINITY%s;", m, "");
    if (sum_too)
        ln(p, "float %s = 0.0f;", s);
    ln(p, "for (int c0 = 0; c0 < cols; c0 += %d) {", ch);
    p->ind++;
    ln(p, "int end = tile_min(c0 + %d, cols);", ch);
    ln(p, "float mc = -INFINITY;");
    ln(p, "#pragma tile parallel%s reduce(max: mc)", chance(p, 30) ? " vector(4)" : "");
    ln(p, "for (int c = c0; c < end; c++)");
    ln(p, "    mc = fmaxf(mc, %s);", xs);
    if (sum_too) {
        ln(p, "float mn = fmaxf(%s, mc);", m);
        ln(p, "float sc = 0.0f;");
        ln(p, "#pragma tile parallel reduce(+: sc)");
        ln(p, "for (int c = c0; c < end; c++)");
        ln(p, "    sc += expf(%s - mn);", xs);
        ln(p, "%s = %s * expf(%s - mn) + sc;", s, s, m);
        ln(p, "%s = mn;", m);
    } else {
        ln(p, "%s = fmaxf(%s, mc);", m, m);
    }
    p->ind--;
    ln(p, "}");
    if (g->nres < 16) {
        snprintf(g->res[g->nres].name, sizeof g->res[0].name, "%s", m);
        snprintf(g->res[g->nres].marker, sizeof g->res[0].marker, "\001%d\001", g->nres);
        sb_printf(&p->body, "%s\n", g->res[g->nres].marker);
        g->res[g->nres].exact = x->exact;
        g->res[g->nres].lvl = x->lvl;
        g->nres++;
    }
    ctx_f(&g->blk, x->mag, x->exact, 0, x->lvl, "%s", m);
    if (sum_too) {
        /* y = exp(x - m) / s: a softmax; s >= 1 */
        param *y = grid_out(g, 0, pick_float_type(p));
        out_red(y, g->lenv, 16 * 0x1p-24);
        char lhs[96];
        snprintf(lhs, sizeof lhs, "%s%s", y->name, g->elem_idx);
        pragma_parallel(p, pick_vector(p), NULL);
        ln(p, "for (int c = 0; c < cols; c++)");
        ln(p, "    %s = expf(%s - %s) / %s;", lhs, xs, m, s);
        ctx_f(&g->blk, 1.0, 0, 0, x->lvl, "(1.0f / %s)", s);
        if (chance(p, 50)) {
            param *st = grid_out(g, 1, ET_F32);
            out_red(st, g->lenv, 16 * 0x1p-24);
            ln(p, "%s%s = %s + logf(%s);", st->name, g->stat_idx, m, s);
        }
    }
}

static void fam_grid(prog *p)
{
    grid g = {.p = p, .shared_et = -1};
    g.row.cap = g.blk.cap = 12;
    p->family = "grid";
    p->threads = pick_threads(p);
    g.variant = PICKW(p, 45, 20, 15, 20);
    long long rows = 1, cols = 1, nb = 1, n = 1, L = 1;
    int et = pick_in_type(p);
    switch (g.variant) {
    case 0:
    case 1:
        if (g.variant == 1) {
            nb = rnd_range(p, 1, 6);
            add_int(p, "nb", nb);
        }
        pick_shape2(p, &rows, &cols, g.variant == 1 ? 1 << 18 : 1 << 20);
        if (chance(p, 25))
            cols = PICK(p, ((const long long[]){1, 31, 32, 33, 64, 127, 128, 256, 1000, 1024, 2048, 4097}));
        if (rows * cols * nb > (1 << 21))
            rows = 1 + (1 << 21) / (cols * nb);
        add_int(p, "rows", rows);
        add_int(p, "cols", cols);
        g.len = "cols";
        g.lenv = (double)cols;
        if (g.variant == 0) {
            add_mat(p, "x", et, ROLE_IN, rows * cols, "rows", "cols");
            ctx_load(p, &g.row, et, "x[r][c]");
            snprintf(g.elem_idx, sizeof g.elem_idx, "[r][c]");
            snprintf(g.stat_idx, sizeof g.stat_idx, "[r]");
            g.stat_count = rows;
            snprintf(g.stat_ext[0], sizeof g.stat_ext[0], "rows");
            g.nstat_ext = 1;
            g.elem_count = rows * cols;
            snprintf(g.elem_ext[0], 32, "rows");
            snprintf(g.elem_ext[1], 32, "cols");
            g.nelem_ext = 2;
        } else {
            add_arr(p, "x", et, ROLE_IN, nb * rows * cols, "const %s x[nb][rows][cols]", et_c[et]);
            ctx_load(p, &g.row, et, "x[b][r][c]");
            snprintf(g.elem_idx, sizeof g.elem_idx, "[b][r][c]");
            snprintf(g.stat_idx, sizeof g.stat_idx, "[b][r]");
            g.stat_count = nb * rows;
            snprintf(g.stat_ext[0], 32, "nb");
            snprintf(g.stat_ext[1], 32, "rows");
            g.nstat_ext = 2;
            g.elem_count = nb * rows * cols;
            snprintf(g.elem_ext[0], 32, "nb");
            snprintf(g.elem_ext[1], 32, "rows");
            snprintf(g.elem_ext[2], 32, "cols");
            g.nelem_ext = 3;
        }
        if (chance(p, 50)) {
            int e2 = pick_float_type(p);
            add_vec(p, "wt", e2, ROLE_IN, cols, "cols");
            ctx_load(p, &g.row, e2, "wt[c]");
        }
        ctx_cond(&g.row, "c %% 2 == 0");
        ctx_f(&g.row, 1, 1, 1, 0, "(float)(c %% 32) * 0.03125f");
        break;
    case 2: {
        long long m, w;
        nb = rnd_range(p, 1, 40);
        pick_shape2(p, &m, &w, 1 << 16);
        add_int(p, "nb", nb);
        add_int(p, "m", m);
        add_int(p, "w", w);
        add_arr(p, "x", et, ROLE_IN, nb * m * w, "const %s x[nb][m][w]", et_c[et]);
        ctx_load(p, &g.row, et, "x[b][i][j]");
        ctx_cond(&g.row, "(i + j) %% 2 == 0");
        g.len = "(float)(m * w)";
        g.lenv = (double)(m * w);
        g.nest = 1;
        snprintf(g.elem_idx, sizeof g.elem_idx, "[b][i][j]");
        snprintf(g.stat_idx, sizeof g.stat_idx, "[b]");
        g.stat_count = nb;
        snprintf(g.stat_ext[0], 32, "nb");
        g.nstat_ext = 1;
        g.elem_count = nb * m * w;
        snprintf(g.elem_ext[0], 32, "nb");
        snprintf(g.elem_ext[1], 32, "m");
        snprintf(g.elem_ext[2], 32, "w");
        g.nelem_ext = 3;
        rows = m;
        cols = w;
    } break;
    default: {
        static const long long ls[] = {32, 100, 256, 512, 777, 1024, 4096};
        n = pick_len(p, 1 << 20);
        L = PICK(p, ls);
        add_int(p, "n", n);
        sb_printf(&p->head, "enum { %s_L = %lld };\n\n", p->pfx, L);
        add_vec(p, "x", et, ROLE_IN, n, "n");
        ctx_load(p, &g.row, et, "x[i]");
        ctx_cond(&g.row, "(i & 1) == 0");
        g.len = "(float)(end - i0)";
        g.lenv = (double)(L < n ? L : n);
        snprintf(g.elem_idx, sizeof g.elem_idx, "[i]");
        snprintf(g.stat_idx, sizeof g.stat_idx, "[i0 / %s_L]", p->pfx);
        g.stat_count = (n + L - 1) / L;
        snprintf(g.stat_ext[0], sizeof g.stat_ext[0], "(n + %s_L - 1) / %s_L", p->pfx, p->pfx);
        g.nstat_ext = 1;
        g.elem_count = n;
        snprintf(g.elem_ext[0], 32, "n");
        g.nelem_ext = 1;
    } break;
    }
    for (int k = rnd(p, 3); k > 0; k--) {
        char name[16];
        double v = nice_value(p, 1);
        fresh(p, name, sizeof name, "alpha");
        add_flt(p, name, v);
        ctx_f(&g.blk, fabs(v), 1, 0, 0, "%s", name);
    }
    if (chance(p, 25)) {
        make_helper(p, &g.row);
        snprintf(g.blk.helper, sizeof g.blk.helper, "%s", g.row.helper);
        g.blk.helper_exact = g.row.helper_exact;
        g.blk.helper_mag = g.row.helper_mag;
    }

    /* a declaration of the kernel, read by every block */
    if (g.variant <= 1 && chance(p, 30)) {
        ln(p, "const float inv_cols = 1.0f / (float)cols;");
        ctx_f(&g.blk, 1, 1, 0, 0, "inv_cols");
    }
    int swz = g.variant == 1 && chance(p, 25);
    if (swz)
        ln(p, "#pragma tile grid swizzle(%d)", (int)rnd_range(p, 1, 8));
    else
        ln(p, "#pragma tile grid");
    switch (g.variant) {
    case 0:
        ln(p, "for (int r = 0; r < rows; r++) {");
        break;
    case 1:
        ln(p, "for (int b = 0; b < nb; b++)");
        ln(p, "    for (int r = 0; r < rows; r++) {");
        p->ind++;
        break;
    case 2:
        ln(p, "for (int b = 0; b < nb; b++) {");
        break;
    default:
        ln(p, "for (int i0 = 0; i0 < n; i0 += %s_L) {", p->pfx);
        break;
    }
    p->ind++;
    int want_shared = g.variant <= 1 && chance(p, 30);
    if (want_shared) {
        static const long long caps[] = {64, 128, 256, 500, 1024, 2048};
        g.shared_et = pick_float_type(p);
        g.shared_cap = PICK(p, caps);
        ln(p, "#pragma tile shared");
        ln(p, "%s buf[%lld];", et_c[g.shared_et], g.shared_cap);
    }
    if (g.variant == 3)
        ln(p, "int end = tile_min(i0 + %s_L, n);", p->pfx);

    /* the steps */
    int nsteps = (int)rnd_range(p, 2, 5), did_shared = 0;
    for (int s = 0; s < nsteps; s++) {
        int kind = s == 0 ? (g.variant <= 1 && chance(p, 25) ? 5 : 0)
                          : PICKW(p, 30, 20, 30, want_shared && !did_shared ? 40 : 0, g.variant <= 1 ? 12 : 0,
                                  g.variant <= 1 ? 8 : 0);
        switch (kind) {
        case 0:
            step_reduce(&g);
            break;
        case 1:
            step_scalar(&g);
            break;
        case 2:
            step_write(&g);
            break;
        case 3:
            step_shared(&g);
            did_shared = 1;
            break;
        case 4:
            step_write_read(&g);
            break;
        default:
            step_chunks(&g);
            break;
        }
    }
    if (want_shared && !did_shared)
        step_shared(&g);
    if (g.nouts == 0)
        step_write(&g);
    /* every reduction's result is read: stored when nothing else reads it */
    prune_dead(p);
    for (int k = 0; k < g.nres; k++)
        if (!uses(strstr(p->body.p, g.res[k].marker), g.res[k].name)) {
            param *st = grid_out(&g, 1, g.res[k].isint ? ET_I32 : ET_F32);
            if (g.res[k].sum)
                out_red(st, g.lenv, 16 * 0x1p-24);
            if (!g.res[k].exact)
                st->inexact = 1, st->lvl = imax(st->lvl, g.res[k].lvl);
            ln(p, "%s%s = %s;", st->name, g.stat_idx, g.res[k].name);
        }
    for (int k = 0; k < g.nres; k++) { /* the markers go */
        char *m = strstr(p->body.p, g.res[k].marker);
        size_t l = strlen(g.res[k].marker) + 1;
        memmove(m, m + l, strlen(m + l) + 1);
        p->body.len -= l;
    }
    p->ind--;
    if (g.variant == 1) {
        p->ind--;
        ln(p, "    }");
    } else {
        ln(p, "}");
    }
    snprintf(p->what, sizeof p->what, "grid over %s (%lld x %lld%s), %d outputs",
             g.variant == 0   ? "rows"
             : g.variant == 1 ? "batches of rows"
             : g.variant == 2 ? "batches of 2-D slices"
                              : "chunks of a vector",
             g.variant == 3 ? n : rows, g.variant == 3 ? L : cols, want_shared ? ", a shared row" : "", g.nouts);
}

/* ---- family (e): matrix products -----------------------------------------------
 * tile_gemm and its transposed forms on half or bfloat16 tiles into a float
 * accumulator, in a pipelined k loop of 1 to 6 stages; tile sizes the
 * language accepts (rows of shared tiles a multiple of 64 bytes, warps of 16 x
 * 16 pieces, the registers and shared memory of a block); the product also
 * written as a `#pragma tile gemm` loop nest or a call of the file's own
 * micro-kernel; C cleared, filled or loaded before the loop; epilogues (scale,
 * bias, activation, residual, a second fragment) as parallel loops over the
 * accumulator; row reductions of the accumulator (a softmax); a second
 * product from registers; batched 3-D grids; ragged, tiny and single-block
 * shapes. */

/* Can `warps` warps share an R x C fragment in pieces that are multiples of
 * 16 x 16 (policy 0: any split, 1: stacked along the rows, 2: along the
 * columns)? */
static int frag_ok(int R, int C, int warps, int policy)
{
    for (int wr = 1; wr <= warps; wr++) {
        if (warps % wr)
            continue;
        int wc = warps / wr;
        if ((policy == 1 && wc != 1) || (policy == 2 && wr != 1))
            continue;
        if (R % (16 * wr) == 0 && C % (16 * wc) == 0)
            return 1;
    }
    return 0;
}

/* A 2-D half/bfloat16 shared tile's rows are a multiple of 64 bytes. */
static int smem_row_ok(int cols) { return cols % 32 == 0; }

static long long pick_dim(prog *p, int tile, long long maxv)
{
    switch (PICKW(p, 20, 20, 40, 12, 8)) {
    case 0:
        return rnd_range(p, 1, tile);
    case 1:
        return tile * rnd_range(p, 1, 4);
    case 2:
        return rnd_range(p, 1, maxv);
    case 3:
        return rnd_range(p, 1, 17);
    default:
        return tile * rnd_range(p, 1, 3) + rnd_range(p, -1, 1) + 1;
    }
}

static void fam_gemm(prog *p)
{
    p->family = "gemm";
    static const int thr[] = {32, 64, 128, 128, 128, 256, 256, 512};
    static const int bms[] = {16, 32, 64, 64, 128, 128, 256};
    static const int bns[] = {16, 32, 64, 64, 128, 128, 256};
    static const int bks[] = {16, 32, 32, 64, 64, 128};
    int et = chance(p, 55) ? ET_F16 : ET_BF16;
    int variant = PICKW(p, 70, 15, 15); /* plain, row softmax / row statistics, a second product */
    int trans = rnd(p, 4), ta = trans >> 1, tb = trans & 1;
    int threads = 0, warps = 0, BM = 0, BN = 0, BK = 0, stages = 1, policy = 0, BN2 = 0;
    int second_frag = variant == 0 && chance(p, 20);
    int ok = 0;
    for (int tries = 0; tries < 400 && !ok; tries++) {
        threads = PICK(p, thr);
        warps = threads / 32;
        BM = PICK(p, bms);
        BN = PICK(p, bns);
        BK = PICK(p, bks);
        stages = (int)rnd_range(p, 1, 4);
        if (chance(p, 10))
            stages = (int)rnd_range(p, 5, 6);
        policy = chance(p, 25) ? (int)rnd_range(p, 0, 2) : -1;
        if (variant == 2) { /* A from registers: no transposed A; the warps hold whole rows */
            ta = 0;
            trans = tb;
            policy = -1;
        }
        /* the shared tiles' rows */
        if (!smem_row_ok(ta ? BM : BK) || !smem_row_ok(tb ? BK : BN))
            continue;
        if (!frag_ok(BM, BN, warps, policy < 0 ? 0 : policy))
            continue;
        long long regs =
            (long long)BM * BN / threads * (second_frag ? 2 : 1) + (variant == 1 ? 2 * BM / threads + 2 : 0);
        if (variant == 2) {
            BN2 = PICK(p, bns);
            if (!frag_ok(BM, BN, warps, 1) || !frag_ok(BM, BN2, warps, 1) || !smem_row_ok(tb ? BN : BN2))
                continue;
            regs += (long long)BM * BN2 / threads + (long long)BM * BN / threads;
        }
        if (regs > 128)
            continue;
        long long smem = (long long)stages * (BM * BK + BK * BN) * 2 + (variant == 2 ? (long long)BN * BN2 * 2 : 0);
        if (smem > 160 * 1024)
            continue;
        ok = 1;
    }
    if (!ok) {
        p->reject = 1;
        return;
    }
    p->threads = threads;
    int batched = variant == 0 && chance(p, 20);
    long long batch = batched ? rnd_range(p, 1, 4) : 1;
    long long M = pick_dim(p, BM, 700), N = variant == 1 ? rnd_range(p, 1, BN) : pick_dim(p, BN, 700),
              K = pick_dim(p, BK, 700);
    long long N2 = variant == 2 ? pick_dim(p, BN2, 400) : 0;
    if (variant == 2)
        N = rnd_range(p, 1, BN); /* the first product's columns fit one tile */
    while (batch * M * (N + N2) * K > 60000000LL)
        K = K / 2 + 1;
    const char *T = et_c[et];
    char pf[16], b[48];
    snprintf(pf, sizeof pf, "%s", p->pfx);
    sb_printf(&p->head, "enum { %s_BM = %d, %s_BN = %d, %s_BK = %d%s", pf, BM, pf, BN, pf, BK,
              variant == 2 ? "" : " };\n\n");
    if (variant == 2)
        sb_printf(&p->head, ", %s_BN2 = %d };\n\n", pf, BN2);
    if (batched)
        add_int(p, "batch", batch);
    add_int(p, "M", M);
    add_int(p, "N", N);
    if (variant == 2)
        add_int(p, "N2", N2);
    add_int(p, "K", K);
    const char *bdim = batched ? "[batch]" : "";
    const char *bsel = batched ? "[b]" : "";
    param *A =
        add_arr(p, "A", et, ROLE_IN, batch * M * K, "const %s A%s[%s][%s]", T, bdim, ta ? "K" : "M", ta ? "M" : "K");
    param *B =
        add_arr(p, "B", et, ROLE_IN, batch * K * N, "const %s B%s[%s][%s]", T, bdim, tb ? "N" : "K", tb ? "K" : "N");
    A->keep = B->keep = 1;
    param *D = NULL;
    if (variant == 2) {
        D = add_arr(p, "D", et, ROLE_IN, N * N2, "const %s D[%s][%s]", T, tb ? "N2" : "N", tb ? "N" : "N2");
        D->keep = 1;
    }
    /* the accumulator's start */
    int init = variant == 2 ? 0 : PICKW(p, 65, 12, 15, 8); /* clear, fill, load an input, load C itself */
    param *Cin = NULL;
    double beta = nice_value(p, 1);
    if (init == 2) {
        int ct = chance(p, 60) ? ET_F32 : ET_F16;
        Cin = add_arr(p, "Cin", ct, ROLE_IN, batch * M * N, "const %s Cin%s[M][N]", et_c[ct], bdim);
        Cin->keep = 1;
    }
    /* the epilogue's inputs */
    ctx c = {.cap = 1e6};
    int use_alpha = chance(p, 40), use_bias = chance(p, 40), use_res = chance(p, 25), act = chance(p, 45);
    if (variant != 0)
        use_res = 0;
    if (variant == 2)
        use_bias = 0;
    if (use_alpha) {
        add_flt(p, "alpha", nice_value(p, 1));
        ctx_f(&c, 3, 1, 0, 0, "alpha");
    }
    if (use_bias)
        add_vec(p, "bias", pick_float_type(p), ROLE_IN, N, "N");
    if (use_bias)
        p->par[p->npar - 1].keep = 1;
    if (use_res) {
        int rt = pick_float_type(p);
        add_arr(p, "R", rt, ROLE_IN, batch * M * N, "const %s R%s[M][N]", et_c[rt], bdim)->keep = 1;
    }
    /* the outputs */
    int ot = PICKW(p, 50, 30, 20);
    param *C;
    if (init == 3) { /* C += A B: C read and written */
        ot = chance(p, 70) ? ET_F32 : ET_F16;
        C = add_arr(p, "C", ot, ROLE_INOUT, batch * M * N, "%s C%s[M][N]", et_c[ot], bdim);
    } else if (variant == 2) {
        C = add_arr(p, "C", ot, ROLE_OUT, M * N2, "%s C[M][N2]", et_c[ot]);
    } else {
        C = add_arr(p, "C", ot, ROLE_OUT, batch * M * N, "%s C%s[M][N]", et_c[ot], bdim);
    }
    param *S2 = NULL, *rowv = NULL;
    if (second_frag)
        S2 = add_arr(p, "S", ET_F32, ROLE_OUT, batch * M * N, "float S%s[M][N]", bdim);
    C->inexact = 1;
    out_red(C, (double)K, 16 * 0x1p-24);
    C->red += 1.5e-4; /* tensor cores add in their own order and precision */
    if (variant == 2) {
        C->lvl = et_lvl[et]; /* P, the first product rounded to half or bfloat16 */
        out_red(C, (double)N, 16 * 0x1p-24);
    }

    /* the helper for the product, when it is the user's own function */
    int form = variant == 2 ? 0 : PICKW(p, 80, 12, 8); /* tile_gemm*, a loop nest, a micro-kernel */
    char mk[48];
    snprintf(mk, sizeof mk, "%s_mma", pf);
    const char *ai = ta ? "[kk][i]" : "[i][kk]", *bi = tb ? "[j][kk]" : "[kk][j]";
    const char *cast = g_f16_arith ? "" : "(float)";
    if (form == 2) {
        char ea[2][32], eb[2][32];
        snprintf(ea[0], sizeof ea[0], "%s_B%s", pf, ta ? "K" : "M");
        snprintf(ea[1], sizeof ea[1], "%s_B%s", pf, ta ? "M" : "K");
        snprintf(eb[0], sizeof eb[0], "%s_B%s", pf, tb ? "N" : "K");
        snprintf(eb[1], sizeof eb[1], "%s_B%s", pf, tb ? "K" : "N");
        sb_printf(&p->head,
                  "/* the product of two tiles, written out: tilepp checks it is one */\n"
                  "static void %s(%s a[%s][%s], %s b[%s][%s], float acc[%s_BM][%s_BN])\n{\n"
                  "    for (int i = 0; i < %s_BM; i++)\n        for (int j = 0; j < %s_BN; j++)\n"
                  "            for (int kk = 0; kk < %s_BK; kk++)\n"
                  "                acc[i][j] += %sa%s * %sb%s;\n}\n\n",
                  mk, T, ea[0], ea[1], T, eb[0], eb[1], pf, pf, pf, pf, pf, cast, ai, cast, bi);
    }

    /* the grid */
    int stride_form = chance(p, 25), swz = !batched && variant != 1 && chance(p, 30);
    char row0[64], col0[64];
    if (swz)
        ln(p, "#pragma tile grid swizzle(%d)", (int)rnd_range(p, 1, 16));
    else
        ln(p, "#pragma tile grid");
    int depth = 0;
    if (batched) {
        ln(p, "for (int b = 0; b < batch; b++)");
        p->ind++, depth++;
    }
    if (stride_form) {
        ln(p, "for (int m0 = 0; m0 < M; m0 += %s_BM)", pf);
        snprintf(row0, sizeof row0, "m0");
    } else {
        ln(p, "for (int by = 0; by < tile_cdiv(M, %s_BM); by++)", pf);
        snprintf(row0, sizeof row0, "by * %s_BM", pf);
    }
    const char *ncols = variant == 2 ? "N2" : "N";
    const char *bn_out = variant == 2 ? "_BN2" : "_BN";
    if (variant == 1) {
        snprintf(col0, sizeof col0, "0");
        p->body.len -= 1; /* the row loop is the block's: its brace on its line */
        sb_printf(&p->body, " {\n");
    } else {
        p->ind++, depth++;
        if (stride_form) {
            ln(p, "for (int n0 = 0; n0 < %s; n0 += %s%s) {", ncols, pf, bn_out);
            snprintf(col0, sizeof col0, "n0");
        } else {
            ln(p, "for (int bx = 0; bx < tile_cdiv(%s, %s%s); bx++) {", ncols, pf, bn_out);
            snprintf(col0, sizeof col0, "bx * %s%s", pf, bn_out);
        }
    }
    p->ind++;
    ln(p, "#pragma tile shared");
    ln(p, "%s As[%s_B%s][%s_B%s], Bs[%s_B%s][%s_B%s];", T, pf, ta ? "K" : "M", pf, ta ? "M" : "K", pf, tb ? "N" : "K",
       pf, tb ? "K" : "N");
    if (variant == 2) {
        ln(p, "#pragma tile shared");
        ln(p, "%s Ds[%s_B%s][%s_B%s];", T, pf, tb ? "N2" : "N", pf, tb ? "N" : "N2");
    }
    ln(p, "#pragma tile fragment");
    const char *acc = variant == 2 ? "Sf" : "Cf";
    if (variant == 2)
        ln(p, "float Sf[%s_BM][%s_BN], Cf[%s_BM][%s_BN2];", pf, pf, pf, pf);
    else if (second_frag)
        ln(p, "float Cf[%s_BM][%s_BN], Sc[%s_BM][%s_BN];", pf, pf, pf, pf);
    else if (variant == 1)
        ln(p, "float Cf[%s_BM][%s_BN], mx[%s_BM], sm[%s_BM];", pf, pf, pf, pf);
    else
        ln(p, "float Cf[%s_BM][%s_BN];", pf, pf);
    if (variant == 2) {
        ln(p, "#pragma tile fragment");
        ln(p, "%s P[%s_BM][%s_BN];", T, pf, pf);
    }
    switch (init) {
    case 0:
        ln(p, "tile_clear(%s);", acc);
        break;
    case 1:
        ln(p, "tile_fill(%s, %s);", acc, fmt_f(b, beta));
        break;
    case 2:
        ln(p, "tile_load(Cf, Cin%s, %s, %s, M, N);", bsel, row0, col0);
        break;
    default:
        ln(p, "tile_load(Cf, C%s, %s, %s, M, N);", bsel, row0, col0);
        break;
    }
    /* the k loop */
    char k0[64];
    if (chance(p, 15))
        stages = 0; /* a plain loop: each step loads and multiplies (the sm_80 kernel) */
    else
        ln(p, "#pragma tile pipelined stages(%d)", stages);
    if (chance(p, 25)) {
        ln(p, "for (int k0 = 0; k0 < K; k0 += %s_BK) {", pf);
        snprintf(k0, sizeof k0, "k0");
    } else {
        ln(p, "for (int k = 0; k < tile_cdiv(K, %s_BK); k++) {", pf);
        snprintf(k0, sizeof k0, "k * %s_BK", pf);
    }
    p->ind++;
    const char *bcol = variant == 2 ? "0" : col0;
    if (ta)
        ln(p, "tile_load(As, A%s, %s, %s, K, M);", bsel, k0, row0);
    else
        ln(p, "tile_load(As, A%s, %s, %s, M, K);", bsel, row0, k0);
    if (tb)
        ln(p, "tile_load(Bs, B%s, %s, %s, N, K);", bsel, bcol, k0);
    else
        ln(p, "tile_load(Bs, B%s, %s, %s, K, N);", bsel, k0, bcol);
    static const char *const fns[] = {"tile_gemm", "tile_gemm_nt", "tile_gemm_tn", "tile_gemm_tt"};
    if (form == 0) {
        if (policy >= 0) {
            static const char *const pol[] = {"square", "row", "col"};
            ln(p, "#pragma tile gemm policy(%s)", pol[policy]);
        } else if (chance(p, 10)) {
            ln(p, "#pragma tile gemm");
        }
        ln(p, "%s(As, Bs, %s);", fns[trans], acc);
    } else if (form == 1) {
        ln(p, "#pragma tile gemm");
        ln(p, "for (int i = 0; i < %s_BM; i++)", pf);
        ln(p, "    for (int j = 0; j < %s_BN; j++)", pf);
        ln(p, "        for (int kk = 0; kk < %s_BK; kk++)", pf);
        ln(p, "            Cf[i][j] += %sAs%s * %sBs%s;", cast, ai, cast, bi);
    } else {
        ln(p, "#pragma tile gemm");
        ln(p, "%s(As, Bs, Cf);", mk);
    }
    p->ind--;
    ln(p, "}");

    /* after the loop */
    if (variant == 2) {
        ln(p, "tile_copy(P, Sf);");
        ln(p, "tile_clear(Cf);");
        if (tb)
            ln(p, "tile_load(Ds, D, %s, 0, N2, N);", col0);
        else
            ln(p, "tile_load(Ds, D, 0, %s, N, N2);", col0);
        ln(p, "%s(P, Ds, Cf);", tb ? "tile_gemm_nt" : "tile_gemm");
    }
    int nepi = variant == 1 ? 0 : (int)rnd_range(p, 0, 2);
    if (use_alpha || use_bias || use_res || act || second_frag)
        nepi = nepi ? nepi : 1;
    const char *out_cols = variant == 2 ? "_BN2" : "_BN";
    for (int e = 0; e < nepi; e++) {
        ln(p, "#pragma tile parallel");
        ln(p, "for (int i = 0; i < %s_BM; i++)", pf);
        ln(p, "    for (int j = 0; j < %s%s; j++) {", pf, out_cols);
        p->ind += 2;
        if (use_res && e == 0)
            ln(p, "int r = %s + i;", row0);
        if ((use_bias || use_res) && e == 0)
            ln(p, "int c = %s + j;", col0);
        ln(p, "float v = Cf[i][j];");
        if (e == 0) {
            if (use_alpha)
                ln(p, "v = v * alpha;");
            if (use_bias)
                ln(p, "v += c < N ? bias[c] : 0.0f;");
            if (use_res) {
                if (chance(p, 50)) {
                    ln(p, "if (r < M && c < N)");
                    ln(p, "    v += R%s[r][c];", bsel);
                } else {
                    ln(p, "v += r < M && c < N ? R%s[r][c] : 0.0f;", bsel);
                }
            }
            if (second_frag)
                ln(p, "Sc[i][j] = v;");
        }
        if (act || e > 0) {
            switch (rnd(p, 6)) {
            case 0:
                ln(p, "v = fmaxf(v, 0.0f);");
                break;
            case 1:
                ln(p, "v = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));");
                break;
            case 2:
                ln(p, "v = v / (1.0f + expf(-v));");
                break;
            case 3:
                ln(p, "v = v > 0.0f ? v : 0.01f * v;");
                break;
            case 4:
                ln(p, "v = fminf(fmaxf(v, -%s), %s);", fmt_f(b, 4.0), fmt_f(b, 4.0));
                break;
            default:
                ln(p, "v = v * %s + (i %% 2 == 0 ? 0.5f : -0.25f);", fmt_f(b, nice_value(p, 1)));
                break;
            }
        }
        ln(p, "Cf[i][j] = v;");
        p->ind -= 2;
        ln(p, "    }");
    }
    if (variant == 1) { /* per row of the block's tile: the maximum, and a softmax or a sum */
        int softmax = chance(p, 60);
        const char *red = softmax ? "tile_reduce_max" : chance(p, 50) ? "tile_reduce_absmax" : "tile_reduce_max";
        if (softmax) {
            ln(p, "#pragma tile parallel");
            ln(p, "for (int i = 0; i < %s_BM; i++)", pf);
            ln(p, "    for (int j = 0; j < %s_BN; j++)", pf);
            ln(p, "        if (j >= N)");
            ln(p, "            Cf[i][j] = -INFINITY;");
        }
        ln(p, "%s(Cf, mx, 1, 1);", red);
        if (softmax) {
            ln(p, "#pragma tile parallel");
            ln(p, "for (int i = 0; i < %s_BM; i++)", pf);
            ln(p, "    for (int j = 0; j < %s_BN; j++)", pf);
            ln(p, "        Cf[i][j] = expf(Cf[i][j] - mx[i]);");
            ln(p, "tile_reduce_sum(Cf, sm, 1, 1);");
            ln(p, "#pragma tile parallel");
            ln(p, "for (int i = 0; i < %s_BM; i++)", pf);
            ln(p, "    for (int j = 0; j < %s_BN; j++)", pf);
            ln(p, "        Cf[i][j] = Cf[i][j] / sm[i];");
            out_red(C, (double)N, 16 * 0x1p-24);
        } else {
            ln(p, "tile_reduce_abssum(Cf, sm, 1, 1);");
            ln(p, "#pragma tile parallel");
            ln(p, "for (int i = 0; i < %s_BM; i++)", pf);
            ln(p, "    sm[i] = sm[i] * 0.5f + mx[i];");
        }
        rowv = add_vec(p, "rowstat", ET_F32, ROLE_OUT, M, "M");
        rowv->inexact = 1;
        rowv->red = C->red;
        out_red(rowv, (double)N, 16 * 0x1p-24);
        ln(p, "tile_store(rowstat, %s, %s, M);", softmax ? "mx" : "sm", row0);
    }
    ln(p, "tile_store(C%s, Cf, %s, %s, M, %s);", variant == 2 ? "" : bsel, row0, col0, ncols);
    if (second_frag) {
        ln(p, "tile_store(S%s, Sc, %s, %s, M, N);", bsel, row0, col0);
        S2->inexact = 1;
        S2->red = C->red;
    }
    p->ind--;
    ln(p, "}");
    for (; depth > 0; depth--)
        p->ind--;
    char loop[32];
    snprintf(loop, sizeof loop, stages ? "stages(%d)" : "a plain k loop", stages);
    snprintf(p->what, sizeof p->what, "%s%s %s, %d x %d x %d tiles, %s, threads(%d), M %lld N %lld K %lld%s%s%s",
             batched ? "batched " : "",
             form == 1   ? "loop-nest gemm"
             : form == 2 ? "micro-kernel gemm"
                         : fns[trans],
             T, BM, BN, BK, loop, threads, M, variant == 2 ? N2 : N, K, variant == 1 ? ", row softmax/statistics" : "",
             variant == 2 ? ", second product from registers" : "", nepi ? ", epilogue" : "");
}

/* ---- family (d): tiles ----------------------------------------------------------
 * Fragments loaded, worked on by parallel loops over their elements (reading
 * other fragments of their shape, global memory at tile coordinates under a
 * bounds test, row values m[i]), copied, filled and stored; row and column
 * reductions of fragments; 2-D shared tiles filled, loaded (converting), copied between
 * types and spaces, read by parallel loops of the block's threads, reduced
 * along either dim (once, or accumulated over a pipelined loop); 1-D shared
 * tiles and fragments, windows that start before or end past the vector, a
 * pipelined stream of 1-D chunks. Windows start at shifted origins and shapes
 * are ragged, so edges are everywhere. */

static const char *const red_fn[] = {"tile_reduce_max", "tile_reduce_min", "tile_reduce_sum", "tile_reduce_absmax",
                                     "tile_reduce_abssum"};

static int pick_tile_dim(prog *p)
{
    static const int d[] = {16, 32, 32, 64, 64, 128};
    return PICK(p, d);
}

static int frag_warps_ok(prog *p, int TM, int TN, int nfrag, int *threads)
{
    static const int thr[] = {32, 64, 128, 128, 256};
    for (int t = 0; t < 40; t++) {
        int th = PICK(p, thr);
        if (frag_ok(TM, TN, th / 32, 0) && (long long)TM * TN * nfrag / th <= 128) {
            *threads = th;
            return 1;
        }
    }
    return 0;
}

/* (d1) fragments, element-wise */
/* What one loop over tile_frag_ew's fragments needs: their names' prefix
 * and types, whether G is there, and whether the row r or column c of the
 * matrix may be named. */
typedef struct frag_ew_loop_env {
    const char *pf;
    int ft, gt, two, need_r, need_c;
} frag_ew_loop_env;

/* One parallel loop over F's (and G's) elements, noting what it computes
 * in `fake`. */
static void frag_ew_loop(prog *p, ctx *c, const frag_ew_loop_env *env, param *fake)
{
    ln(p, "#pragma tile parallel");
    ln(p, "for (int i = 0; i < %s_TM; i++)", env->pf);
    ln(p, "    for (int j = 0; j < %s_TN; j++) {", env->pf);
    p->ind += 2;
    ex e = gen_f(p, c, (int)rnd_range(p, 1, 3)), e2;
    int g2 = env->two && chance(p, 60);
    e2.s[0] = '\0';
    if (g2)
        e2 = gen_f(p, c, (int)rnd_range(p, 1, 2));
    if (env->need_r && (uses(e.s, "r") || uses(e2.s, "r")))
        ln(p, "int r = by * %s_TM + i;", env->pf);
    if (env->need_c && (uses(e.s, "c") || uses(e2.s, "c")))
        ln(p, "int c = bx * %s_TN + j;", env->pf);
    note(fake, &e);
    ln(p, "F[i][j] = %s%s;", conv16(env->ft, &e), e.s);
    if (g2) {
        note(fake, &e2);
        ln(p, "G[i][j] = %s%s;", conv16(env->gt, &e2), e2.s);
    }
    p->ind -= 2;
    ln(p, "    }");
}

/* A condition on the block's coordinates and the sizes, which every
 * thread of a block evaluates alike (an `if` around parallel loops). */
static const char *block_condition(prog *p, const char *pf)
{
    static char text[96];
    switch (rnd(p, 4)) {
    case 0: /* the block's columns all inside the matrix */
        snprintf(text, sizeof text, "bx * %s_TN + %s_TN <= N", pf, pf);
        break;
    case 1:
        snprintf(text, sizeof text, "(by + bx) %% 2 == 0");
        break;
    case 2:
        snprintf(text, sizeof text, "by * %s_TM < M / 2", pf);
        break;
    default:
        snprintf(text, sizeof text, "N > %d && by != %d", (int)rnd_range(p, 1, 600), (int)rnd_range(p, 0, 3));
        break;
    }
    return text;
}

static void tile_frag_ew(prog *p)
{
    int TM = pick_tile_dim(p), TN = pick_tile_dim(p), th = 0;
    int two = chance(p, 50);
    if (!frag_warps_ok(p, TM, TN, two ? 2 : 1, &th)) {
        p->reject = 1;
        return;
    }
    p->threads = th;
    long long M = pick_dim(p, TM, 600), N = pick_dim(p, TN, 600);
    int xt = pick_float_type(p), ft = pick_float_type(p), gt = pick_float_type(p);
    char pf[16], b[48];
    snprintf(pf, sizeof pf, "%s", p->pfx);
    sb_printf(&p->head, "enum { %s_TM = %d, %s_TN = %d };\n\n", pf, TM, pf, TN);
    add_int(p, "M", M);
    add_int(p, "N", N);
    ctx c = {.cap = 12};
    if (chance(p, 40)) {
        double v = nice_value(p, 1);
        add_flt(p, "s", v);
        ctx_f(&c, fabs(v), 1, 0, 0, "s");
    }
    add_mat(p, "X", xt, ROLE_IN, M * N, "M", "N")->keep = 1;
    int x2 = chance(p, 40), bias = chance(p, 30);
    int x2t = pick_float_type(p);
    int bias_t = pick_float_type(p);
    if (x2)
        add_mat(p, "X2", x2t, ROLE_IN, M * N, "M", "N");
    if (bias)
        add_vec(p, "bias", bias_t, ROLE_IN, N, "N");
    int yt = pick_out_type(p) == ET_I32 ? ET_F32 : pick_float_type(p);
    param *Y = add_mat(p, "Y", yt, ROLE_OUT, M * N, "M", "N");
    param *Z = two ? add_mat(p, "Z", pick_float_type(p), ROLE_OUT, M * N, "M", "N") : NULL;
    int sr = chance(p, 20) ? (int)rnd_range(p, 1, 5) : 0, sc = chance(p, 20) ? (int)rnd_range(p, 1, 5) : 0;
    int dr = chance(p, 20) ? (int)rnd_range(p, -4, 3) : 0, dc = chance(p, 20) ? (int)rnd_range(p, -4, 3) : 0;
    ln(p, "#pragma tile grid%s", chance(p, 20) ? " swizzle(4)" : "");
    if (sr)
        ln(p, "for (int by = 0; by < tile_cdiv(M + %d, %s_TM); by++)", sr, pf);
    else
        ln(p, "for (int by = 0; by < tile_cdiv(M, %s_TM); by++)", pf);
    if (sc)
        ln(p, "    for (int bx = 0; bx < tile_cdiv(N + %d, %s_TN); bx++) {", sc, pf);
    else
        ln(p, "    for (int bx = 0; bx < tile_cdiv(N, %s_TN); bx++) {", pf);
    p->ind += 2;
    ln(p, "#pragma tile fragment");
    ln(p, "%s F[%s_TM][%s_TN];", et_c[ft], pf, pf);
    if (two) {
        ln(p, "#pragma tile fragment");
        ln(p, "%s G[%s_TM][%s_TN];", et_c[gt], pf, pf);
    }
    char r0[64], c0[64];
    snprintf(r0, sizeof r0, "by * %s_TM%s", pf, dr ? (dr > 0 ? " + " : " - ") : "");
    if (dr)
        snprintf(r0 + strlen(r0), sizeof r0 - strlen(r0), "%d", abs(dr));
    snprintf(c0, sizeof c0, "bx * %s_TN%s", pf, dc ? (dc > 0 ? " + " : " - ") : "");
    if (dc)
        snprintf(c0 + strlen(c0), sizeof c0 - strlen(c0), "%d", abs(dc));
    /* tiles that divide the matrix: sometimes the in-bounds forms (a promise) */
    int inb = !dr && !dc && !sr && !sc && M % TM == 0 && N % TN == 0 && chance(p, 60);
    if (inb)
        ln(p, "tile_load(F, X, %s, %s);", r0, c0);
    else
        ln(p, "tile_load(F, X, %s, %s, M, N);", r0, c0);
    /* F's elements: exact, at most 1 (X's values rounded to F's type) */
    ctx_loadv(p, &c, ft, "F[i][j]", 1.0, 1, 0);
    int ginit = two ? rnd(p, 4) : -1;
    if (two) {
        switch (ginit) {
        case 0:
            ln(p, "tile_fill(G, %s);", fmt_f(b, nice_value(p, 1)));
            break;
        case 1:
            ln(p, "tile_clear(G);");
            break;
        case 2:
            ln(p, "tile_copy(G, F);");
            break;
        default:
            if (x2)
                ln(p, "tile_load(G, X2, by * %s_TM, bx * %s_TN, M, N);", pf, pf);
            else
                ln(p, "tile_copy(G, F);");
            break;
        }
        ctx_loadv(p, &c, gt, "G[i][j]", 2.0, 1, 0);
    }
    ctx_cond(&c, "i %s j", chance(p, 50) ? "<" : ">=");
    ctx_cond(&c, "(j & %d) == 0", (int)rnd_range(p, 1, 3));
    ctx_f(&c, 1, 1, 1, 0, "(float)(i - j) * 0.0078125f");
    int need_c = bias || x2, need_r = x2;
    if (bias)
        ctx_f(&c, 1, 1, 0, 0, "(c < N ? bias[c] : 0.0f)");
    if (x2)
        ctx_f(&c, 1, 1, 0, 0, "(r < M && c < N ? X2[r][c] : 0.0f)");
    /* one or two loops over the fragments' elements, each sometimes under a
     * condition every thread of the block evaluates alike (with an else
     * loop, sometimes): F then holds either loop's values, or its old ones,
     * which the model after the loop (the old values, widened when a loop is
     * inexact) covers */
    int loops = (int)rnd_range(p, 1, 2);
    param fake = {0};
    frag_ew_loop_env env = {pf, ft, gt, two, need_r, need_c};
    for (int l = 0; l < loops; l++) {
        if (chance(p, 25)) {
            ln(p, "if (%s) {", block_condition(p, pf));
            p->ind++;
            frag_ew_loop(p, &c, &env, &fake);
            p->ind--;
            if (chance(p, 50)) {
                ln(p, "} else {");
                p->ind++;
                frag_ew_loop(p, &c, &env, &fake);
                p->ind--;
            }
            ln(p, "}");
        } else {
            frag_ew_loop(p, &c, &env, &fake);
        }
        /* after the loop F's values are whatever it computed */
        if (!fake.inexact)
            continue;
        for (int k = 0; k < c.nf; k++)
            if (!strcmp(c.f[k].s, "F[i][j]") || !strcmp(c.f[k].s, "G[i][j]")) {
                c.f[k].exact = 0;
                c.f[k].mag = c.cap;
                c.f[k].lvl = imax(fake.lvl, et_lvl[c.f[k].s[0] == 'F' ? ft : gt]);
            }
        for (int k = 0; k < c.nc; k++) /* conditions on F and G no longer hold exactly */
            if (strstr(c.cond[k], "F[") || strstr(c.cond[k], "G[")) {
                memmove(c.cond[k], c.cond[k + 1], (size_t)(c.nc - k - 1) * sizeof c.cond[0]);
                c.nc--;
                k--;
            }
    }
    if (two && chance(p, 30)) {
        ln(p, "tile_copy(G, F);");
        if (fake.inexact)
            fake.lvl = imax(fake.lvl, et_lvl[ft]);
    }
    char rs[32] = "", cs[32] = "";
    if (sr)
        snprintf(rs, sizeof rs, " - %d", sr);
    if (sc)
        snprintf(cs, sizeof cs, " - %d", sc);
    if (inb && chance(p, 70))
        ln(p, "tile_store(Y, F, by * %s_TM, bx * %s_TN);", pf, pf);
    else
        ln(p, "tile_store(Y, F, by * %s_TM%s, bx * %s_TN%s, M, N);", pf, rs, pf, cs);
    if (two)
        ln(p, "tile_store(Z, G, by * %s_TM%s, bx * %s_TN%s, M, N);", pf, rs, pf, cs);
    p->ind -= 2;
    ln(p, "    }");
    int lvl = fake.inexact ? imax(fake.lvl, imax(et_lvl[ft], two ? et_lvl[gt] : 0)) : 0;
    Y->inexact = fake.inexact;
    Y->lvl = lvl;
    if (Z) {
        Z->inexact = fake.inexact;
        Z->lvl = lvl;
    }
    snprintf(p->what, sizeof p->what, "%s%s fragment%s %d x %d, loops over their elements, M %lld N %lld%s",
             two ? "two " : "", et_c[ft], two ? "s" : "", TM, TN, M, N,
             sr || sc || dr || dc ? ", shifted windows" : "");
}

/* (d2) row (dim 1) or column (dim 0) reductions of a fragment into 1-D
 * fragments of its rows or columns: a mask past the matrix, a softmax
 * along the reduced dimension, a second reduction, the slice read as m[i]
 * (rows) or m[j] (columns) */
typedef struct slice_names {
    const char *ext, *idx, *far, *other_ext, *tile, *block, *name, *noun; /* rows: TM, i, N, M, TN, bx, rs, rows */
} slice_names;

static void tile_frag_slices(prog *p, int dim)
{
    const slice_names sn = dim == 1 ? (slice_names){"TM", "i", "N", "M", "TN", "bx", "rs", "rows"}
                                    : (slice_names){"TN", "j", "M", "N", "TM", "by", "cs", "columns"};
    int TM = pick_tile_dim(p), TN = pick_tile_dim(p), th = 0;
    if (chance(p, 20))
        *(dim == 1 ? &TN : &TM) = chance(p, 50) ? 256 : 512;
    if (!frag_warps_ok(p, TM, TN, 1, &th)) {
        p->reject = 1;
        return;
    }
    p->threads = th;
    long long M = pick_dim(p, TM, dim == 1 ? 500 : 1500), N = pick_dim(p, TN, dim == 1 ? 1500 : 500);
    int xt = pick_float_type(p), op = rnd(p, 5), op2 = rnd(p, 5);
    int reduced = dim == 1 ? TN : TM; /* elements a slice combines */
    char pf[16], b[48];
    snprintf(pf, sizeof pf, "%s", p->pfx);
    sb_printf(&p->head, "enum { %s_TM = %d, %s_TN = %d };\n\n", pf, TM, pf, TN);
    add_int(p, "M", M);
    add_int(p, "N", N);
    add_mat(p, "X", xt, ROLE_IN, M * N, "M", "N")->keep = 1;
    int mask = op == 0 && chance(p, 60);
    int softmax = mask && chance(p, 70);
    int second = !softmax && chance(p, 50);
    int clear = chance(p, 60), init = rnd(p, 3); /* clear = 0: m starts filled, cleared, or loaded */
    long long blocks = dim == 1 ? (N + TN - 1) / TN : (M + TM - 1) / TM, slices = dim == 1 ? M : N;
    if (!clear && init == 2)
        add_vec(p, "m0", ET_F32, ROLE_IN, slices, sn.other_ext);
    param *Y = add_mat(p, "Y", pick_float_type(p), ROLE_OUT, M * N, "M", "N");
    param *RS = add_arr(p, sn.name, ET_F32, ROLE_OUT, blocks * slices, "float %s[(%s + %s_%s - 1) / %s_%s][%s]",
                        sn.name, sn.far, pf, sn.tile, pf, sn.tile, sn.other_ext);
    param *LS = second ? add_arr(p, "ls", ET_F32, ROLE_OUT, blocks * slices, "float ls[(%s + %s_%s - 1) / %s_%s][%s]",
                                 sn.far, pf, sn.tile, pf, sn.tile, sn.other_ext)
                       : NULL;
    ln(p, "#pragma tile grid");
    ln(p, "for (int by = 0; by < tile_cdiv(M, %s_TM); by++)", pf);
    ln(p, "    for (int bx = 0; bx < tile_cdiv(N, %s_TN); bx++) {", pf);
    p->ind += 2;
    ln(p, "#pragma tile fragment");
    ln(p, "float S[%s_TM][%s_TN], m[%s_%s]%s;", pf, pf, pf, sn.ext, second || softmax ? ", l[TXX]" : "");
    if (second || softmax) { /* the declaration above, with the real extent */
        char *q = strstr(p->body.p, "l[TXX]");
        char tail[64];
        snprintf(tail, sizeof tail, "%s", q + 6);
        p->body.len = (size_t)(q - p->body.p);
        sb_printf(&p->body, "l[%s_%s]%s", pf, sn.ext, tail);
    }
    ln(p, "tile_load(S, X, by * %s_TM, bx * %s_TN, M, N);", pf, pf);
    if (mask) {
        ln(p, "#pragma tile parallel");
        ln(p, "for (int i = 0; i < %s_TM; i++)", pf);
        ln(p, "    for (int j = 0; j < %s_TN; j++)", pf);
        if (dim == 1)
            ln(p, "        if (bx * %s_TN + j >= N)", pf);
        else
            ln(p, "        if (by * %s_TM + i >= M)", pf);
        ln(p, "            S[i][j] = -INFINITY;");
    }
    if (!clear) {
        if (init == 0)
            ln(p, "tile_fill(m, %s);", fmt_f(b, nice_value(p, 1) / 2));
        else if (init == 1)
            ln(p, "tile_clear(m);");
        else
            ln(p, "tile_load(m, m0, %s * %s_%s, %s);", dim == 1 ? "by" : "bx", pf, sn.ext, sn.other_ext);
    }
    ln(p, "%s(S, m, %d, %d);", red_fn[op], dim, clear);
    int exact_m = op != 2 && op != 4;
    RS->inexact = !exact_m;
    if (!exact_m)
        out_red(RS, reduced, 16 * 0x1p-24);
    Y->inexact = 0;
    if (softmax) {
        ln(p, "#pragma tile parallel");
        ln(p, "for (int i = 0; i < %s_TM; i++)", pf);
        ln(p, "    for (int j = 0; j < %s_TN; j++)", pf);
        ln(p, "        S[i][j] = expf(S[i][j] - m[%s]);", sn.idx);
        ln(p, "tile_reduce_sum(S, l, %d, 1);", dim);
        ln(p, "#pragma tile parallel");
        ln(p, "for (int i = 0; i < %s_TM; i++)", pf);
        ln(p, "    for (int j = 0; j < %s_TN; j++)", pf);
        ln(p, "        S[i][j] = S[i][j] / l[%s];", sn.idx);
        Y->inexact = 1;
        out_red(Y, reduced, 16 * 0x1p-24);
    } else if (chance(p, 60)) {
        ln(p, "#pragma tile parallel");
        ln(p, "for (int i = 0; i < %s_TM; i++)", pf);
        ln(p, "    for (int j = 0; j < %s_TN; j++)", pf);
        switch (rnd(p, 3)) {
        case 0:
            ln(p, "        S[i][j] = S[i][j] - m[%s];", sn.idx);
            break;
        case 1:
            ln(p, "        S[i][j] = S[i][j] / (fabsf(m[%s]) + 1.0f);", sn.idx);
            break;
        default:
            ln(p, "        S[i][j] = fmaxf(S[i][j], m[%s] * 0.5f);", sn.idx);
            break;
        }
        if (!exact_m)
            Y->inexact = 1, out_red(Y, reduced, 16 * 0x1p-24);
    }
    if (second) {
        ln(p, "%s(S, l, %d, 1);", red_fn[op2], dim);
        ln(p, "#pragma tile parallel");
        ln(p, "for (int %s = 0; %s < %s_%s; %s++)", sn.idx, sn.idx, pf, sn.ext, sn.idx);
        ln(p, "    l[%s] = l[%s] * 0.5f + m[%s];", sn.idx, sn.idx, sn.idx);
        LS->inexact = 1;
        out_red(LS, reduced, 16 * 0x1p-24);
        LS->red += RS->red;
    }
    const char *at = dim == 1 ? "by" : "bx";
    ln(p, "tile_store(Y, S, by * %s_TM, bx * %s_TN, M, N);", pf, pf);
    ln(p, "tile_store(%s[%s], m, %s * %s_%s, %s);", sn.name, sn.block, at, pf, sn.ext, sn.other_ext);
    if (second)
        ln(p, "tile_store(ls[%s], l, %s * %s_%s, %s);", sn.block, at, pf, sn.ext, sn.other_ext);
    p->ind -= 2;
    ln(p, "    }");
    snprintf(p->what, sizeof p->what, "%s of a %d x %d fragment's %s%s%s, M %lld N %lld", red_fn[op], TM, TN, sn.noun,
             clear ? "" : " (accumulating)",
             softmax  ? ", softmax"
             : second ? ", a second reduction"
                      : "",
             M, N);
}

/* (d3) 2-D shared tiles */
static void tile_shared2d(prog *p)
{
    static const int tns[] = {32, 64, 64, 128};
    int TM = pick_tile_dim(p), TN = PICK(p, tns), th = 0;
    int use_frag = chance(p, 40);
    if (use_frag && !frag_warps_ok(p, TM, TN, 1, &th))
        use_frag = 0;
    if (!use_frag)
        th = PICK(p, ((const int[]){32, 64, 128, 256, 512}));
    p->threads = th;
    long long M = pick_dim(p, TM, 500), N = pick_dim(p, TN, 700);
    int xt = pick_float_type(p), ht = chance(p, 50) ? ET_F16 : ET_BF16, ut = ht == ET_F16 ? ET_BF16 : ET_F16;
    if (chance(p, 30)) /* a float tile (128 KB at most with Us beside it) */
        ht = ET_F32;
    else if (chance(p, 20))
        ut = ET_F32;
    int ft = pick_float_type(p);
    char pf[16], b[48];
    snprintf(pf, sizeof pf, "%s", p->pfx);
    sb_printf(&p->head, "enum { %s_TM = %d, %s_TN = %d };\n\n", pf, TM, pf, TN);
    add_int(p, "M", M);
    add_int(p, "N", N);
    add_mat(p, "X", xt, ROLE_IN, M * N, "M", "N")->keep = 1;
    int use_u = chance(p, 50), use_loop = chance(p, 50), nred = (int)rnd_range(p, 0, 2);
    param *Y = add_mat(p, "Y", pick_float_type(p), ROLE_OUT, M * N, "M", "N");
    param *Y2 = use_loop ? add_mat(p, "Y2", pick_float_type(p), ROLE_OUT, M * N, "M", "N") : NULL;
    long long nbx = (N + TN - 1) / TN, nby = (M + TM - 1) / TM;
    int rdim[2], rop[2], rspace[2], rclear[2], rtype[2];
    param *rout[2];
    for (int k = 0; k < nred; k++) {
        rdim[k] = rnd(p, 2);
        rop[k] = rnd(p, 5);
        rspace[k] = rnd(p, 2); /* shared, fragment */
        rclear[k] = chance(p, 60);
        rtype[k] = rspace[k] == 0 ? pick_float_type(p) : chance(p, 70) ? ET_F32 : ET_F16;
        char name[16];
        snprintf(name, sizeof name, "%s%d", rdim[k] ? "rs" : "cs", k);
        if (rdim[k])
            rout[k] = add_arr(p, name, ET_F32, ROLE_OUT, nbx * M, "float %s[(N + %s_TN - 1) / %s_TN][M]", name, pf, pf);
        else
            rout[k] = add_arr(p, name, ET_F32, ROLE_OUT, nby * N, "float %s[(M + %s_TM - 1) / %s_TM][N]", name, pf, pf);
    }
    ln(p, "#pragma tile grid");
    ln(p, "for (int by = 0; by < tile_cdiv(M, %s_TM); by++)", pf);
    ln(p, "    for (int bx = 0; bx < tile_cdiv(N, %s_TN); bx++) {", pf);
    p->ind += 2;
    ln(p, "#pragma tile shared");
    ln(p, "%s Ts[%s_TM][%s_TN];", et_c[ht], pf, pf);
    if (use_u) {
        ln(p, "#pragma tile shared");
        ln(p, "%s Us[%s_TM][%s_TN];", et_c[ut], pf, pf);
    }
    if (use_frag) {
        ln(p, "#pragma tile fragment");
        ln(p, "%s F[%s_TM][%s_TN];", et_c[ft], pf, pf);
    }
    for (int k = 0; k < nred; k++) {
        ln(p, "#pragma tile %s", rspace[k] ? "fragment" : "shared");
        ln(p, "%s v%d[%s_T%s];", et_c[rtype[k]], k, pf, rdim[k] ? "M" : "N");
    }
    if (chance(p, 30))
        ln(p, "tile_fill(Ts, %s);", fmt_f(b, nice_value(p, 1)));
    ln(p, "tile_load(Ts, X, by * %s_TM, bx * %s_TN, M, N);", pf, pf);
    const char *src = "Ts";
    if (use_u) {
        ln(p, "tile_copy(Us, Ts);");
        src = "Us";
    }
    int inexact = 0, lvl = 0;
    if (use_frag) {
        ln(p, "tile_copy(F, %s);", src);
        if (chance(p, 60)) {
            ctx c = {.cap = 8};
            ctx_loadv(p, &c, ft, "F[i][j]", 1.0, 1, 0);
            ctx_cond(&c, "(i + j) %% 3 == 0");
            ex e = gen_f(p, &c, (int)rnd_range(p, 1, 2));
            ln(p, "#pragma tile parallel");
            ln(p, "for (int i = 0; i < %s_TM; i++)", pf);
            ln(p, "    for (int j = 0; j < %s_TN; j++)", pf);
            ln(p, "        F[i][j] = %s%s;", conv16(ft, &e), e.s);
            if (!e.exact)
                inexact = 1, lvl = imax(e.lvl, et_lvl[ft]);
        }
        if (chance(p, 50)) {
            ln(p, "tile_copy(%s, F);", src);
            if (inexact)
                lvl = imax(lvl, et_lvl[!strcmp(src, "Ts") ? ht : ut]);
        } else {
            src = "F";
        }
    }
    if (use_loop) { /* the block's threads read the shared tile */
        ctx c = {.cap = 8};
        const char *tile = use_u ? "Us" : "Ts";
        char t[32];
        snprintf(t, sizeof t, "%s[i][j]", tile);
        int tile_inexact = inexact && !strcmp(src, tile); /* F's values were copied back */
        ctx_loadv(p, &c, use_u ? ut : ht, t, 1.0, !tile_inexact, tile_inexact ? lvl : 0);
        ex e = gen_f(p, &c, (int)rnd_range(p, 1, 2));
        note(Y2, &e);
        if (inexact && !strcmp(src, tile))
            Y2->inexact = 1, Y2->lvl = imax(Y2->lvl, lvl);
        ln(p, "#pragma tile parallel%s", chance(p, 30) ? " vector(2)" : "");
        ln(p, "for (int i = 0; i < %s_TM; i++)", pf);
        ln(p, "    for (int j = 0; j < %s_TN; j++)", pf);
        ln(p, "        if (by * %s_TM + i < M && bx * %s_TN + j < N)", pf, pf);
        ln(p, "            Y2[by * %s_TM + i][bx * %s_TN + j] = %s%s;", pf, pf, conv16(Y2->et, &e), e.s);
    }
    for (int k = 0; k < nred; k++) {
        const char *tile = use_u ? "Us" : "Ts";
        if (!rclear[k]) {
            if (chance(p, 50))
                ln(p, "tile_clear(v%d);", k);
            else
                ln(p, "tile_fill(v%d, %s);", k, fmt_f(b, nice_value(p, 1)));
        }
        ln(p, "%s(%s, v%d, %d, %d);", red_fn[rop[k]], tile, k, rdim[k], rclear[k]);
        /* combined one thread a row or column, in index order: the CPU's bits */
        if (inexact && !strcmp(src, tile))
            rout[k]->inexact = 1, rout[k]->lvl = lvl, out_red(rout[k], TN, 16 * 0x1p-24);
        if (rdim[k])
            ln(p, "tile_store(%s[bx], v%d, by * %s_TM, M);", rout[k]->name, k, pf);
        else
            ln(p, "tile_store(%s[by], v%d, bx * %s_TN, N);", rout[k]->name, k, pf);
    }
    ln(p, "tile_store(Y, %s, by * %s_TM, bx * %s_TN, M, N);", src, pf, pf);
    Y->inexact = inexact;
    Y->lvl = lvl;
    p->ind -= 2;
    ln(p, "    }");
    snprintf(p->what, sizeof p->what, "%s shared tile %d x %d%s%s%s, %d reduction%s, M %lld N %lld", et_c[ht], TM, TN,
             use_u ? ", copied to another type" : "", use_frag ? ", through a fragment" : "",
             use_loop ? ", read by the block's threads" : "", nred, nred == 1 ? "" : "s", M, N);
}

/* (d4) reductions of shared tiles accumulated over a pipelined loop */
static void tile_pipelined_reduce(prog *p)
{
    static const int tns[] = {32, 64, 64, 128};
    int TM = pick_tile_dim(p), TN = PICK(p, tns);
    int cols = chance(p, 50); /* column statistics (dim 0) or row statistics (dim 1) */
    p->threads = PICK(p, ((const int[]){32, 64, 128, 256}));
    long long M = pick_dim(p, TM, 900), N = pick_dim(p, TN, 900);
    int xt = chance(p, 60) ? (chance(p, 50) ? ET_F16 : ET_BF16) : ET_F32;
    int ht = xt == ET_F32 ? (chance(p, 50) ? ET_F16 : ET_BF16) : xt;
    int stages = (int)rnd_range(p, 1, 4);
    if (chance(p, 25) && (long long)TM * TN * 4 * stages <= 96 * 1024) /* a float tile */
        ht = ET_F32;
    char pf[16], b[48];
    snprintf(pf, sizeof pf, "%s", p->pfx);
    sb_printf(&p->head, "enum { %s_TM = %d, %s_TN = %d };\n\n", pf, TM, pf, TN);
    add_int(p, "M", M);
    add_int(p, "N", N);
    add_mat(p, "X", xt, ROLE_IN, M * N, "M", "N")->keep = 1;
    int nacc = (int)rnd_range(p, 1, 2);
    int op[2], space[2], type[2];
    for (int k = 0; k < nacc; k++) {
        op[k] = rnd(p, 5);
        space[k] = rnd(p, 2);
        type[k] = space[k] == 0 ? pick_float_type(p) : chance(p, 70) ? ET_F32 : ET_F16;
        char name[16];
        snprintf(name, sizeof name, "acc%d", k);
        /* one thread a row or column, in index order: the CPU's bits */
        add_vec(p, name, ET_F32, ROLE_OUT, cols ? N : M, cols ? "N" : "M");
    }
    ln(p, "#pragma tile grid");
    if (cols)
        ln(p, "for (int bx = 0; bx < tile_cdiv(N, %s_TN); bx++) {", pf);
    else
        ln(p, "for (int by = 0; by < tile_cdiv(M, %s_TM); by++) {", pf);
    p->ind++;
    ln(p, "#pragma tile shared");
    ln(p, "%s T[%s_TM][%s_TN];", et_c[ht], pf, pf);
    for (int k = 0; k < nacc; k++) {
        ln(p, "#pragma tile %s", space[k] ? "fragment" : "shared");
        ln(p, "%s a%d[%s_T%s];", et_c[type[k]], k, pf, cols ? "N" : "M");
        if (op[k] == 0)
            ln(p, "tile_fill(a%d, -INFINITY);", k);
        else if (op[k] == 1)
            ln(p, "tile_fill(a%d, INFINITY);", k);
        else if (chance(p, 70))
            ln(p, "tile_clear(a%d);", k);
        else
            ln(p, "tile_fill(a%d, %s);", k, fmt_f(b, nice_value(p, 1)));
    }
    if (chance(p, 30))
        stages = 0; /* a plain loop of the block */
    else
        ln(p, "#pragma tile pipelined stages(%d)", stages);
    if (cols)
        ln(p, "for (int rb = 0; rb < tile_cdiv(M, %s_TM); rb++) {", pf);
    else
        ln(p, "for (int cb = 0; cb < tile_cdiv(N, %s_TN); cb++) {", pf);
    p->ind++;
    if (cols)
        ln(p, "tile_load(T, X, rb * %s_TM, bx * %s_TN, M, N);", pf, pf);
    else
        ln(p, "tile_load(T, X, by * %s_TM, cb * %s_TN, M, N);", pf, pf);
    for (int k = 0; k < nacc; k++)
        ln(p, "%s(T, a%d, %d, 0);", red_fn[op[k]], k, cols ? 0 : 1);
    p->ind--;
    ln(p, "}");
    for (int k = 0; k < nacc; k++)
        ln(p, "tile_store(acc%d, a%d, %s * %s_T%s, %s);", k, k, cols ? "bx" : "by", pf, cols ? "N" : "M",
           cols ? "N" : "M");
    p->ind--;
    ln(p, "}");
    char loop[32];
    snprintf(loop, sizeof loop, stages ? "stages(%d)" : "a plain loop", stages);
    snprintf(p->what, sizeof p->what, "%s statistics of a %s matrix through a %d x %d shared tile, %s, M %lld N %lld",
             cols ? "column" : "row", et_c[xt], TM, TN, loop, M, N);
}

/* (d5) 1-D tiles */
static void tile_1d(prog *p)
{
    long long L = chance(p, 50) ? rnd_range(p, 16, 1200) : PICK(p, ((const long long[]){32, 64, 256, 300, 1000, 1024}));
    p->threads = PICK(p, ((const int[]){32, 64, 128, 256, 512}));
    long long n = pick_len(p, 200000);
    char pf[16], b[48];
    snprintf(pf, sizeof pf, "%s", p->pfx);
    int stream = chance(p, 30);
    int xt = pick_float_type(p), st = pick_float_type(p), ft = pick_float_type(p);
    add_int(p, "n", n);
    add_vec(p, "x", xt, ROLE_IN, n, "n")->keep = 1;
    if (stream) {
        long long ch = rnd_range(p, 1, 6);
        sb_printf(&p->head, "enum { %s_L = %lld, %s_CH = %lld };\n\n", pf, L, pf, ch);
        add_vec(p, "y", pick_float_type(p), ROLE_OUT, n, "n");
        ln(p, "#pragma tile grid");
        ln(p, "for (int b = 0; b < tile_cdiv(n, %s_L * %s_CH); b++) {", pf, pf);
        p->ind++;
        ln(p, "#pragma tile shared");
        ln(p, "%s xs[%s_L];", et_c[st], pf);
        ln(p, "#pragma tile fragment");
        ln(p, "%s yf[%s_L];", et_c[ft], pf);
        int plain = chance(p, 30); /* a plain loop of the block */
        if (!plain)
            ln(p, "#pragma tile pipelined stages(%d)", (int)rnd_range(p, 1, 4));
        ln(p, "for (int c = 0; c < %s_CH; c++) {", pf);
        ln(p, "    tile_load(xs, x, (b * %s_CH + c) * %s_L, n);", pf, pf);
        ln(p, "    tile_copy(yf, xs);");
        ln(p, "    tile_store(y, yf, (b * %s_CH + c) * %s_L, n);", pf, pf);
        ln(p, "}");
        p->ind--;
        ln(p, "}");
        snprintf(p->what, sizeof p->what, "a stream of 1-D chunks of %lld through a %s loop, n %lld", L,
                 plain ? "plain" : "pipelined", n);
        return;
    }
    sb_printf(&p->head, "enum { %s_L = %lld };\n\n", pf, L);
    int shift = chance(p, 40) ? (int)rnd_range(p, -7, 5) : 0;
    int use_frag = chance(p, 70), use_fill = chance(p, 40), use_loop = chance(p, 50);
    add_vec(p, "y1", pick_float_type(p), ROLE_OUT, n, "n");
    if (use_frag)
        add_vec(p, "y2", pick_float_type(p), ROLE_OUT, n, "n");
    if (use_fill)
        add_vec(p, "y3", pick_float_type(p), ROLE_OUT, n, "n");
    param *z = use_loop ? add_vec(p, "z", pick_out_type(p), ROLE_OUT, n, "n") : NULL;
    ln(p, "#pragma tile grid");
    ln(p, "for (int i0 = 0; i0 < n; i0 += %s_L) {", pf);
    p->ind++;
    ln(p, "#pragma tile shared");
    ln(p, "%s xs[%s_L];", et_c[st], pf);
    if (use_frag) {
        ln(p, "#pragma tile fragment");
        ln(p, "%s xf[%s_L];", et_c[ft], pf);
    }
    if (use_fill) {
        ln(p, "#pragma tile %s", chance(p, 50) ? "shared" : "fragment");
        ln(p, "%s fs[%s_L];", et_c[pick_float_type(p)], pf);
    }
    if (shift)
        ln(p, "tile_load(xs, x, i0 %s %d, n);", shift < 0 ? "-" : "+", abs(shift));
    else if (chance(p, 85))
        ln(p, n % L == 0 && chance(p, 50) ? "tile_load(xs, x, i0);" : "tile_load(xs, x, i0, n);");
    else /* the vector `x + i0` (findings/tile_load_pointer_offset.c) */
        ln(p, "tile_load(xs, x + i0, 0, n - i0);");
    ln(p, "tile_store(y1, xs, i0, n);");
    if (use_frag) {
        ln(p, "tile_copy(xf, xs);");
        ln(p, "tile_store(y2, xf, i0, n);");
    }
    if (use_fill) {
        if (chance(p, 50))
            ln(p, "tile_fill(fs, %s);", fmt_f(b, nice_value(p, 1)));
        else
            ln(p, "tile_fill(fs, i0 / 1024.0f - 0.5f);");
        ln(p, "tile_store(y3, fs, i0, n);");
    }
    if (use_loop) {
        ctx c = {.cap = 8};
        char rev[48];
        snprintf(rev, sizeof rev, "xs[%s_L - 1 - i]", pf);
        ctx_loadv(p, &c, st, "xs[i]", 1.0, 1, 0);
        ctx_loadv(p, &c, st, rev, 1.0, 1, 0);
        ctx_cond(&c, "(i & 1) == 0");
        ex e = z->et == ET_I32 ? gen_i(p, &c, 2) : gen_f(p, &c, (int)rnd_range(p, 1, 2));
        note(z, &e);
        ln(p, "#pragma tile parallel");
        ln(p, "for (int i = 0; i < %s_L; i++)", pf);
        ln(p, "    if (i0 + i < n)");
        ln(p, "        z[i0 + i] = %s%s;", conv16(z->et, &e), e.s);
    }
    p->ind--;
    ln(p, "}");
    snprintf(p->what, sizeof p->what, "1-D tiles of %lld%s%s%s, n %lld", L, shift ? ", a shifted window" : "",
             use_fill ? ", filled" : "", use_loop ? ", read by the block's threads" : "", n);
}

static void fam_tile(prog *p)
{
    p->family = "tile";
    switch (PICKW(p, 30, 20, 22, 13, 15)) {
    case 0:
        tile_frag_ew(p);
        break;
    case 1:
        tile_frag_slices(p, chance(p, 40) ? 0 : 1);
        break;
    case 2:
        tile_shared2d(p);
        break;
    case 3:
        tile_pipelined_reduce(p);
        break;
    default:
        tile_1d(p);
        break;
    }
}

/* ---- finishing a program ------------------------------------------------------- */

/* If `line` declares one scalar with an initializer ("float mean3 = s2 / cols;"),
 * its name; else "". */
static void declared_name(const char *line, char *name, size_t len)
{
    static const char *const types[] = {"const float ", "float ", "int ", "half ", "bfloat16 ", "const int "};
    name[0] = '\0';
    while (*line == ' ')
        line++;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        size_t n = strlen(types[t]);
        if (strncmp(line, types[t], n))
            continue;
        const char *s = line + n, *e = s;
        while (isalnum((unsigned char)*e) || *e == '_')
            e++;
        if (e == s || strncmp(e, " = ", 3))
            return;
        const char *semi = strchr(e, ';');
        if (!semi || semi[1] != '\0')
            return;
        snprintf(name, len, "%.*s", (int)(e - s), s);
        return;
    }
}

/* Drops declarations of generated scalars nothing reads (the C compiler
 * would warn), until none is left. */
static void prune_dead(prog *p)
{
    for (int changed = 1; changed;) {
        changed = 0;
        char *text = p->body.p;
        if (!text)
            return;
        for (char *line = text; *line;) {
            char *end = strchr(line, '\n');
            if (!end)
                break;
            *end = '\0';
            char name[64];
            declared_name(line, name, sizeof name);
            *end = '\n';
            if (name[0]) {
                /* used anywhere but on its own line? (blanked while looking) */
                size_t llen = (size_t)(end - line);
                char *copy = malloc(llen + 1);
                if (!copy)
                    die("out of memory");
                memcpy(copy, line, llen);
                memset(line, ' ', llen);
                int used = uses(text, name);
                memcpy(line, copy, llen);
                free(copy);
                if (!used) {
                    memmove(line, end + 1, strlen(end + 1) + 1);
                    p->body.len -= llen + 1;
                    changed = 1;
                    break;
                }
            }
            line = end + 1;
        }
    }
}

/* Drops the parameters nothing uses (an input no expression happened to
 * read, a scalar only it needed), then fixes each output's tolerance. */
static void finalize(prog *p)
{
    prune_dead(p);
    for (int changed = 1; changed;) {
        changed = 0;
        for (int k = 0; k < p->npar; k++) {
            param *q = &p->par[k];
            if (q->keep || uses(sb_str(&p->body), q->name))
                continue;
            int needed = 0;
            for (int j = 0; j < p->npar && !needed; j++)
                needed = j != k && uses(p->par[j].decl, q->name);
            if (needed)
                continue;
            memmove(q, q + 1, (size_t)(p->npar - k - 1) * sizeof *q);
            p->npar--;
            changed = 1;
            break;
        }
    }
    for (int k = 0; k < p->ndefs; k++)
        if (uses(sb_str(&p->body), p->def_name[k]))
            sb_printf(&p->head, "%s", sb_str(&p->def_text[k]));
    for (int k = 0; k < p->npar; k++) {
        param *q = &p->par[k];
        if (q->kind == PK_ARRAY && q->role != ROLE_IN)
            q->tol = q->inexact ? lvl_tol[imax(q->lvl, et_lvl[q->et])] + q->red : 0.0;
    }
}

static void signature(const prog *p, sb *out)
{
    sb_printf(out, "void %s(", p->name);
    for (int k = 0; k < p->npar; k++)
        sb_printf(out, "%s%s", k ? ", " : "", p->par[k].decl);
    sb_printf(out, ")");
}

/* The program's C text: its constants and helpers, then the kernel. */
static void prog_text(const prog *p, sb *out, int with_includes)
{
    sb_printf(out, "/* %s: %s — %s.\n", p->name, p->family, p->what);
    sb_printf(out, " * difftest program %d of seed %llu (difftest_gen --seed %llu --first %d --count 1). */\n",
              p->index, p->seed, p->seed, p->index);
    if (with_includes)
        sb_printf(out, "#include <math.h>\n#include <tilepp/tile.h>\n\n");
    sb_printf(out, "%s", sb_str((sb *)&p->head));
    if (p->threads)
        sb_printf(out, "#pragma tile kernel threads(%d)\n", p->threads);
    else
        sb_printf(out, "#pragma tile kernel\n");
    signature(p, out);
    sb_printf(out, "\n{\n%s}\n", sb_str((sb *)&p->body));
}

/* ---- the program table ----------------------------------------------------------- */

static void c_string(sb *out, const char *s)
{
    sb_printf(out, "\"");
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            sb_printf(out, "\\%c", ch);
        else if (ch < 32 || ch > 126)
            sb_printf(out, "\\%03o", ch);
        else
            sb_printf(out, "%c", ch);
    }
    sb_printf(out, "\"");
}

/* A declarator with every array extent written [*]: the table's prototypes
 * do not see the enum constants of the program's file. */
static void proto_decl(sb *out, const char *decl)
{
    for (const char *s = decl; *s; s++) {
        if (*s == '[') {
            int depth = 1;
            while (s[1] && depth) {
                s++;
                depth += *s == '[' ? 1 : *s == ']' ? -1 : 0;
            }
            sb_printf(out, "[*]");
        } else {
            sb_printf(out, "%c", *s);
        }
    }
}

static void call_args(const prog *p, sb *out)
{
    char b[48];
    for (int k = 0; k < p->npar; k++) {
        const param *q = &p->par[k];
        if (k)
            sb_printf(out, ", ");
        if (q->kind == PK_INT)
            sb_printf(out, "%lld", q->ival);
        else if (q->kind == PK_FLOAT)
            sb_printf(out, "%s", fmt_f(b, q->fval));
        else if (q->kind == PK_DOUBLE)
            sb_printf(out, "%.17g", q->fval);
        else
            sb_printf(out, "a[%d]", k);
    }
}

static void write_table(sb *out, prog **progs, int n, const int *group_of, int ngroups, const char *stem,
                        unsigned long long seed)
{
    sb_printf(out,
              "/* difftest_table.c — generated by difftest_gen (seed %llu): the kernels of %s_*.c, their\n"
              " * parameters and tolerances, and a function per kernel that runs its CPU reference\n"
              " * (mode 0) or its GPU launcher (1: default stream, 2: the _stream variant). */\n",
              seed, stem);
    sb_printf(out, "#include \"difftest.h\"\n\n");
    sb_printf(out, "#ifndef DT_HOST_ONLY\n");
    for (int g = 0; g < ngroups; g++)
        sb_printf(out, "#include \"%s_%02d.tile.h\"\n", stem, g);
    sb_printf(out, "#define DT_GPU(call) (call)\n#else\n/* A second CPU build of each kernel, renamed NAME_gpu, stands "
                   "in for the GPU. */\n"
                   "#define DT_GPU(call) ((call), cudaSuccess)\n#endif\n\n");
    for (int i = 0; i < n; i++) {
        const prog *p = progs[i];
        for (int gpu = 0; gpu < 2; gpu++) {
            sb_printf(out, "%svoid %s%s(", gpu ? "#ifdef DT_HOST_ONLY\n" : "", p->name, gpu ? "_gpu" : "");
            for (int k = 0; k < p->npar; k++) {
                sb_printf(out, "%s", k ? ", " : "");
                proto_decl(out, p->par[k].decl);
            }
            sb_printf(out, ");\n%s", gpu ? "#endif\n" : "");
        }
        sb_printf(out, "static cudaError_t run_%s(int mode, void *const *a, cudaStream_t s)\n{\n", p->name);
        sb_printf(out, "    (void)a;\n    (void)s;\n    if (mode == 0) {\n        %s(", p->name);
        call_args(p, out);
        sb_printf(out, ");\n        return cudaSuccess;\n    }\n#ifdef DT_HOST_ONLY\n    return DT_GPU(%s_gpu(",
                  p->name);
        call_args(p, out);
        sb_printf(out, "));\n#else\n    if (mode == 1)\n        return %s_gpu(", p->name);
        call_args(p, out);
        sb_printf(out, ");\n    return %s_gpu_stream(", p->name);
        call_args(p, out);
        sb_printf(out, "%ss);\n#endif\n}\n", p->npar ? ", " : "");
        sb_printf(out, "static const dt_param params_%s[] = {\n", p->name);
        for (int k = 0; k < p->npar; k++) {
            const param *q = &p->par[k];
            sb_printf(out, "    {");
            c_string(out, q->name);
            if (q->kind == PK_INT)
                sb_printf(out, ", DT_SCALAR_INT, %lld, 0.0, DT_I32, DT_IN, DT_FILL_UNIT, 0, 0, 0, 0.0},\n", q->ival);
            else if (q->kind == PK_FLOAT || q->kind == PK_DOUBLE)
                sb_printf(out, ", DT_SCALAR_FLOAT, 0, %.17g, DT_F32, DT_IN, DT_FILL_UNIT, 0, 0, 0, 0.0},\n", q->fval);
            else
                sb_printf(out, ", DT_ARRAY, 0, 0.0, %s, %s, %s, %lld, %lld, %d, %.3g},\n", et_dt[q->et],
                          role_dt[q->role], fill_dt[q->fill], q->fill_arg, q->count, q->offset, q->tol);
        }
        sb_printf(out, "};\n\n");
    }
    sb_printf(out, "const dt_kernel dt_kernels[] = {\n");
    for (int i = 0; i < n; i++) {
        const prog *p = progs[i];
        char file[64];
        snprintf(file, sizeof file, "%s_%02d.c", stem, group_of[i]);
        sb_printf(out, "    {");
        c_string(out, p->name);
        sb_printf(out, ", ");
        c_string(out, p->family);
        sb_printf(out, ", ");
        c_string(out, file);
        sb_printf(out, ", ");
        c_string(out, p->what);
        sb_printf(out, ", %d, params_%s, run_%s},\n", p->npar, p->name, p->name);
    }
    if (n == 0)
        sb_printf(out, "    {0}\n");
    sb_printf(out, "};\nconst int dt_nkernels = %d;\n", n);
    sb_printf(out, "const char dt_generator[] = \"difftest_gen --seed %llu\";\n", seed);
}

/* For the host-only build: NAME -> NAME_gpu for every kernel. */
static void write_rename(sb *out, prog **progs, int n)
{
    sb_printf(out, "/* dt_rename.h — generated by difftest_gen: the second CPU build names each kernel NAME_gpu. */\n");
    for (int i = 0; i < n; i++)
        sb_printf(out, "#define %s %s_gpu\n", progs[i]->name, progs[i]->name);
}

/* ---- files ------------------------------------------------------------------------ */

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "difftest_gen: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    exit(2);
}

/* snprintf for paths: a path that does not fit is an error, never cut short. */
static void xsnprintf(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void xsnprintf(char *out, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= len)
        die("a path or name is too long: %s...", out);
}

static void make_dir(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        die("cannot create %s: %s", path, strerror(errno));
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    sb b = {0};
    if (!f)
        return NULL;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_printf(&b, "%.*s", (int)n, buf);
    fclose(f);
    if (!b.p)
        sb_printf(&b, "%s", "");
    return b.p;
}

/* Writes `text` to `path` unless the file already holds it (so that a build
 * does not compile again what did not change). */
static void write_file(const char *path, const char *text)
{
    char *old = read_file(path);
    int same = old && !strcmp(old, text);
    free(old);
    if (same)
        return;
    FILE *f = fopen(path, "wb");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        die("cannot write %s: %s", path, strerror(errno));
}

static void path_join(char *out, size_t len, const char *a, const char *b) { snprintf(out, len, "%s/%s", a, b); }

/* ---- the programs ------------------------------------------------------------------ */

enum { FAM_EW, FAM_RED, FAM_GRID, FAM_TILE, FAM_GEMM, NFAM };
static const char *const fam_names[] = {"parallel", "reduce", "grid", "tile", "gemm"};
static const int fam_weight[] = {24, 16, 22, 18, 20};
static void (*const fam_fn[])(prog *) = {fam_ew, fam_red, fam_grid, fam_tile, fam_gemm};

static prog *gen_program(unsigned long long seed, int index, unsigned fam_mask)
{
    prog *p = calloc(1, sizeof *p);
    if (!p)
        die("out of memory");
    for (int attempt = 0;; attempt++) {
        sb_free(&p->head);
        sb_free(&p->body);
        for (int k = 0; k < p->ndefs; k++)
            sb_free(&p->def_text[k]);
        memset(p, 0, sizeof *p);
        rng_seed(&p->r, seed, (uint64_t)index * 1000 + (uint64_t)attempt);
        p->seed = seed;
        p->index = index;
        snprintf(p->pfx, sizeof p->pfx, "p%04d", index);
        int w[NFAM], fam;
        for (int f = 0; f < NFAM; f++)
            w[f] = fam_mask & (1u << f) ? fam_weight[f] : 0;
        fam = pickw(p, NFAM, w);
        fam_fn[fam](p);
        snprintf(p->name, sizeof p->name, "%s_%s", p->pfx, fam_names[fam]);
        if (!p->reject) {
            finalize(p);
            return p;
        }
        if (attempt > 200)
            die("program %d: the generator gave up", index);
    }
}

static void prog_free(prog *p)
{
    for (int k = 0; k < p->ndefs; k++)
        sb_free(&p->def_text[k]);
    sb_free(&p->head);
    sb_free(&p->body);
    free(p);
}

/* ---- translating each program -------------------------------------------------------- */

enum { OUT_ACCEPTED, OUT_REFUSED, OUT_FAILED };

typedef struct {
    int outcome;
    char why[512];  /* failures: what happened; refusals: the first message */
    char norm[256]; /* refusals: the message with names and numbers blanked */
    char *err;      /* the translator's stderr */
} result;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int dir_entries(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static void remove_dir_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        char path[1024];
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        path_join(path, sizeof path, dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}

static pid_t spawn_tilepp(const char *tilepp, const char *src, const char *outdir, const char *stem,
                          const char *errfile)
{
    char cu[1024], hdr[1024], dep[1024];
    xsnprintf(cu, sizeof cu, "%s/%s.tile.cu", outdir, stem);
    xsnprintf(hdr, sizeof hdr, "%s/%s.tile.h", outdir, stem);
    xsnprintf(dep, sizeof dep, "%s/%s.tile.d", outdir, stem);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        setpgid(0, 0); /* its own process group: a hung translation is killed whole */
        int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644), null = open("/dev/null", O_WRONLY);
        if (fd < 0 || null < 0)
            _exit(126);
        dup2(null, 1);
        dup2(fd, 2);
        execl(tilepp, tilepp, "-std=c11", "-MD", "-MF", dep, "-o", cu, "--header", hdr, src, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* The located errors of `err` about `file` (its base name): the number of
 * them; the first message goes to `first`. */
static int located_errors_at(const char *err, const char *file, char *first, size_t len, int *lines, int max_lines);

static int located_errors(const char *err, const char *file, char *first, size_t len)
{
    return located_errors_at(err, file, first, len, NULL, 0);
}

/* The same, also giving the line of each (the first max_lines). */
static int located_errors_at(const char *err, const char *file, char *first, size_t len, int *lines, int max_lines)
{
    const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    int n = 0;
    for (const char *line = err; *line;) {
        const char *end = strchr(line, '\n');
        size_t l = end ? (size_t)(end - line) : strlen(line);
        const char *e = strstr(line, ": error: ");
        if (e && (size_t)(e - line) < l) {
            /* PATH:LINE:COL before it */
            const char *q = e;
            int digits2 = 0, digits1 = 0;
            while (q > line && isdigit((unsigned char)q[-1]))
                q--, digits2++;
            if (digits2 && q > line && q[-1] == ':') {
                q--;
                while (q > line && isdigit((unsigned char)q[-1]))
                    q--, digits1++;
            }
            if (digits1 && q > line && q[-1] == ':') {
                size_t plen = (size_t)(q - 1 - line);
                size_t blen = strlen(base);
                if (plen >= blen && !strncmp(q - 1 - blen, base, blen)) {
                    if (lines && n < max_lines)
                        lines[n] = atoi(q);
                    if (n++ == 0) {
                        size_t ml = l - (size_t)(e + 9 - line);
                        snprintf(first, len, "%.*s", (int)ml, e + 9);
                    }
                }
            }
        }
        line += l + (end ? 1 : 0);
    }
    return n;
}

/* A message with its quoted names and its numbers blanked, for grouping. */
static void normalize(const char *msg, char *out, size_t len)
{
    size_t o = 0;
    for (const char *s = msg; *s && o + 4 < len;) {
        if (*s == '\'') {
            const char *e = strchr(s + 1, '\'');
            if (e) {
                o += (size_t)snprintf(out + o, len - o, "'_'");
                s = e + 1;
                continue;
            }
        }
        if (isdigit((unsigned char)*s)) {
            while (isdigit((unsigned char)*s))
                s++;
            out[o++] = '#';
            continue;
        }
        out[o++] = *s++;
    }
    out[o] = '\0';
}

static int sanitizer_report(const char *err)
{
    return strstr(err, "runtime error:") || strstr(err, "AddressSanitizer") || strstr(err, "LeakSanitizer") ||
           strstr(err, "UndefinedBehaviorSanitizer");
}

static void classify(result *r, int status, int timed_out, double timeout, const char *src, const char *outdir,
                     const char *stem, const char *errfile)
{
    char cu[1024], hdr[1024], msg[400] = "";
    r->err = read_file(errfile);
    if (!r->err)
        r->err = calloc(1, 1);
    xsnprintf(cu, sizeof cu, "%s/%s.tile.cu", outdir, stem);
    xsnprintf(hdr, sizeof hdr, "%s/%s.tile.h", outdir, stem);
    r->outcome = OUT_FAILED;
    if (timed_out) {
        snprintf(r->why, sizeof r->why, "hung: killed after %.0f s", timeout);
    } else if (WIFSIGNALED(status)) {
        snprintf(r->why, sizeof r->why, "crashed: signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    } else if (!WIFEXITED(status)) {
        snprintf(r->why, sizeof r->why, "ended abnormally (status %d)", status);
    } else if (sanitizer_report(r->err)) {
        snprintf(r->why, sizeof r->why, "exit %d after a sanitizer report", WEXITSTATUS(status));
    } else if (WEXITSTATUS(status) == 0) {
        struct stat st1, st2;
        if (stat(cu, &st1) != 0 || stat(hdr, &st2) != 0 || st1.st_size == 0 || st2.st_size == 0)
            snprintf(r->why, sizeof r->why, "exit 0 without its outputs (%s.tile.cu and .tile.h)", stem);
        else
            r->outcome = OUT_ACCEPTED;
    } else if (WEXITSTATUS(status) == 1) {
        int n = located_errors(r->err, src, msg, sizeof msg);
        int left = dir_entries(outdir);
        if (n == 0)
            snprintf(r->why, sizeof r->why, "exit 1 without a located 'file:line:col: error:' diagnostic");
        else if (left != 0)
            snprintf(r->why, sizeof r->why, "exit 1 but %d file(s) left in %s", left, outdir);
        else {
            r->outcome = OUT_REFUSED;
            snprintf(r->why, sizeof r->why, "%s", msg);
            normalize(msg, r->norm, sizeof r->norm);
        }
    } else {
        snprintf(r->why, sizeof r->why, "exit status %d (only 0 and 1 are allowed)", WEXITSTATUS(status));
    }
}

typedef struct {
    const char *src; /* the .c */
    char outdir[1024], stem[256], errfile[1024];
    result res;
    pid_t pid;
    double start;
    int done;
} task;

/* Runs the translator over every task, `jobs` at a time. */
static void run_tasks(const char *tilepp, task *t, int n, int jobs, double timeout)
{
    int next = 0, running = 0, finished = 0;
    while (finished < n) {
        while (running < jobs && next < n) {
            task *k = &t[next++];
            make_dir(k->outdir);
            remove_dir_files(k->outdir);
            k->pid = spawn_tilepp(tilepp, k->src, k->outdir, k->stem, k->errfile);
            k->start = now_s();
            running++;
        }
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid > 0) {
            for (int i = 0; i < next; i++)
                if (t[i].pid == pid && !t[i].done) {
                    classify(&t[i].res, status, 0, timeout, t[i].src, t[i].outdir, t[i].stem, t[i].errfile);
                    t[i].done = 1;
                    running--;
                    finished++;
                }
            continue;
        }
        double now = now_s();
        for (int i = 0; i < next; i++)
            if (!t[i].done && now - t[i].start > timeout) {
                kill(-t[i].pid, SIGKILL);
                kill(t[i].pid, SIGKILL);
                waitpid(t[i].pid, &status, 0);
                classify(&t[i].res, status, 1, timeout, t[i].src, t[i].outdir, t[i].stem, t[i].errfile);
                t[i].done = 1;
                running--;
                finished++;
            }
        struct timespec nap = {0, 2000000};
        nanosleep(&nap, NULL);
    }
}

/* Translates the programs many to a file (per_file), as a user's file of
 * kernels and as the GPU build sees them, and alone only where needed: a file
 * that translates settles all its programs; in a refused file the programs
 * the located errors point into are translated alone (where each must be
 * refused again, with its own located errors) and the file is translated
 * again without them; a file that fails otherwise (a crash, a hang, ...) is a
 * failure itself, kept in failures/, and its programs are translated alone.
 * Fills tasks[i].res for every program; returns the number of failed files. */
static int translate_grouped(const char *tilepp, prog **progs, task *tasks, int count, int per_file, int jobs,
                             double timeout, const char *out, sb *summary)
{
    typedef struct {
        int *idx, n;
    } grp;
    grp *gs = calloc((size_t)count + 1, sizeof *gs), *next = calloc((size_t)count + 1, sizeof *next);
    char(*suspect)[512] = calloc((size_t)count + 1, sizeof *suspect); /* refused within a file: the message */
    int ng = 0, nfailed = 0;
    char work[1024], failed_dir[1024];
    path_join(work, sizeof work, out, "work");
    path_join(failed_dir, sizeof failed_dir, out, "failures");
    if (!gs || !next || !suspect)
        die("out of memory");
    for (int i = 0; i < count; i += per_file) {
        gs[ng].n = count - i < per_file ? count - i : per_file;
        gs[ng].idx = malloc((size_t)gs[ng].n * sizeof(int));
        for (int k = 0; k < gs[ng].n; k++)
            gs[ng].idx[k] = i + k;
        ng++;
    }
    for (int round = 0; ng > 0; round++) {
        task *gt = calloc((size_t)ng, sizeof *gt);
        char(*gsrc)[1024] = calloc((size_t)ng, sizeof *gsrc);
        int **starts = calloc((size_t)ng, sizeof *starts);
        int nnext = 0;
        for (int g = 0; g < ng; g++) {
            if (gs[g].n == 1) { /* alone: its own file */
                gt[g] = tasks[gs[g].idx[0]];
                continue;
            }
            sb text = {0};
            int line = 1;
            starts[g] = malloc(((size_t)gs[g].n + 1) * sizeof(int));
            sb_printf(&text,
                      "/* difftest: %d programs translated together (round %d) */\n#include <math.h>\n"
                      "#include <tilepp/tile.h>\n\n",
                      gs[g].n, round);
            for (const char *c = sb_str(&text); *c; c++)
                line += *c == '\n';
            /* the programs, recording the first line of each */
            for (int k = 0; k < gs[g].n; k++) {
                size_t before = text.len;
                starts[g][k] = line;
                prog_text(progs[gs[g].idx[k]], &text, 0);
                sb_printf(&text, "\n");
                for (size_t c = before; c < text.len; c++)
                    line += text.p[c] == '\n';
            }
            starts[g][gs[g].n] = line;
            xsnprintf(gt[g].stem, sizeof gt[g].stem, "file_r%d_%d", round, g);
            xsnprintf(gsrc[g], sizeof gsrc[g], "%s/%s.c", work, gt[g].stem);
            write_file(gsrc[g], sb_str(&text));
            sb_free(&text);
            gt[g].src = gsrc[g];
            xsnprintf(gt[g].outdir, sizeof gt[g].outdir, "%s/%s", work, gt[g].stem);
            xsnprintf(gt[g].errfile, sizeof gt[g].errfile, "%s/%s.err", work, gt[g].stem);
        }
        run_tasks(tilepp, gt, ng, jobs, timeout * 2);
        for (int g = 0; g < ng; g++) {
            result *r = &gt[g].res;
            if (gs[g].n == 1) {
                int m = gs[g].idx[0];
                tasks[m].res = *r;
                if (suspect[m][0] && r->outcome == OUT_ACCEPTED) {
                    tasks[m].res.outcome = OUT_FAILED;
                    xsnprintf(tasks[m].res.why, sizeof tasks[m].res.why,
                              "refused inside a file of programs (%s) but translates alone", suspect[m]);
                }
                free(gs[g].idx);
                continue;
            }
            if (r->outcome == OUT_ACCEPTED) {
                for (int k = 0; k < gs[g].n; k++) {
                    int m = gs[g].idx[k];
                    tasks[m].res.outcome = OUT_ACCEPTED;
                    tasks[m].res.err = calloc(1, 1);
                }
                remove_dir_files(gt[g].outdir);
                rmdir(gt[g].outdir);
                unlink(gt[g].errfile);
                unlink(gsrc[g]);
                free(gs[g].idx);
                free(r->err);
            } else {
                int lines[64], nl = 0;
                char first[400];
                if (r->outcome == OUT_REFUSED)
                    nl = located_errors_at(r->err, gsrc[g], first, sizeof first, lines, 64);
                else {
                    /* a failed file is a failure in itself */
                    char buf[1024];
                    sb text = {0};
                    make_dir(failed_dir);
                    xsnprintf(buf, sizeof buf, "%s/%s.c", failed_dir, gt[g].stem);
                    char *src = read_file(gsrc[g]);
                    write_file(buf, src ? src : "");
                    free(src);
                    sb_printf(&text, "%s\n--- stderr ---\n%s", r->why, r->err);
                    xsnprintf(buf, sizeof buf, "%s/%s.txt", failed_dir, gt[g].stem);
                    write_file(buf, sb_str(&text));
                    sb_free(&text);
                    sb_printf(summary, "FAILED a file of %d programs: %s (kept in %s/%s.c); its programs go alone\n",
                              gs[g].n, r->why, failed_dir, gt[g].stem);
                    nfailed++;
                }
                int *hit = calloc((size_t)gs[g].n, sizeof *hit), any = 0;
                for (int e = 0; e < nl && e < 64; e++)
                    for (int k = 0; k < gs[g].n; k++)
                        if (lines[e] >= starts[g][k] && lines[e] < starts[g][k + 1]) {
                            hit[k] = any = 1;
                            int m = gs[g].idx[k];
                            if (!suspect[m][0])
                                xsnprintf(suspect[m], sizeof suspect[m], "%.400s", first);
                        }
                /* alone: the programs hit (all, when none could be told) */
                grp rest = {malloc((size_t)gs[g].n * sizeof(int)), 0};
                for (int k = 0; k < gs[g].n; k++) {
                    int m = gs[g].idx[k];
                    if (hit[k] || !any) {
                        next[nnext].idx = malloc(sizeof(int));
                        next[nnext].idx[0] = m;
                        next[nnext++].n = 1;
                    } else {
                        rest.idx[rest.n++] = m;
                    }
                }
                if (rest.n)
                    next[nnext++] = rest;
                else
                    free(rest.idx);
                free(hit);
                free(gs[g].idx);
                if (r->outcome == OUT_REFUSED) {
                    remove_dir_files(gt[g].outdir);
                    rmdir(gt[g].outdir);
                    unlink(gt[g].errfile);
                    unlink(gsrc[g]);
                }
                free(r->err);
            }
        }
        for (int g = 0; g < ng; g++)
            free(starts[g]);
        free(starts);
        free(gt);
        free(gsrc);
        grp *t = gs;
        gs = next;
        next = t;
        ng = nnext;
    }
    free(gs);
    free(next);
    free(suspect);
    return nfailed;
}

/* ---- main ----------------------------------------------------------------------------- */

static void usage(void)
{
    fprintf(stderr,
            "usage: difftest_gen --out DIR [--seed S] [--count N] [--first F] [--per-file K | --groups G]\n"
            "                    [--tilepp PATH [--jobs J] [--timeout SECONDS] [--keep] [--single]] [--family LIST]\n"
            "                    [--stem NAME] [--f16-arith]\n"
            "  --family LIST   comma-separated: parallel, reduce, grid, tile, gemm (default: all)\n");
    exit(2);
}

typedef struct {
    char norm[256];
    char example[64];
    char first[512];
    int count;
} reason;

int main(int argc, char **argv)
{
    unsigned long long seed = 1;
    int count = 100, first = 0, per_file = 25, groups = 0, jobs = 2, keep = 0, single = 0;
    double timeout = 60;
    const char *out = NULL, *tilepp = NULL, *stem = "dt_group";
    unsigned fam_mask = (1u << NFAM) - 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define ARG(name) (!strcmp(a, name) && (v ? (i++, 1) : (usage(), 0)))
        if (ARG("--seed"))
            seed = strtoull(v, NULL, 0);
        else if (ARG("--count"))
            count = atoi(v);
        else if (ARG("--first"))
            first = atoi(v);
        else if (ARG("--out"))
            out = v;
        else if (ARG("--per-file"))
            per_file = atoi(v);
        else if (ARG("--groups"))
            groups = atoi(v);
        else if (ARG("--tilepp"))
            tilepp = v;
        else if (ARG("--jobs"))
            jobs = atoi(v);
        else if (ARG("--timeout"))
            timeout = atof(v);
        else if (ARG("--stem"))
            stem = v;
        else if (ARG("--family")) {
            fam_mask = 0;
            char buf[256];
            snprintf(buf, sizeof buf, "%s", v);
            for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
                int f = 0;
                while (f < NFAM && strcmp(tok, fam_names[f]))
                    f++;
                if (f == NFAM)
                    die("unknown family '%s'", tok);
                fam_mask |= 1u << f;
            }
        } else if (!strcmp(a, "--keep"))
            keep = 1;
        else if (!strcmp(a, "--single"))
            single = 1;
        else if (!strcmp(a, "--f16-arith"))
            g_f16_arith = 1;
        else
            usage();
#undef ARG
    }
    if (!out || count < 0 || first < 0 || per_file < 1 || groups < 0 || jobs < 1 || timeout <= 0)
        usage();
    make_dir(out);

    prog **progs = calloc((size_t)count + 1, sizeof *progs);
    int *ok = calloc((size_t)count + 1, sizeof *ok);
    task *tasks = calloc((size_t)count + 1, sizeof *tasks);
    char(*srcs)[1024] = calloc((size_t)count + 1, sizeof *srcs);
    if (!progs || !ok || !tasks || !srcs)
        die("out of memory");
    for (int i = 0; i < count; i++) {
        progs[i] = gen_program(seed, first + i, fam_mask);
        ok[i] = 1;
    }

    sb summary = {0};
    int failures = 0;
    sb_printf(&summary, "difftest_gen --seed %llu --first %d --count %d\n", seed, first, count);
    if (tilepp) {
        char dir[1024], work[1024], buf[1024];
        path_join(dir, sizeof dir, out, "single");
        path_join(work, sizeof work, out, "work");
        make_dir(dir);
        make_dir(work);
        for (int i = 0; i < count; i++) {
            sb text = {0};
            prog_text(progs[i], &text, 1);
            xsnprintf(srcs[i], sizeof srcs[i], "%s/%s.c", dir, progs[i]->name);
            write_file(srcs[i], sb_str(&text));
            sb_free(&text);
            tasks[i].src = srcs[i];
            xsnprintf(tasks[i].outdir, sizeof tasks[i].outdir, "%s/%s", work, progs[i]->name);
            xsnprintf(tasks[i].stem, sizeof tasks[i].stem, "%s", progs[i]->name);
            xsnprintf(tasks[i].errfile, sizeof tasks[i].errfile, "%s/%s.err", work, progs[i]->name);
        }
        double t0 = now_s();
        if (single)
            run_tasks(tilepp, tasks, count, jobs, timeout);
        else
            failures += translate_grouped(tilepp, progs, tasks, count, per_file, jobs, timeout, out, &summary);
        double elapsed = now_s() - t0;

        /* buckets */
        char refused_dir[1024], failed_dir[1024];
        path_join(refused_dir, sizeof refused_dir, out, "refused");
        path_join(failed_dir, sizeof failed_dir, out, "failures");
        make_dir(refused_dir);
        remove_dir_files(refused_dir);
        int counts[NFAM][3] = {{0}};
        reason *reasons = calloc((size_t)count + 1, sizeof *reasons);
        int nreasons = 0;
        sb refused_all = {0};
        sb_printf(
            &refused_all,
            "/* The programs the translator refused (their diagnostics: refused/NAME.err), for the C compiler. */\n"
            "#include <math.h>\n#include <tilepp/tile.h>\n\n");
        for (int i = 0; i < count; i++) {
            result *r = &tasks[i].res;
            int f = 0;
            while (strcmp(fam_names[f], progs[i]->family) && f < NFAM - 1)
                f++;
            counts[f][r->outcome]++;
            ok[i] = r->outcome == OUT_ACCEPTED;
            if (r->outcome == OUT_REFUSED) {
                sb text = {0};
                prog_text(progs[i], &text, 1);
                xsnprintf(buf, sizeof buf, "%s/%s.c", refused_dir, progs[i]->name);
                write_file(buf, sb_str(&text));
                xsnprintf(buf, sizeof buf, "%s/%s.err", refused_dir, progs[i]->name);
                write_file(buf, r->err);
                sb_free(&text);
                prog_text(progs[i], &refused_all, 0);
                sb_printf(&refused_all, "\n");
                int k = 0;
                while (k < nreasons && strcmp(reasons[k].norm, r->norm))
                    k++;
                if (k == nreasons) {
                    xsnprintf(reasons[k].norm, sizeof reasons[k].norm, "%s", r->norm);
                    xsnprintf(reasons[k].example, sizeof reasons[k].example, "%s", progs[i]->name);
                    xsnprintf(reasons[k].first, sizeof reasons[k].first, "%s", r->why);
                    nreasons++;
                }
                reasons[k].count++;
            } else if (r->outcome == OUT_FAILED) {
                sb text = {0};
                make_dir(failed_dir);
                prog_text(progs[i], &text, 1);
                xsnprintf(buf, sizeof buf, "%s/%s.c", failed_dir, progs[i]->name);
                write_file(buf, sb_str(&text));
                sb_free(&text);
                sb_printf(&text, "%s\n--- stderr ---\n%s", r->why, r->err);
                xsnprintf(buf, sizeof buf, "%s/%s.txt", failed_dir, progs[i]->name);
                write_file(buf, sb_str(&text));
                sb_free(&text);
                failures++;
            } else if (!keep) {
                remove_dir_files(tasks[i].outdir);
            }
            if (r->outcome != OUT_FAILED)
                rmdir(tasks[i].outdir), unlink(tasks[i].errfile);
        }
        path_join(buf, sizeof buf, out, "refused_all.c");
        write_file(buf, sb_str(&refused_all));
        sb_free(&refused_all);

        int total[3] = {0};
        sb_printf(&summary, "translated %s with %s (%d at a time): %.1f s\n\n",
                  single ? "one program a file" : "the programs in files, alone where a file was refused", tilepp, jobs,
                  elapsed);
        sb_printf(&summary, "%-10s %9s %11s %8s %7s\n", "family", "programs", "translated", "refused", "failed");
        for (int f = 0; f < NFAM; f++) {
            int all = counts[f][0] + counts[f][1] + counts[f][2];
            sb_printf(&summary, "%-10s %9d %11d %8d %7d\n", fam_names[f], all, counts[f][0], counts[f][1],
                      counts[f][2]);
            for (int k = 0; k < 3; k++)
                total[k] += counts[f][k];
        }
        sb_printf(&summary, "%-10s %9d %11d %8d %7d\n", "total", count, total[0], total[1], total[2]);
        if (nreasons) {
            sb_printf(&summary, "\nrefusals by message (count, example, first message):\n");
            for (int k = 0; k < nreasons; k++)
                sb_printf(&summary, "%5d  %-18s %s\n", reasons[k].count, reasons[k].example, reasons[k].first);
        }
        for (int i = 0; i < count; i++)
            if (tasks[i].res.outcome == OUT_FAILED)
                sb_printf(&summary, "FAILED %s: %s (kept in %s/%s.c)\n", progs[i]->name, tasks[i].res.why, failed_dir,
                          progs[i]->name);
        for (int i = 0; i < count; i++)
            free(tasks[i].res.err);
        free(reasons);
    }

    /* the group files and the table */
    prog **acc = calloc((size_t)count + 1, sizeof *acc);
    int *group_of = calloc((size_t)count + 1, sizeof *group_of);
    int na = 0;
    for (int i = 0; i < count; i++)
        if (ok[i])
            acc[na++] = progs[i];
    int ng = groups ? groups : (na + per_file - 1) / per_file;
    if (ng < 1)
        ng = 1;
    if (na < ng)
        fprintf(stderr, "difftest_gen: warning: %d programs for %d files; some files hold no kernel\n", na, ng);
    for (int g = 0; g < ng; g++) {
        sb text = {0};
        char path[1024], name[300];
        int lo = (int)((long long)g * na / ng), hi = (int)((long long)(g + 1) * na / ng);
        sb_printf(&text,
                  "/* %s_%02d.c — generated by difftest_gen --seed %llu: %d random programs in the tile\n"
                  " * language (tests/difftest/README.md). Each kernel is its own CPU reference. */\n"
                  "#include <math.h>\n#include <tilepp/tile.h>\n\n",
                  stem, g, seed, hi - lo);
        if (lo == hi) /* a file must hold a kernel: an empty one */
            sb_printf(&text,
                      "#pragma tile kernel\nvoid %s_%02d_empty(int n, float *y)\n{\n#pragma tile parallel\n"
                      "    for (int i = 0; i < n; i++)\n        y[i] = 0.0f;\n}\n",
                      stem, g);
        for (int i = lo; i < hi; i++) {
            group_of[i] = g;
            prog_text(acc[i], &text, 0);
            sb_printf(&text, "\n");
        }
        xsnprintf(name, sizeof name, "%s_%02d.c", stem, g);
        path_join(path, sizeof path, out, name);
        write_file(path, sb_str(&text));
        sb_free(&text);
    }
    {
        sb text = {0};
        char path[1024];
        write_table(&text, acc, na, group_of, ng, stem, seed);
        path_join(path, sizeof path, out, "difftest_table.c");
        write_file(path, sb_str(&text));
        sb_free(&text);
        write_rename(&text, acc, na);
        path_join(path, sizeof path, out, "dt_rename.h");
        write_file(path, sb_str(&text));
        sb_free(&text);
    }
    sb_printf(&summary, "\n%d programs in %d files %s_NN.c, listed in difftest_table.c\n", na, ng, stem);

    if (tilepp) { /* the files as the GPU build translates them */
        task *gt = calloc((size_t)ng, sizeof *gt);
        char(*gsrc)[1024] = calloc((size_t)ng, sizeof *gsrc);
        char work[1024];
        path_join(work, sizeof work, out, "work");
        for (int g = 0; g < ng; g++) {
            xsnprintf(gsrc[g], sizeof gsrc[g], "%s/%s_%02d.c", out, stem, g);
            gt[g].src = gsrc[g];
            xsnprintf(gt[g].stem, sizeof gt[g].stem, "%s_%02d", stem, g);
            xsnprintf(gt[g].outdir, sizeof gt[g].outdir, "%s/%s", work, gt[g].stem);
            xsnprintf(gt[g].errfile, sizeof gt[g].errfile, "%s/%s.err", work, gt[g].stem);
        }
        run_tasks(tilepp, gt, ng, jobs, timeout * 4);
        for (int g = 0; g < ng; g++) {
            if (gt[g].res.outcome != OUT_ACCEPTED) {
                failures++;
                sb_printf(&summary, "FAILED %s: each of its programs translates alone, the file does not: %s\n%s",
                          gsrc[g], gt[g].res.why, gt[g].res.err);
            } else {
                if (!keep)
                    remove_dir_files(gt[g].outdir);
                rmdir(gt[g].outdir);
                unlink(gt[g].errfile);
            }
            free(gt[g].res.err);
        }
        free(gt);
        free(gsrc);
    }

    char path[1024];
    path_join(path, sizeof path, out, "summary.txt");
    write_file(path, sb_str(&summary));
    fputs(sb_str(&summary), stdout);
    sb_free(&summary);
    for (int i = 0; i < count; i++)
        prog_free(progs[i]);
    free(progs);
    free(ok);
    free(tasks);
    free(srcs);
    free(acc);
    free(group_of);
    return failures ? 1 : 0;
}

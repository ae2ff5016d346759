/* test_tune.c — `#pragma tile tune`: the space the builder records
 * (build_tune.c) and its expansion into points, each a translation of the
 * rewritten file, pruned with its reason when refused (tune.c). */
#include <string.h>

#include "tune.h"
#include "unit.h"

static const ParseOptions parse_options = {
    .path = UNIT_FILE, .args = NULL, .nargs = 0, .include_dir = TILEPP_TEST_INCLUDE_DIR, .unsaved_text = NULL};

/* The points of the first tuned kernel of src. */
static TunedKernel *expand(const char *src)
{
    IrModule *m = unit_build(src);
    assert_non_null(m);
    const IrKernel *k = NULL;
    for (int i = 0; i < m->kernels.len && !k; i++)
        if (((const IrKernel *)m->kernels.items[i])->tune)
            k = m->kernels.items[i];
    assert_non_null(k);
    TuneContext ctx = {&parse_options, src, strlen(src), ARCH_SM80 | ARCH_SM90A, false};
    return tune_expand(&ctx, k);
}

static const char three_kinds[] = "#include <tilepp/tile.h>\n"
                                  "#define VEC 4\n"
                                  "enum { LO = -3, THREADS = 256 };\n"
                                  "static const int UNROLL = 2;\n"
                                  "#pragma tile kernel threads(THREADS)\n"
                                  "#pragma tile tune VEC(2, 4) THREADS(48, 128) UNROLL(1, 2, 3)\n"
                                  "void f(int n, float y[n])\n"
                                  "{\n"
                                  "#pragma tile parallel vector(VEC)\n"
                                  "    for (int i = 0; i < n; i++)\n"
                                  "        y[i] = (float)(UNROLL + LO);\n"
                                  "}\n";

/* The space: each name's values, the file's own value, and the bytes of its
 * definition that a point rewrites. */
static void test_space_recorded(void **state)
{
    (void)state;
    IrModule *m = unit_build(three_kinds);
    assert_non_null(m);
    const IrTune *t = unit_kernel(m, "f")->tune;
    assert_non_null(t);
    assert_int_equal(t->nparams, 3);
    assert_int_equal(t->npoints, 12);
    const char *want_text[] = {"4", "256", "2"};
    const long long want_source[] = {4, 256, 2};
    for (int i = 0; i < 3; i++) {
        const IrTuneParam *p = &t->params[i];
        assert_int_equal(p->source_value, want_source[i]);
        assert_int_equal(p->def_end - p->def_begin, strlen(want_text[i]));
        assert_memory_equal(three_kinds + p->def_begin, want_text[i], strlen(want_text[i]));
    }
    assert_string_equal(t->params[2].name, "UNROLL");
    assert_int_equal(t->params[2].nvalues, 3);
    assert_int_equal(t->params[2].values[2], 3);
}

/* Points in row-major order (the last name fastest), the threads(48)
 * points pruned with the threads clause's error, the others translated, the
 * source point found. */
static void test_points_and_pruning(void **state)
{
    (void)state;
    TunedKernel *tk = expand(three_kinds);
    assert_int_equal(tk->npoints, 12);
    assert_string_equal(tk->points[0].name, "VEC=2,THREADS=48,UNROLL=1");
    assert_string_equal(tk->points[1].name, "VEC=2,THREADS=48,UNROLL=2");
    assert_string_equal(tk->points[3].name, "VEC=2,THREADS=128,UNROLL=1");
    assert_string_equal(tk->points[11].name, "VEC=4,THREADS=128,UNROLL=3");
    assert_int_equal(tk->nvalid, 6);
    for (int i = 0; i < 12; i++) {
        bool pruned = strstr(tk->points[i].name, "THREADS=48") != NULL;
        assert_int_equal(tk->points[i].plan == NULL, pruned);
        if (pruned)
            assert_non_null(strstr(tk->points[i].pruned, "threads(48) must be a multiple of 32"));
    }
    assert_int_equal(tk->source_point, -1); /* THREADS=256 is not in the space */
    assert_int_equal(strlen(tk->key), 16);
    /* each point's kernel was lowered with its own values */
    const KernelPlan *kp = tk->points[3].plan->kernels.items[0];
    assert_int_equal(kp->k->threads, 128);
    const ParallelPlan *pp = kp->parallels.items[0];
    assert_int_equal(pp->par->vector, 2);
    /* a point's diagnostics were captured: none reached the test's stream */
    assert_string_equal(unit_diag(), "");
}

/* An enum constant without an initializer gets one; a negative value is
 * parenthesized; the point with the file's values is found. */
static void test_rewriting(void **state)
{
    (void)state;
    static const char src[] = "#include <tilepp/tile.h>\n"
                              "enum { A, SHIFT };\n"
                              "#pragma tile kernel\n"
                              "#pragma tile tune SHIFT(1, -2)\n"
                              "void f(int n, float y[n])\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; i++)\n"
                              "        y[i] = (float)(A - SHIFT);\n"
                              "}\n";
    TunedKernel *tk = expand(src);
    assert_int_equal(tk->nvalid, 2);
    assert_int_equal(tk->source_point, 0);
    const IrTuneParam *p = &tk->k->tune->params[0];
    assert_true(p->insert_eq);
    assert_int_equal(p->source_value, 1);
    const IrModule *m1 = tk->points[1].plan->m;
    const IrKernel *k1 = m1->kernels.items[0];
    assert_non_null(k1);
    bool found = false; /* the rewritten enum is in the point's prelude */
    for (int i = 0; i < m1->prelude.len; i++)
        found |= strstr(((const IrPrelude *)m1->prelude.items[i])->text, "SHIFT = (-2)") != NULL;
    assert_true(found);
}

/* Another file text, or the same kernel in another space, is another key:
 * a cached choice never outlives the code it was made for. */
static void test_key(void **state)
{
    (void)state;
    TunedKernel *a = expand(three_kinds);
    char *changed = astrdup(three_kinds);
    *strstr(changed, "+ LO") = '-'; /* UNROLL - LO */
    TunedKernel *b = expand(changed);
    TunedKernel *again = expand(three_kinds);
    assert_string_not_equal(a->key, b->key);
    assert_string_equal(a->key, again->key);
}

/* Every point refused: no valid point (the driver then refuses the file). */
static void test_every_point_refused(void **state)
{
    (void)state;
    static const char src[] = "#include <tilepp/tile.h>\n"
                              "enum { T = 64 };\n"
                              "#pragma tile kernel threads(T)\n"
                              "#pragma tile tune T(40, 72)\n"
                              "void f(int n, float y[n])\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; i++)\n"
                              "        y[i] = 1.0f;\n"
                              "}\n";
    TunedKernel *tk = expand(src);
    assert_int_equal(tk->nvalid, 0);
    assert_non_null(strstr(tk->points[0].said, "threads(40)"));
    assert_int_equal(tk->points[0].said_errors, 1);
}

/* With sm_80 and sm_90a asked for, a point refused for sm_80 alone (more
 * shared memory than its 163 KB, within Hopper's 227 KB) is translated for
 * sm_90a and kept, with sm_80's reason; one refused for both is pruned. */
static void test_sm90a_only_point(void **state)
{
    (void)state;
    static const char src[] = "#include <tilepp/tile.h>\n"
                              "enum { R = 256 };\n"
                              "#pragma tile kernel threads(256)\n"
                              "#pragma tile tune R(256, 384, 512)\n"
                              "void f(int n, const half x[n][256], half y[n][256])\n"
                              "{\n"
                              "#pragma tile grid\n"
                              "    for (int b = 0; b < tile_cdiv(n, R); b++) {\n"
                              "#pragma tile shared\n"
                              "        half Ts[R][256];\n"
                              "        tile_load(Ts, x, b * R, 0, n, 256);\n"
                              "        tile_store(y, Ts, b * R, 0, n, 256);\n"
                              "    }\n"
                              "}\n";
    TunedKernel *tk = expand(src);
    assert_int_equal(tk->nvalid, 2);
    assert_non_null(tk->points[0].plan); /* 128 KB: both */
    assert_null(tk->points[0].sm90a_only);
    assert_non_null(tk->points[1].plan); /* 192 KB: Hopper's only */
    assert_non_null(tk->points[1].sm90a_only);
    assert_non_null(strstr(tk->points[1].sm90a_only, "196608 bytes of shared memory"));
    assert_non_null(strstr(tk->points[1].sm90a_only, "on sm_80"));
    assert_null(tk->points[2].plan); /* 256 KB: neither, and the reason is Hopper's */
    assert_non_null(strstr(tk->points[2].pruned, "262144 bytes of shared memory"));
    assert_non_null(strstr(tk->points[2].pruned, "on sm_90a"));
    assert_string_equal(unit_diag(), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_space_recorded),      UNIT_TEST(test_points_and_pruning),
        UNIT_TEST(test_rewriting),           UNIT_TEST(test_key),
        UNIT_TEST(test_every_point_refused), UNIT_TEST(test_sm90a_only_point),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

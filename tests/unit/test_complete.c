/* test_complete.c — the completeness invariant (complete.c): every statement
 * of a kernel reaches the IR, every `#pragma tile` is honoured by exactly one
 * IR node, every kernel launches something. The builder keeps it on every
 * input it accepts, so these tests break a module it built and check that
 * check_complete finds each kind of damage, at the right place. */
#include "unit.h"

#include <string.h>

static const char gemm_src[] =
    "#include <tilepp/tile.h>\n"
    "#pragma tile kernel threads(128)\n"
    "void g(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N], float *y)\n"
    "{\n"
    "    int tiles = tile_cdiv(M, 64);\n"
    "#pragma tile grid\n"
    "    for (int by = 0; by < tiles; by++)\n"
    "        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {\n"
    "#pragma tile shared\n"
    "            half As[64][32], Bs[32][64];\n"
    "#pragma tile fragment\n"
    "            float Cf[64][64];\n"
    "            tile_clear(Cf);\n"
    "#pragma tile pipelined stages(2)\n"
    "            for (int k = 0; k < tile_cdiv(K, 32); k++) {\n"
    "                tile_load(As, A, by * 64, k * 32, M, K);\n"
    "                tile_load(Bs, B, k * 32, bx * 64, K, N);\n"
    "                tile_gemm(As, Bs, Cf);\n"
    "            }\n"
    "            tile_store(C, Cf, by * 64, bx * 64, M, N);\n"
    "        }\n"
    "#pragma tile parallel\n"
    "    for (int i = 0; i < M; i++) {\n"
    "#pragma tile local\n"
    "        float t[2];\n"
    "        t[0] = 1.0f;\n"
    "        t[1] = 2.0f;\n"
    "        y[i] = t[0] + t[1];\n"
    "    }\n"
    "}\n";

typedef struct Built {
    FrontEnd *fe;
    IrModule *m;
    IrKernel *k;
} Built;

static Built build(const char *src)
{
    Built b;
    b.fe = unit_parse(src);
    assert_non_null(b.fe);
    b.m = build_ir(b.fe);
    assert_non_null(b.m);
    assert_int_equal(diag_error_count(), 0);
    b.k = b.m->kernels.items[0];
    return b;
}

static IrStmt *stmt_of_kind(const Vec *v, IrStmtKind kind)
{
    for (int i = 0; i < v->len; i++)
        if (((IrStmt *)v->items[i])->kind == kind)
            return v->items[i];
    fail_msg("no statement of kind %d", (int)kind);
    return NULL;
}

static void remove_item(Vec *v, const void *item)
{
    for (int i = 0; i < v->len; i++)
        if (v->items[i] == item) {
            memmove(v->items + i, v->items + i + 1, (size_t)(v->len - i - 1) * sizeof *v->items);
            v->len--;
            return;
        }
    fail_msg("item not in the vector");
}

static const char *reached_nothing = "internal error: this statement reached no part of the translation; tilepp "
                                     "would have dropped it silently (please report this bug)";

static void expect_internal(int line, int col, const char *what)
{
    char want[512];
    snprintf(want, sizeof want, UNIT_FILE ":%d:%d: error: %s", line, col, what);
    if (!unit_diag_has_line(want))
        fail_msg("missing '%s' in:\n%s", want, unit_diag());
}

static void complete_module_passes(void **state)
{
    (void)state;
    Built b = build(gemm_src);
    assert_true(check_complete(b.fe, b.m));
    assert_string_equal(unit_diag(), "");
}

static void dropped_tile_op_in_pipeline(void **state)
{
    (void)state;
    Built b = build(gemm_src);
    IrGrid *g = stmt_of_kind(&b.k->stmts, STMT_GRID)->grid;
    IrPipelined *pipe = stmt_of_kind(&g->body, STMT_PIPELINED)->pipe;
    remove_item(&pipe->body, stmt_of_kind(&pipe->body, STMT_TILE_OP)); /* the first load */
    assert_false(check_complete(b.fe, b.m));
    expect_internal(16, 17, reached_nothing);
    assert_int_equal(diag_error_count(), 1);
}

static void dropped_statement_of_grid_block(void **state)
{
    (void)state;
    Built b = build(gemm_src);
    IrGrid *g = stmt_of_kind(&b.k->stmts, STMT_GRID)->grid;
    IrStmt *clear = stmt_of_kind(&g->body, STMT_TILE_OP);
    remove_item(&g->body, clear);
    assert_false(check_complete(b.fe, b.m));
    expect_internal(13, 13, reached_nothing);
}

/* A tile declaration gone: its statement and its pragma are both missing. */
static void dropped_tile_declaration(void **state)
{
    (void)state;
    Built b = build(gemm_src);
    IrGrid *g = stmt_of_kind(&b.k->stmts, STMT_GRID)->grid;
    while (g->body.len && ((IrStmt *)g->body.items[0])->kind == STMT_TILE_DECL &&
           strcmp(((IrStmt *)g->body.items[0])->tile->name, "Cf") != 0)
        remove_item(&g->body, g->body.items[0]); /* As and Bs: one source statement */
    assert_false(check_complete(b.fe, b.m));
    expect_internal(10, 13, reached_nothing);
    expect_internal(9, 1,
                    "internal error: this pragma reached no part of the translation; tilepp would have "
                    "dropped it silently (please report this bug)");
    assert_int_equal(diag_error_count(), 2);
}

/* The issue that made this check: a grid missing from its kernel. */
static void dropped_grid(void **state)
{
    (void)state;
    Built b = build(gemm_src);
    remove_item(&b.k->stmts, stmt_of_kind(&b.k->stmts, STMT_GRID));
    assert_false(check_complete(b.fe, b.m));
    expect_internal(7, 5, reached_nothing);
    /* the pragmas of the grid and of what its block holds: none honoured */
    int lines[] = {6, 9, 11, 14};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        expect_internal(lines[i], 1,
                        "internal error: this pragma reached no part of the translation; tilepp would have dropped "
                        "it silently (please report this bug)");
}

static void kernel_that_launches_nothing(void **state)
{
    (void)state;
    Built b = build(gemm_src);
    b.k->stmts.len = 1; /* only the declaration of `tiles` */
    assert_false(check_complete(b.fe, b.m));
    expect_internal(3, 6,
                    "internal error: this kernel launches nothing; tilepp would have dropped it silently "
                    "(please report this bug)");
}

static void local_pragma_not_honoured(void **state)
{
    (void)state;
    Built b = build(gemm_src);
    IrStmt *par = stmt_of_kind(&b.k->stmts, STMT_PARALLEL);
    assert_int_equal(par->par->inner_pragmas.len, 1);
    par->par->inner_pragmas.len = 0;
    assert_false(check_complete(b.fe, b.m));
    expect_internal(24, 1,
                    "internal error: this pragma reached no part of the translation; tilepp would have "
                    "dropped it silently (please report this bug)");
    assert_int_equal(diag_error_count(), 1);
}

static void pragma_honoured_twice(void **state)
{
    (void)state;
    Built b = build(gemm_src);
    IrStmt *par = stmt_of_kind(&b.k->stmts, STMT_PARALLEL);
    IrGrid *g = stmt_of_kind(&b.k->stmts, STMT_GRID)->grid;
    IrStmt *clear = stmt_of_kind(&g->body, STMT_TILE_OP);
    clear->pragma = par->pragma; /* the parallel pragma, claimed by a second statement */
    assert_false(check_complete(b.fe, b.m));
    expect_internal(22, 1,
                    "internal error: this pragma was honoured twice; tilepp would have dropped it silently "
                    "(please report this bug)");
}

/* The local pragma inside a parallel body becomes a comment in the code
 * text: CUDA would warn about a pragma it does not know. */
static void local_pragma_commented_out(void **state)
{
    (void)state;
    Built b = build(gemm_src);
    const IrParallel *par = stmt_of_kind(&b.k->stmts, STMT_PARALLEL)->par;
    Str text = {0};
    for (int i = 0; i < par->body->nsegs; i++)
        if (par->body->segs[i].kind == SEG_TEXT)
            str_add(&text, par->body->segs[i].text);
    assert_non_null(strstr(str_cstr(&text), "// #pragma tile local\n"));
    assert_int_equal(unit_count(str_cstr(&text), "#pragma"), 1);
    str_free(&text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(complete_module_passes),
        UNIT_TEST(dropped_tile_op_in_pipeline),
        UNIT_TEST(dropped_statement_of_grid_block),
        UNIT_TEST(dropped_tile_declaration),
        UNIT_TEST(dropped_grid),
        UNIT_TEST(kernel_that_launches_nothing),
        UNIT_TEST(local_pragma_not_honoured),
        UNIT_TEST(pragma_honoured_twice),
        UNIT_TEST(local_pragma_commented_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

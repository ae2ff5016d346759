/* test_block.c — block statements and reductions: what build_body.c and
 * build_loop.c make of reduce(...) clauses and their updates, and what
 * lower_block.c decides (barriers between a block's statements, registers
 * kept between its loops, kernel variants per group count and team), and the slots of
 * reductions over the grid (lower.c). */
#include "unit.h"

#include <string.h>

/* A kernel with one grid over rows whose block is `block` (lines 6..). */
static const char *row_kernel(const char *block)
{
    return aprintf("#include <math.h>\n"                /* 1 */
                   "#include <tilepp/tile.h>\n"         /* 2 */
                   "#pragma tile kernel threads(128)\n" /* 3 */
                   "void k(int rows, int cols, const float x[rows][cols], float y[rows][cols], float out[rows])\n"
                   "{\n"                                    /* 5 */
                   "#pragma tile grid\n"                    /* 6 */
                   "    for (int r = 0; r < rows; r++) {\n" /* 7 */
                   "%s"                                     /* 8.. */
                   "    }\n"
                   "}\n",
                   block);
}

static const IrParallel *nth_block_parallel(const IrGrid *g, int n)
{
    for (int i = 0; i < g->body.len; i++) {
        const IrStmt *s = g->body.items[i];
        if (s->kind == STMT_PARALLEL && n-- == 0)
            return s->par;
    }
    fail_msg("no parallel loop %d in the block", n);
    return NULL;
}

static const IrReduce *only_reduce(const IrParallel *par)
{
    assert_int_equal(par->reduces.len, 1);
    return par->reduces.items[0];
}

/* Every spelling of an update the language takes, with the operator it is. */
static void update_forms(void **state)
{
    (void)state;
    static const struct {
        const char *clause, *update;
        IrReduceOp op;
    } forms[] = {
        {"+", "s += x[r][c];", RED_SUM},
        {"+", "s -= x[r][c];", RED_SUM},
        {"+", "s = s + x[r][c];", RED_SUM},
        {"+", "s = x[r][c] + s;", RED_SUM},
        {"+", "s = s - x[r][c];", RED_SUM},
        {"+", "s++;", RED_SUM},
        {"*", "s *= x[r][c];", RED_PROD},
        {"max", "s = fmaxf(s, x[r][c]);", RED_MAX},
        {"max", "s = fmaxf(x[r][c], s);", RED_MAX},
        {"max", "s = s > x[r][c] ? s : x[r][c];", RED_MAX},
        {"max", "s = x[r][c] < s ? s : x[r][c];", RED_MAX},
        {"max", "s = tile_max(s, x[r][c]);", RED_MAX},
        {"min", "s = s < x[r][c] ? s : x[r][c];", RED_MIN},
        {"min", "s = s > x[r][c] ? x[r][c] : s;", RED_MIN},
        {"min", "s = fminf(x[r][c], s);", RED_MIN},
        {"min", "s = tile_min(x[r][c], s);", RED_MIN},
        {"&&", "s = s && x[r][c] > 0;", RED_LAND},
        {"||", "s = x[r][c] > 0 || s;", RED_LOR},
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        bool logical = forms[i].op == RED_LAND || forms[i].op == RED_LOR;
        const char *block =
            aprintf("        %s s = %s;\n"
                    "#pragma tile parallel reduce(%s: s)\n"
                    "        for (int c = 0; c < cols; c++)\n"
                    "            %s\n"
                    "        out[r] = s;\n",
                    logical ? "int" : "float", logical ? "1" : "0.0f", forms[i].clause, forms[i].update);
        IrModule *m = unit_build(row_kernel(block));
        if (!m)
            fail_msg("form %zu (%s) refused:\n%s", i, forms[i].update, unit_diag());
        const IrParallel *par = nth_block_parallel(unit_grid(unit_kernel(m, "k"), 0), 0);
        const IrReduce *red = only_reduce(par);
        assert_int_equal(red->op, forms[i].op);
        assert_string_equal(red->var, "s");
        assert_false(red->kernel_level);
        assert_true(par->in_block);
        unit_teardown(NULL);
        unit_setup(NULL);
    }
}

/* Updates that are no update by the clause's operator: one error each. */
static void update_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *clause, *update, *message;
    } bad[] = {
        {"max", "s += x[r][c];", "'s' is updated with '+' here, but the loop says reduce(max: s)"},
        {"+", "s = s * x[r][c];", "'s' is updated with '*' here, but the loop says reduce(+: s)"},
        {"+", "s = x[r][c] - s;",
         "reduce(+: s): 's' must be updated as 's = s + e' (or 's += e'), with e not reading it"},
        {"+", "s += s * x[r][c];",
         "reduce(+: s): 's' must be updated as 's = s + e' (or 's += e'), with e not reading it"},
        {"+", "y[r][c] = s;",
         "reduction variable 's' is read inside its own loop, where each thread holds only its "
         "part: read it after the loop"},
        {"max", "s = s > x[r][c] ? x[r][c] + 1.0f : s;",
         "reduce(max: s): 's' must be updated as 's = s max e' (or 's max= e'), as 'v = fmaxf(v, e)' or 'v = v > e "
         "? v : e', with e not reading it"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *block = aprintf("        float s = 0.0f;\n"
                                    "#pragma tile parallel reduce(%s: s)\n"
                                    "        for (int c = 0; c < cols; c++)\n"
                                    "            %s\n"
                                    "        out[r] = s;\n",
                                    bad[i].clause, bad[i].update);
        assert_null(unit_build(row_kernel(block)));
        const char *first = strstr(unit_diag_first_line(), "error: ");
        if (diag_error_count() != 1 || !first || strcmp(first + 7, bad[i].message) != 0)
            fail_msg("case %zu: expected\n%s\ngot\n%s", i, bad[i].message, unit_diag());
        unit_teardown(NULL);
        unit_setup(NULL);
    }
}

/* A statement of a block that writes memory runs on one thread; one that
 * assigns the block's variables on all, and says which. */
static void scalar_statements(void **state)
{
    (void)state;
    IrModule *m = unit_build(row_kernel("        float m = x[r][0];\n"
                                        "        m = m * 2.0f;\n"
                                        "        out[r] = m;\n"
                                        "        for (int c0 = 0; c0 < cols; c0 += 64)\n"
                                        "            m = m + 1.0f;\n"));
    assert_non_null(m);
    const IrGrid *g = unit_grid(unit_kernel(m, "k"), 0);
    assert_int_equal(g->body.len, 4);
    const IrStmt *assign = g->body.items[1], *store = g->body.items[2], *seq = g->body.items[3];
    assert_int_equal(assign->kind, STMT_SCALAR);
    assert_false(assign->writes_memory);
    assert_int_equal(assign->assigns.len, 1);
    assert_string_equal(assign->assigns.items[0], "m");
    assert_int_equal(store->kind, STMT_SCALAR);
    assert_true(store->writes_memory);
    assert_int_equal(seq->kind, STMT_SEQ);
    assert_int_equal(seq->seq->vars.len, 1);
    assert_string_equal(seq->seq->vars.items[0], "c0");
    assert_int_equal(seq->seq->body.len, 1);
}

/* A parallel loop's body as the IR keeps it: text, and <access> where an
 * access was cut out. */
static const char *body_text(const IrParallel *par)
{
    Str t = {0};
    for (int i = 0; i < par->body->nsegs; i++) {
        const IrSeg *seg = &par->body->segs[i];
        if (seg->kind == SEG_TEXT)
            str_add(&t, seg->text);
        else
            str_addf(&t, "<%s>", seg->access->text);
    }
    return atake(&t);
}

static void expect_body(const IrParallel *par, const char *want)
{
    const char *got = body_text(par);
    if (!strstr(got, want))
        fail_msg("expected\n%s\nin the body\n%s", want, got);
}

/* A conditional between a half (or bfloat16) and another type: the operand
 * whose type is not the conditional's gets a cast to it (nvcc finds the
 * implicit conversion ambiguous); tile_max/tile_min stay calls. */
static void conditional_operand_casts(void **state)
{
    (void)state;
    IrModule *m = unit_build("#include <tilepp/tile.h>\n"
                             "#pragma tile kernel\n"
                             "void k(int n, const half *h, const bfloat16 *b, float *y, half *z)\n"
                             "{\n"
                             "#pragma tile parallel\n"
                             "    for (int i = 0; i < n; i++) {\n"
                             "        y[i] = i < 4 ? h[i] : 0.0f;\n"
                             "        z[i] = i < 4 ? 1 : h[i];\n"
                             "        z[i] = i < 4 ? h[i] : z[i];\n"
                             "        y[i] = i < 4 ? (b[i]) : h[i];\n"
                             "        y[i] = tile_max(h[i], 0.5f) + (i ? 1.0f : 2.0f);\n"
                             "    }\n"
                             "}\n");
    if (!m)
        fail_msg("refused:\n%s", unit_diag());
    const IrParallel *par = unit_parallel(unit_kernel(m, "k"), 0);
    expect_body(par, "<y[i]> = i < 4 ? (float)(<h[i]>) : 0.0f;");
    expect_body(par, "<z[i]> = i < 4 ? (half)(1) : <h[i]>;");
    expect_body(par, "<z[i]> = i < 4 ? <h[i]> : <z[i]>;");
    expect_body(par, "<y[i]> = i < 4 ? (half)((<b[i]>)) : <h[i]>;"); /* clang: half with bfloat16 is half */
    expect_body(par, "<y[i]> = tile_max(<h[i]>, 0.5f) + (i ? 1.0f : 2.0f);");
}

/* tile_min/tile_max over shared tile and fragment elements: each access is
 * cut once, where the call's argument writes it, also in reductions and
 * nested calls; the reduction's conditional form over a shared tile too. */
static void tile_minmax_over_tiles(void **state)
{
    (void)state;
    const char *src = "#include <tilepp/tile.h>\n"
                      "#pragma tile kernel threads(128)\n"
                      "void k(int M, const half X[M][64], float Y[M][64])\n"
                      "{\n"
                      "#pragma tile grid\n"
                      "    for (int by = 0; by < tile_cdiv(M, 64); by++) {\n"
                      "#pragma tile shared\n"
                      "        half Ts[64][64];\n"
                      "#pragma tile fragment\n"
                      "        float F[64][64];\n"
                      "        tile_load(Ts, X, by * 64, 0, M, 64);\n"
                      "        tile_load(F, X, by * 64, 0, M, 64);\n"
                      "        float m = 0.0f, lo = 0.0f;\n"
                      "#pragma tile parallel reduce(max: m) reduce(min: lo)\n"
                      "        for (int j = 0; j < 64; j++) {\n"
                      "            m = tile_max(m, Ts[0][j]);\n"
                      "            lo = lo < Ts[1][j] ? lo : Ts[1][j];\n"
                      "        }\n"
                      "#pragma tile parallel\n"
                      "        for (int i = 0; i < 64; i++)\n"
                      "            for (int j = 0; j < 64; j++)\n"
                      "                F[i][j] = tile_min(tile_max(F[i][j], m), Ts[i][j]) + lo;\n"
                      "        tile_store(Y, F, by * 64, 0, M, 64);\n"
                      "    }\n"
                      "}\n";
    IrModule *mod = unit_build(src);
    if (!mod)
        fail_msg("refused:\n%s", unit_diag());
    const IrGrid *g = unit_grid(unit_kernel(mod, "k"), 0);
    const IrParallel *red = nth_block_parallel(g, 0), *frag = nth_block_parallel(g, 1);
    expect_body(red, "m = tile_max(m, <Ts[0][j]>);");
    expect_body(red, "lo = lo < <Ts[1][j]> ? lo : (float)(<Ts[1][j]>);");
    assert_int_equal(unit_count_accesses(red, "Ts[0][j]"), 1);
    assert_int_equal(unit_count_accesses(red, "Ts[1][j]"), 2);
    expect_body(frag, "<F[i][j]> = tile_min(tile_max(<F[i][j]>, m), <Ts[i][j]>) + lo"); /* a body ends before its ';' */
    assert_int_equal(unit_count_accesses(frag, "F[i][j]"), 2);                          /* the write and the read */
    assert_int_equal(unit_count_accesses(frag, "Ts[i][j]"), 1);
    const IrAccess *ts = unit_access(frag, "Ts[i][j]", 0);
    assert_string_equal(ts->subs[0], "i");
    assert_string_equal(ts->subs[1], "j");
}

/* What other macros hide stays refused, saying which kind of tile it is;
 * a conversion in another macro's conditional too. */
static void tile_access_in_macro_refused(void **state)
{
    (void)state;
    static const struct {
        const char *stmt, *message;
    } bad[] = {
        {"F[i][j] = CLAMP(F[i][j]);", "fragment 'F' is used inside a macro here; write the access out in the code"},
        {"F[i][j] = CLAMP(Ts[i][j]);",
         "shared tile 'Ts' is used inside a macro here; write the access out in the code"},
        {"F[i][j] = tile_max(Ts[I0][j], 0.0f);",
         "shared tile 'Ts' is used inside a macro here; write the access out in the code"},
        {"F[i][j] = PICK(X[i][j]);",
         "this operand of '?:' converts from 'half' to 'float' inside a macro, where tilepp cannot write the "
         "conversion out for CUDA (it finds the mix ambiguous); cast it in the code: '(float)(...)'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *src = aprintf("#include <tilepp/tile.h>\n"
                                  "#define CLAMP(x) tile_min(x, 1.0f)\n"
                                  "#define PICK(x) (i < 4 ? (x) : 0.0f)\n"
                                  "#define I0 0\n"
                                  "#pragma tile kernel threads(128)\n"
                                  "void k(int M, const half X[M][64], float Y[M][64])\n"
                                  "{\n"
                                  "#pragma tile grid\n"
                                  "    for (int by = 0; by < tile_cdiv(M, 64); by++) {\n"
                                  "#pragma tile shared\n"
                                  "        half Ts[64][64];\n"
                                  "#pragma tile fragment\n"
                                  "        float F[64][64];\n"
                                  "        tile_load(Ts, X, by * 64, 0, M, 64);\n"
                                  "        tile_load(F, X, by * 64, 0, M, 64);\n"
                                  "#pragma tile parallel\n"
                                  "        for (int i = 0; i < 64; i++)\n"
                                  "            for (int j = 0; j < 64; j++)\n"
                                  "                %s\n"
                                  "        tile_store(Y, F, by * 64, 0, M, 64);\n"
                                  "    }\n"
                                  "}\n",
                                  bad[i].stmt);
        assert_null(unit_build(src));
        const char *first = strstr(unit_diag_first_line(), "error: ");
        if (diag_error_count() != 1 || !first || strcmp(first + 7, bad[i].message) != 0)
            fail_msg("case %zu: expected\n%s\ngot\n%s", i, bad[i].message, unit_diag());
        unit_teardown(NULL);
        unit_setup(NULL);
    }
}

static const GridPlan *plan_of(const char *block)
{
    Plan *plan = unit_lower(row_kernel(block));
    if (!plan)
        fail_msg("refused:\n%s", unit_diag());
    return unit_grid_plan(plan, "k", 0);
}

static int syncs_before(const GridPlan *gp, int stmt) { return block_sync_before(gp, gp->grid->body.items[stmt]); }

/* Barriers go where a statement touches what an earlier one (since the
 * last barrier) wrote, or writes what it read. */
static void barriers(void **state)
{
    (void)state;
    /* two loops that only read x: none */
    const GridPlan *gp = plan_of("#pragma tile parallel\n"
                                 "        for (int c = 0; c < cols; c++)\n"
                                 "            y[r][c] = x[r][c];\n"
                                 "#pragma tile parallel\n"
                                 "        for (int c = 0; c < cols; c++)\n"
                                 "            y[r][c] = y[r][c] + x[r][c] * 0.5f;\n"
                                 "        float first = y[r][0];\n"
                                 "        out[r] = first;\n");
    assert_false(syncs_before(gp, 0));
    assert_true(syncs_before(gp, 1));  /* reads y, which loop 0 wrote on other threads */
    assert_true(syncs_before(gp, 2));  /* every thread reads y[r][0] */
    assert_false(syncs_before(gp, 3)); /* out: untouched before */
    assert_int_equal(gp->syncs.len, 2);
    unit_teardown(NULL);
    unit_setup(NULL);

    /* a reduction ends in barriers of its own */
    gp = plan_of("#pragma tile parallel\n"
                 "        for (int c = 0; c < cols; c++)\n"
                 "            y[r][c] = x[r][c];\n"
                 "        float s = 0.0f;\n"
                 "#pragma tile parallel reduce(+: s)\n"
                 "        for (int c = 0; c < cols; c++)\n"
                 "            s += x[r][c];\n"
                 "#pragma tile parallel\n"
                 "        for (int c = 0; c < cols; c++)\n"
                 "            y[r][c] = y[r][c] / s;\n");
    assert_int_equal(gp->syncs.len, 0);
    assert_true(gp->block_reductions);
    unit_teardown(NULL);
    unit_setup(NULL);

    /* two stores on thread 0 in a row: none; a shared tile written, then read */
    gp = plan_of("#pragma tile shared\n"
                 "        float t[256];\n"
                 "        out[r] = 1.0f;\n"
                 "        out[r] = out[r] + 1.0f;\n"
                 "#pragma tile parallel\n"
                 "        for (int c = 0; c < 256; c++)\n"
                 "            t[c] = x[r][c % cols];\n"
                 "#pragma tile parallel\n"
                 "        for (int c = 0; c < cols; c++)\n"
                 "            y[r][c] = t[255 - c % 256];\n");
    assert_false(syncs_before(gp, 2));
    assert_false(syncs_before(gp, 3));
    assert_true(syncs_before(gp, 4));
    assert_int_equal(gp->syncs.len, 1);
    unit_teardown(NULL);
    unit_setup(NULL);

    /* a sequential loop: what the previous iteration wrote is pending at the top */
    gp = plan_of("        out[r] = 0.0f; /* not a perfect nest: the loop below stays in the block */\n"
                 "        for (int i = 0; i < 3; i++) {\n"
                 "#pragma tile parallel\n"
                 "            for (int c = 0; c < cols; c++)\n"
                 "                y[r][c] = x[r][c] * i;\n"
                 "            float v = y[r][cols - 1];\n"
                 "            out[r] = v;\n"
                 "        }\n");
    const IrStmt *seq = gp->grid->body.items[1];
    assert_int_equal(seq->kind, STMT_SEQ);
    assert_true(block_sync_before(gp, seq->seq->body.items[0])); /* every thread read y before */
    assert_true(block_sync_before(gp, seq->seq->body.items[1])); /* the loop just wrote it */
    assert_false(block_sync_before(gp, seq->seq->body.items[2]));
}

/* The softmax of three loops: x read at the same elements by all three is
 * kept in registers, loaded by the first; the kernel comes in variants per
 * group count, each asking for as many blocks as its registers allow. */
static void registers_between_loops(void **state)
{
    (void)state;
    const GridPlan *gp = plan_of("        float m = -INFINITY;\n"
                                 "#pragma tile parallel vector(4) reduce(max: m)\n"
                                 "        for (int c = 0; c < cols; c++)\n"
                                 "            m = fmaxf(m, x[r][c]);\n"
                                 "        float s = 0.0f;\n"
                                 "#pragma tile parallel vector(4) reduce(+: s)\n"
                                 "        for (int c = 0; c < cols; c++)\n"
                                 "            s += expf(x[r][c] - m);\n"
                                 "#pragma tile parallel vector(4)\n"
                                 "        for (int c = 0; c < cols; c++)\n"
                                 "            y[r][c] = expf(x[r][c] - m) / s;\n");
    assert_int_equal(gp->caches.len, 1);
    const RegCache *c = gp->caches.items[0];
    assert_string_equal(c->buf->name, "x");
    assert_int_equal(c->vector, 4);
    assert_int_equal(c->groups, 8); /* 128 bytes of 16-byte groups */
    for (int i = 0; i < 3; i++) {
        const ParallelPlan *pp = block_parallel(gp, nth_block_parallel(gp->grid, i));
        assert_int_equal(pp->caches.len, 1);
        assert_int_equal(pp->fills.len, i == 0);
        assert_int_equal(pp->unroll, 8);
    }
    assert_true(gp->unroll_variants);
    for (int v = 1; v < 4; v++)
        assert_true(gp->variant_blocks[v] <= gp->variant_blocks[v - 1]);
    assert_true(gp->variant_blocks[0] > gp->variant_blocks[3]);
    assert_true(gp->variant_blocks[0] <= 2048 / 128);
}

/* The launcher's variants of a block of loops and scalar code: teams of
 * one warp first, each variant covering longer rows than the one before,
 * then the plain loops over the whole block. A row is one grid iteration:
 * x[r][c] streams (loaded up front), out[c], the same for every row, does
 * not. */
static void teams_and_streams(void **state)
{
    (void)state;
    const GridPlan *gp = plan_of("        float s = 0.0f;\n"
                                 "#pragma tile parallel vector(4) reduce(+: s)\n"
                                 "        for (int c = 0; c < cols; c++)\n"
                                 "            s += x[r][c];\n"
                                 "#pragma tile parallel vector(4)\n"
                                 "        for (int c = 0; c < cols; c++)\n"
                                 "            y[r][c] = x[r][c] * out[c] / s;\n");
    static const BlockVariant expect[] = {{1, 32}, {2, 32}, {4, 32}, {8, 32}, {8, 64}, {8, 128}, {1, 128}};
    assert_true(gp->unroll_variants);
    assert_int_equal(gp->nvariants, sizeof expect / sizeof *expect);
    for (int i = 0; i < gp->nvariants; i++) {
        assert_int_equal(gp->variants[i].groups, expect[i].groups);
        assert_int_equal(gp->variants[i].team, expect[i].team);
    }
    const ParallelPlan *pp = block_parallel(gp, nth_block_parallel(gp->grid, 1));
    int seen = 0;
    for (int i = 0; i < pp->vec_buffers.len; i++) {
        const VecBuffer *vb = pp->vec_buffers.items[i];
        if (strcmp(vb->buf->name, "x") == 0 || strcmp(vb->buf->name, "y") == 0)
            assert_true(vb->streamed), seen++;
        if (strcmp(vb->buf->name, "out") == 0)
            assert_false(vb->streamed), seen++;
    }
    assert_int_equal(seen, 3);
    unit_teardown(NULL);
    unit_setup(NULL);
    /* A shared tile is the block's: its threads share it, so no teams. */
    gp = plan_of("#pragma tile shared\n"
                 "        float t[128];\n"
                 "#pragma tile parallel\n"
                 "        for (int c = 0; c < 128; c++)\n"
                 "            t[c] = x[r][c];\n"
                 "        float s = 0.0f;\n"
                 "#pragma tile parallel reduce(+: s)\n"
                 "        for (int c = 0; c < 128; c++)\n"
                 "            s += t[127 - c];\n"
                 "        out[r] = s;\n");
    assert_true(gp->unroll_variants);
    for (int i = 0; i < gp->nvariants; i++)
        assert_int_equal(gp->variants[i].team, 128);
}

/* Each fragment of a grid gets a layout (2-D, in a block without products:
 * strips, 16 bytes of the float matrix it moves (4 columns), the 8 warps
 * stacked over the rows; 1-D: spread), and a parallel loop over a 2-D
 * fragment's indices runs on its layout, touching no memory the barrier
 * plan counts. */
static void fragment_layouts(void **state)
{
    (void)state;
    Plan *plan = unit_lower("#include <tilepp/tile.h>\n"
                            "#pragma tile kernel threads(256)\n"
                            "void k(int M, int N, const float X[M][N], const float b[N], float Y[M][N])\n"
                            "{\n"
                            "#pragma tile grid\n"
                            "    for (int by = 0; by < tile_cdiv(M, 128); by++)\n"
                            "        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {\n"
                            "#pragma tile fragment\n"
                            "            float T[128][64], U[128][64], v[64];\n"
                            "            tile_load(T, X, by * 128, bx * 64, M, N);\n"
                            "#pragma tile parallel\n"
                            "            for (int i = 0; i < 128; i++)\n"
                            "                for (int j = 0; j < 64; j++)\n"
                            "                    U[i][j] = T[i][j] + (bx * 64 + j < N ? b[bx * 64 + j] : 0.0f);\n"
                            "            tile_store(Y, U, by * 128, bx * 64, M, N);\n"
                            "        }\n"
                            "}\n");
    if (!plan)
        fail_msg("refused:\n%s", unit_diag());
    const GridPlan *gp = unit_grid_plan(plan, "k", 0);
    assert_int_equal(gp->layouts.len, 3);
    for (int i = 0; i < gp->layouts.len; i++) {
        const FragLayout *l = gp->layouts.items[i];
        assert_int_equal(l->kind, l->frag->rank == 2 ? LAYOUT_STRIPS : LAYOUT_SPREAD);
        if (l->kind == LAYOUT_STRIPS) {
            assert_int_equal(l->warps_m, 8);
            assert_int_equal(l->warps_n, 1);
            assert_int_equal(l->vec, 4);
            assert_int_equal(l->lanes, 8); /* 8 lanes of 16 bytes: a 128-byte line a row */
            assert_int_equal(l->warps_m, gp->warps_m);
        }
    }
    const ParallelPlan *pp = gp->parallels.items[0];
    assert_non_null(pp->layout);
    assert_true(pp->layout == fragment_layout(gp, pp->layout->frag));
    assert_int_equal(pp->layout->frag->dims[0], 128);
    assert_int_equal(gp->syncs.len, 0); /* registers only, and global reads */
}

/* Row fragments: the layout pass follows a reduction's result through a
 * copy and a 1-D loop to fragments that only those touch, gives them the
 * rows of the reduced fragment, and runs the 1-D loop on them; a product
 * whose A operand is a fragment stacks the warps along the rows. */
static void row_fragments(void **state)
{
    (void)state;
    Plan *plan = unit_lower("#include <math.h>\n"
                            "#include <tilepp/tile.h>\n"
                            "#pragma tile kernel threads(128)\n"
                            "void k(int M, const half A[M][64], const half B[64][64], float Y[M][64])\n"
                            "{\n"
                            "#pragma tile grid\n"
                            "    for (int by = 0; by < tile_cdiv(M, 64); by++) {\n"
                            "#pragma tile shared\n"
                            "        half As[64][64], Bs[64][64];\n"
                            "#pragma tile fragment\n"
                            "        float S[64][64], O[64][64], m[64], old[64], d[64], w[64];\n"
                            "#pragma tile fragment\n"
                            "        half P[64][64];\n"
                            "        tile_load(As, A, by * 64, 0, M, 64);\n"
                            "        tile_load(Bs, B, 0, 0, 64, 64);\n"
                            "        tile_clear(S);\n"
                            "        tile_gemm(As, Bs, S);\n"
                            "        tile_fill(m, -INFINITY);\n"
                            "        tile_copy(old, m);\n"
                            "        tile_reduce_max(S, m, 1, 0);\n"
                            "#pragma tile parallel\n"
                            "        for (int i = 0; i < 64; i++)\n"
                            "            d[i] = expf(old[i] - m[i]);\n"
                            "        tile_clear(w);\n"
                            "        tile_copy(P, S);\n"
                            "        tile_clear(O);\n"
                            "        tile_gemm(P, Bs, O);\n"
                            "        tile_store(Y, O, by * 64, 0, M, 64);\n"
                            "    }\n"
                            "}\n");
    if (!plan)
        fail_msg("refused:\n%s", unit_diag());
    const GridPlan *gp = unit_grid_plan(plan, "k", 0);
    assert_int_equal(gp->warps_n, 1); /* P's rows are the A operand of the warp that holds them */
    int rows = 0;
    for (int i = 0; i < gp->layouts.len; i++) {
        const FragLayout *l = gp->layouts.items[i];
        const char *name = l->frag->name;
        bool is_rows = strcmp(name, "m") == 0 || strcmp(name, "old") == 0 || strcmp(name, "d") == 0;
        assert_int_equal(l->kind, is_rows ? LAYOUT_ROWS : l->frag->rank == 2 ? LAYOUT_ACCUM : LAYOUT_SPREAD);
        if (is_rows)
            assert_string_equal(l->of->name, "S"), rows++;
    }
    assert_int_equal(rows, 3); /* w is used by no row operation: it stays spread */
    const ParallelPlan *pp = gp->parallels.items[0];
    assert_non_null(pp->layout);
    assert_int_equal(pp->layout->kind, LAYOUT_ROWS);
}

/* Strips of a fragment of fewer rows than the warps (16 rows, 32 warps):
 * two warps side by side over each row, whose reductions combine across
 * them (tile80::reduce_rows, through shared memory); the 1-D fragments
 * still hold its rows. Strips of 16 bytes of the half matrices moved. */
static void row_fragments_across_warps(void **state)
{
    (void)state;
    Plan *plan = unit_lower("#include <math.h>\n"
                            "#include <tilepp/tile.h>\n"
                            "#pragma tile kernel threads(1024)\n"
                            "void k(int R, int C, const half X[R][C], half Y[R][C])\n"
                            "{\n"
                            "#pragma tile grid\n"
                            "    for (int rb = 0; rb < tile_cdiv(R, 16); rb++) {\n"
                            "#pragma tile fragment\n"
                            "        float t[16][1024], m[16];\n"
                            "        tile_load(t, X, rb * 16, 0, R, C);\n"
                            "        tile_reduce_max(t, m, 1, 1);\n"
                            "#pragma tile parallel\n"
                            "        for (int i = 0; i < 16; i++)\n"
                            "            for (int j = 0; j < 1024; j++)\n"
                            "                t[i][j] -= m[i];\n"
                            "        tile_store(Y, t, rb * 16, 0, R, C);\n"
                            "    }\n"
                            "}\n");
    if (!plan)
        fail_msg("refused:\n%s", unit_diag());
    const GridPlan *gp = unit_grid_plan(plan, "k", 0);
    assert_int_equal(gp->warps_m, 16);
    assert_int_equal(gp->warps_n, 2);
    const FragLayout *t = fragment_layout(gp, gp->grid->tiles.items[0]);
    assert_int_equal(t->kind, LAYOUT_STRIPS);
    assert_int_equal(t->vec, 8);
    assert_int_equal(t->lanes, 32); /* a warp a row: one row a warp tile */
    const FragLayout *l = fragment_layout(gp, gp->grid->tiles.items[1]);
    assert_string_equal(l->frag->name, "m");
    assert_int_equal(l->kind, LAYOUT_ROWS);
    assert_string_equal(l->of->name, "t");
}

/* Fragments of columns: a reduction along dim 0 gives its result the
 * columns' layout, a copy passes it on, a loop over the 2-D fragment reads
 * it at [j] (recorded for the emitter), and the warps stacked over the rows
 * get shared scratch to combine through: warps_m floats a column. */
static void column_fragments(void **state)
{
    (void)state;
    Plan *plan = unit_lower("#include <tilepp/tile.h>\n"
                            "#pragma tile kernel threads(256)\n"
                            "void k(int M, int N, int K, const half A[M][K], const half B[K][N], half C[M][N],\n"
                            "       float amax[N])\n"
                            "{\n"
                            "#pragma tile grid\n"
                            "    for (int by = 0; by < tile_cdiv(M, 128); by++)\n"
                            "        for (int bx = 0; bx < tile_cdiv(N, 128); bx++) {\n"
                            "#pragma tile shared\n"
                            "            half As[128][32], Bs[32][128];\n"
                            "#pragma tile fragment\n"
                            "            float Cf[128][128], cm[128], inv[128];\n"
                            "            tile_clear(Cf);\n"
                            "#pragma tile pipelined stages(3)\n"
                            "            for (int k = 0; k < tile_cdiv(K, 32); k++) {\n"
                            "                tile_load(As, A, by * 128, k * 32, M, K);\n"
                            "                tile_load(Bs, B, k * 32, bx * 128, K, N);\n"
                            "                tile_gemm(As, Bs, Cf);\n"
                            "            }\n"
                            "            tile_reduce_absmax(Cf, cm, 0, 1);\n"
                            "            tile_copy(inv, cm);\n"
                            "#pragma tile parallel\n"
                            "            for (int j = 0; j < 128; j++)\n"
                            "                inv[j] = inv[j] > 0.0f ? 1.0f / inv[j] : 0.0f;\n"
                            "#pragma tile parallel\n"
                            "            for (int i = 0; i < 128; i++)\n"
                            "                for (int j = 0; j < 128; j++)\n"
                            "                    Cf[i][j] *= inv[j];\n"
                            "            tile_store(C, Cf, by * 128, bx * 128, M, N);\n"
                            "            tile_store(amax, cm, bx * 128, N);\n"
                            "        }\n"
                            "}\n");
    if (!plan)
        fail_msg("refused:\n%s", unit_diag());
    const GridPlan *gp = unit_grid_plan(plan, "k", 0);
    for (int i = 3; i < 5; i++) {
        const FragLayout *l = fragment_layout(gp, gp->grid->tiles.items[i]);
        assert_int_equal(l->kind, LAYOUT_COLS);
        assert_string_equal(l->of->name, "Cf");
    }
    assert_true(gp->warps_m > 1);
    assert_int_equal(gp->cols_bytes, gp->warps_m * 128 * 4);
    assert_true(gp->cols_offset + gp->cols_bytes <= gp->smem_bytes);
    const ParallelPlan *scale = gp->parallels.items[1];
    assert_int_equal(scale->col_reads.len, 1);
    assert_string_equal(((const IrBuffer *)scale->col_reads.items[0])->name, "inv");
    const ParallelPlan *recip = gp->parallels.items[0];
    assert_int_equal(recip->layout->kind, LAYOUT_COLS);
    if (gp->sm90) /* four warps a warpgroup over the rows: scratch of its own */
        assert_true(gp->sm90->cols_scratch >= 0);
}

/* A chained product's P: packed (as the products read it) when a copy
 * from a float fragment and the product are its only uses, and left in
 * floats once a parallel loop reads it; a guarded loop keeps its ifs,
 * outermost first, and takes no part in register caches. */
static const char *chain_source(const char *p_loop)
{
    return aprintf("#include <tilepp/tile.h>\n"
                   "#pragma tile kernel threads(128)\n"
                   "void k(int M, int K, int N, int flag, const half A[M][K], const half B[K][64],\n"
                   "       const half D[64][N], float C[M][N])\n"
                   "{\n"
                   "#pragma tile grid\n"
                   "    for (int by = 0; by < tile_cdiv(M, 64); by++) {\n"
                   "#pragma tile shared\n"
                   "        half As[64][32], Bs[32][64], Ds[64][64];\n"
                   "#pragma tile fragment\n"
                   "        float S[64][64], O[64][64];\n"
                   "#pragma tile fragment\n"
                   "        half P[64][64];\n"
                   "        tile_clear(S);\n"
                   "        tile_clear(O);\n"
                   "#pragma tile pipelined stages(2)\n"
                   "        for (int k = 0; k < tile_cdiv(K, 32); k++) {\n"
                   "            tile_load(As, A, by * 64, k * 32, M, K);\n"
                   "            tile_load(Bs, B, k * 32, 0, K, 64);\n"
                   "            tile_gemm(As, Bs, S);\n"
                   "        }\n"
                   "        if (flag > 0) {\n"
                   "            if (by %% 2 == 0) {\n"
                   "#pragma tile parallel\n"
                   "                for (int i = 0; i < 64; i++)\n"
                   "                    for (int j = 0; j < 64; j++)\n"
                   "                        S[i][j] *= 2.0f;\n"
                   "            }\n"
                   "        } else {\n"
                   "#pragma tile parallel\n"
                   "            for (int i = 0; i < 64; i++)\n"
                   "                for (int j = 0; j < 64; j++)\n"
                   "                    S[i][j] = -S[i][j];\n"
                   "        }\n"
                   "        tile_copy(P, S);\n"
                   "%s"
                   "        tile_load(Ds, D, 0, 0, 64, N);\n"
                   "        tile_gemm(P, Ds, O);\n"
                   "        tile_store(C, O, by * 64, 0, M, N);\n"
                   "    }\n"
                   "}\n",
                   p_loop);
}

static void packed_operands_and_guards(void **state)
{
    (void)state;
    Plan *plan = unit_lower(chain_source(""));
    if (!plan)
        fail_msg("refused:\n%s", unit_diag());
    const GridPlan *gp = unit_grid_plan(plan, "k", 0);
    const IrBuffer *s = gp->grid->tiles.items[3], *p = gp->grid->tiles.items[5];
    assert_string_equal(p->name, "P");
    assert_true(fragment_layout(gp, p)->packed);
    assert_false(fragment_layout(gp, s)->packed);
    const IrParallel *twice = ((const ParallelPlan *)gp->parallels.items[0])->par;
    const IrParallel *negate = ((const ParallelPlan *)gp->parallels.items[1])->par;
    assert_non_null(twice->guard);
    assert_false(twice->guard->negate);
    assert_true(code_mentions(twice->guard->cond, "flag"));
    assert_non_null(twice->guard->inner);
    assert_true(code_mentions(twice->guard->inner->cond, "by"));
    assert_null(twice->guard->inner->inner);
    assert_true(negate->guard->negate);
    assert_null(negate->guard->inner);
    assert_true(code_mentions(negate->guard->cond, "flag"));

    plan = unit_lower(chain_source("#pragma tile parallel\n"
                                   "        for (int i = 0; i < 64; i++)\n"
                                   "            for (int j = 0; j < 64; j++)\n"
                                   "                P[i][j] = P[i][j] * 0.5f;\n"));
    if (!plan)
        fail_msg("refused:\n%s", unit_diag());
    gp = unit_grid_plan(plan, "k", 0);
    assert_false(fragment_layout(gp, gp->grid->tiles.items[5])->packed);
}

/* Strips where an accumulator cannot go (8 rows over 8 warps, which an
 * accumulator would need 16 rows a warp for): a warp a row, strips of 4
 * floats; and the accumulator kept in a block whose 2-D fragments differ in
 * shape (their elements must line up across loops and copies). */
static void strips_choice(void **state)
{
    (void)state;
    Plan *plan = unit_lower("#include <tilepp/tile.h>\n"
                            "#pragma tile kernel threads(256)\n"
                            "void k(int M, int N, const float X[M][N], float m[M])\n"
                            "{\n"
                            "#pragma tile grid\n"
                            "    for (int rb = 0; rb < tile_cdiv(M, 8); rb++) {\n"
                            "#pragma tile fragment\n"
                            "        float t[8][1024], r[8];\n"
                            "        tile_load(t, X, rb * 8, 0, M, N);\n"
                            "        tile_reduce_max(t, r, 1, 1);\n"
                            "        tile_store(m, r, rb * 8, M);\n"
                            "    }\n"
                            "}\n"
                            "#pragma tile kernel threads(128)\n"
                            "void k2(int M, const float X[M][64], float Y[M][32])\n"
                            "{\n"
                            "#pragma tile grid\n"
                            "    for (int rb = 0; rb < tile_cdiv(M, 64); rb++) {\n"
                            "#pragma tile fragment\n"
                            "        float a[64][64], b[64][32];\n"
                            "        tile_load(a, X, rb * 64, 0, M, 64);\n"
                            "        tile_load(b, X, rb * 64, 0, M, 64);\n"
                            "        tile_store(Y, b, rb * 64, 0, M, 32);\n"
                            "    }\n"
                            "}\n");
    if (!plan)
        fail_msg("refused:\n%s", unit_diag());
    const GridPlan *gp = unit_grid_plan(plan, "k", 0);
    const FragLayout *t = fragment_layout(gp, gp->grid->tiles.items[0]);
    assert_int_equal(t->kind, LAYOUT_STRIPS);
    assert_int_equal(t->warps_m, 8);
    assert_int_equal(t->warps_n, 1);
    assert_int_equal(t->vec, 4);
    assert_int_equal(t->lanes, 32);
    assert_int_equal(fragment_layout(gp, gp->grid->tiles.items[1])->kind, LAYOUT_ROWS);
    const GridPlan *gp2 = unit_grid_plan(plan, "k2", 0);
    for (int i = 0; i < gp2->layouts.len; i++)
        assert_int_equal(((const FragLayout *)gp2->layouts.items[i])->kind, LAYOUT_ACCUM);
}

/* No registers across loops whose bounds change between them, or for a
 * buffer the block writes. */
static void no_registers_between_loops(void **state)
{
    (void)state;
    const GridPlan *gp = plan_of("        int n = cols;\n"
                                 "        float s = 0.0f;\n"
                                 "#pragma tile parallel vector(4) reduce(+: s)\n"
                                 "        for (int c = 0; c < n; c++)\n"
                                 "            s += x[r][c];\n"
                                 "        n = n / 2;\n"
                                 "#pragma tile parallel vector(4)\n"
                                 "        for (int c = 0; c < n; c++)\n"
                                 "            y[r][c] = x[r][c] / s;\n");
    assert_int_equal(gp->caches.len, 0);
    assert_false(gp->unroll_variants); /* the bounds read a variable of the block */
    unit_teardown(NULL);
    unit_setup(NULL);
    gp = plan_of("        float s = 0.0f;\n"
                 "#pragma tile parallel vector(4) reduce(+: s)\n"
                 "        for (int c = 0; c < cols; c++)\n"
                 "            s += y[r][c];\n"
                 "#pragma tile parallel vector(4)\n"
                 "        for (int c = 0; c < cols; c++)\n"
                 "            y[r][c] = y[r][c] / s;\n");
    assert_int_equal(gp->caches.len, 0);
}

/* A reduction at the top level of a kernel: a slot for the variable, a
 * combining kernel, and the later loop reads the slot. */
static void reductions_over_the_grid(void **state)
{
    (void)state;
    Plan *plan = unit_lower("#include <tilepp/tile.h>\n"
                            "#pragma tile kernel\n"
                            "void k(int n, const float *x, float *y)\n"
                            "{\n"
                            "    float s = 1.0f;\n"
                            "#pragma tile parallel reduce(+: s)\n"
                            "    for (int i = 0; i < n; i++)\n"
                            "        s += x[i];\n"
                            "    float t = 0.0f;\n"
                            "#pragma tile parallel reduce(max: t) reduce(+: s)\n"
                            "    for (int i = 0; i < n; i++) {\n"
                            "        t = fmaxf(t, x[i]);\n"
                            "        s += 1.0f;\n"
                            "    }\n"
                            "#pragma tile parallel\n"
                            "    for (int i = 0; i < n; i++)\n"
                            "        y[i] = x[i] / s + t;\n"
                            "}\n");
    assert_non_null(plan);
    const KernelPlan *kp = plan->kernels.items[0];
    assert_int_equal(kp->slots.len, 2);
    assert_int_equal(kp->max_reduces, 2);
    const ReduceSlot *s = kp->slots.items[0], *t = kp->slots.items[1];
    assert_string_equal(s->var, "s");
    assert_string_equal(t->var, "t");
    const ParallelPlan *first = kp->parallels.items[0], *second = kp->parallels.items[1];
    assert_non_null(first->combine_name);
    assert_int_equal(first->slots[0], 0);
    assert_int_equal(second->slots[0], 1); /* t */
    assert_int_equal(second->slots[1], 0); /* s again: the same slot */
    /* the reducing loop does not evaluate s's declaration (its part stands for it) */
    for (int i = 0; i < first->decls.len; i++)
        assert_false(((const IrStmt *)first->decls.items[i])->kind == STMT_DECL &&
                     strcmp(((const IrStmt *)first->decls.items[i])->decl_names.items[0], "s") == 0);
    assert_int_equal(first->combine_decls.len, 1);
    const ParallelPlan *last = kp->parallels.items[2];
    assert_null(last->combine_name);
    assert_int_equal(last->decls.len, 2); /* s and t, read from their slots */
    char *cu = emit_cuda(plan, &(EmitNames){UNIT_FILE, "u.tile.cu", "u.tile.h", NULL, 0, 0});
    assert_non_null(strstr(cu, "s = tile_slot<float>(tile_slots, 0);"));
    assert_non_null(strstr(cu, "t = tile_slot<float>(tile_slots, 1);"));
    assert_non_null(strstr(cu, "tile_launch_parts(tile_k_0, "));
}

/* Tile operations in a sequential loop of a block are seen by every
 * lowering decision that looks for them: a reduction in the loop makes its
 * 1-D fragment a slice (with the column reductions' scratch), a product
 * only in the loop gives the block the accumulator layout and its warps,
 * and a row reduction there whole rows a warp. */
static void tile_ops_in_block_loops(void **state)
{
    (void)state;
    Plan *plan =
        unit_lower("#include <math.h>\n"
                   "#include <tilepp/tile.h>\n"
                   "#pragma tile kernel threads(128)\n"
                   "void cols(int rows, int n, const float X[rows][n], float mx[n])\n"
                   "{\n"
                   "#pragma tile grid\n"
                   "    for (int bx = 0; bx < tile_cdiv(n, 128); bx++) {\n"
                   "#pragma tile fragment\n"
                   "        float t[64][128], m[128];\n"
                   "        tile_fill(m, -INFINITY);\n"
                   "        for (int r = 0; r < tile_cdiv(rows, 64); r++) {\n"
                   "            tile_load(t, X, r * 64, bx * 128, rows, n);\n"
                   "            tile_reduce_max(t, m, 0, 0);\n"
                   "        }\n"
                   "        tile_store(mx, m, bx * 128, n);\n"
                   "    }\n"
                   "}\n"
                   "#pragma tile kernel threads(128)\n"
                   "void prod(int M, int K, const half A[M][K], const half B[K][64], float C[M][64], float s[M])\n"
                   "{\n"
                   "#pragma tile grid\n"
                   "    for (int by = 0; by < tile_cdiv(M, 64); by++) {\n"
                   "#pragma tile shared\n"
                   "        half As[64][32], Bs[32][64];\n"
                   "#pragma tile fragment\n"
                   "        float Cf[64][64], rs[64];\n"
                   "        tile_clear(Cf);\n"
                   "        for (int k = 0; k < K; k += 32) {\n"
                   "            tile_load(As, A, by * 64, k, M, K);\n"
                   "            tile_load(Bs, B, k, 0, K, 64);\n"
                   "            tile_gemm(As, Bs, Cf);\n"
                   "            tile_reduce_sum(Cf, rs, 1, k == 0);\n"
                   "        }\n"
                   "        tile_store(C, Cf, by * 64, 0, M, 64);\n"
                   "        tile_store(s, rs, by * 64, M);\n"
                   "    }\n"
                   "}\n");
    if (!plan)
        fail_msg("refused:\n%s", unit_diag());
    const GridPlan *gp = unit_grid_plan(plan, "cols", 0);
    const FragLayout *m = fragment_layout(gp, gp->grid->tiles.items[1]);
    assert_int_equal(m->kind, LAYOUT_COLS);
    assert_string_equal(m->of->name, "t");
    if (gp->warps_m > 1)
        assert_int_equal(gp->cols_bytes, gp->warps_m * 128 * 4);
    const GridPlan *pp = unit_grid_plan(plan, "prod", 0);
    assert_int_equal(fragment_layout(pp, pp->grid->tiles.items[2])->kind, LAYOUT_ACCUM);
    const FragLayout *rs = fragment_layout(pp, pp->grid->tiles.items[3]);
    assert_int_equal(rs->kind, LAYOUT_ROWS);
    assert_string_equal(rs->of->name, "Cf");
    assert_int_equal(pp->warps_n, 1); /* whole rows a warp, for the row reduction */
    assert_true(pp->warps_m > 1);
    assert_null(pp->sm90); /* the Hopper kernel takes one pipelined loop, not a plain one */
    assert_non_null(strstr(pp->sm90_why, "no pipelined loop"));
    unit_teardown(NULL);
    unit_setup(NULL);

    /* beside a pipelined loop, a plain one keeps the grid on the sm_80 kernel too, which says so */
    plan = unit_lower("#include <tilepp/tile.h>\n"
                      "#pragma tile kernel threads(128)\n"
                      "void g(int M, int K, const half A[M][K], const half B[K][64], float C[M][64], float s[M])\n"
                      "{\n"
                      "#pragma tile grid\n"
                      "    for (int by = 0; by < tile_cdiv(M, 64); by++) {\n"
                      "#pragma tile shared\n"
                      "        half As[64][32], Bs[32][64];\n"
                      "#pragma tile fragment\n"
                      "        float Cf[64][64], rs[64];\n"
                      "        tile_clear(Cf);\n"
                      "#pragma tile pipelined stages(2)\n"
                      "        for (int k = 0; k < tile_cdiv(K, 32); k++) {\n"
                      "            tile_load(As, A, by * 64, k * 32, M, K);\n"
                      "            tile_load(Bs, B, k * 32, 0, K, 64);\n"
                      "            tile_gemm(As, Bs, Cf);\n"
                      "        }\n"
                      "        for (int twice = 0; twice < 2; twice++)\n"
                      "            tile_reduce_sum(Cf, rs, 1, twice == 0);\n"
                      "        tile_store(C, Cf, by * 64, 0, M, 64);\n"
                      "        tile_store(s, rs, by * 64, M);\n"
                      "    }\n"
                      "}\n");
    if (!plan)
        fail_msg("refused:\n%s", unit_diag());
    gp = unit_grid_plan(plan, "g", 0);
    assert_null(gp->sm90);
    assert_string_equal(gp->sm90_why,
                        "the block has a sequential loop (the variant runs one pipelined loop, and fragment work "
                        "around it)");
    unit_teardown(NULL);
    unit_setup(NULL);

    /* a product after the pipelined loop (a two-layer MLP's second layer,
     * its weights loaded before the loop) is named as the reason */
    plan = unit_lower("#include <tilepp/tile.h>\n"
                      "#pragma tile kernel threads(128)\n"
                      "void mlp(int M, int K, const half X[M][K], const half W1[K][64], const half W2[64][64],\n"
                      "         float Y[M][64])\n"
                      "{\n"
                      "#pragma tile grid\n"
                      "    for (int by = 0; by < tile_cdiv(M, 64); by++) {\n"
                      "#pragma tile shared\n"
                      "        half Xs[64][32], W1s[32][64], W2s[64][64];\n"
                      "#pragma tile fragment\n"
                      "        float Hf[64][64], Yf[64][64];\n"
                      "#pragma tile fragment\n"
                      "        half P[64][64];\n"
                      "        tile_load(W2s, W2, 0, 0, 64, 64);\n"
                      "        tile_clear(Hf);\n"
                      "        tile_clear(Yf);\n"
                      "#pragma tile pipelined stages(2)\n"
                      "        for (int k = 0; k < tile_cdiv(K, 32); k++) {\n"
                      "            tile_load(Xs, X, by * 64, k * 32, M, K);\n"
                      "            tile_load(W1s, W1, k * 32, 0, K, 64);\n"
                      "            tile_gemm(Xs, W1s, Hf);\n"
                      "        }\n"
                      "        tile_copy(P, Hf);\n"
                      "        tile_gemm(P, W2s, Yf);\n"
                      "        tile_store(Y, Yf, by * 64, 0, M, 64);\n"
                      "    }\n"
                      "}\n");
    if (!plan)
        fail_msg("refused:\n%s", unit_diag());
    gp = unit_grid_plan(plan, "mlp", 0);
    assert_null(gp->sm90);
    assert_string_equal(gp->sm90_why,
                        "a product runs outside the pipelined loop (the variant multiplies in the loop only)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(update_forms),
        UNIT_TEST(update_refusals),
        UNIT_TEST(scalar_statements),
        UNIT_TEST(conditional_operand_casts),
        UNIT_TEST(tile_minmax_over_tiles),
        UNIT_TEST(tile_access_in_macro_refused),
        UNIT_TEST(barriers),
        UNIT_TEST(registers_between_loops),
        UNIT_TEST(teams_and_streams),
        UNIT_TEST(fragment_layouts),
        UNIT_TEST(row_fragments),
        UNIT_TEST(row_fragments_across_warps),
        UNIT_TEST(strips_choice),
        UNIT_TEST(column_fragments),
        UNIT_TEST(packed_operands_and_guards),
        UNIT_TEST(no_registers_between_loops),
        UNIT_TEST(reductions_over_the_grid),
        UNIT_TEST(tile_ops_in_block_loops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

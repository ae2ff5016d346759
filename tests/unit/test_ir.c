/* test_ir.c — build_ir on small sources: parameters, threads, loops,
 * collapsing, buffer accesses and their affine indices, the prelude. */
#include "unit.h"

#include <string.h>

static void expect_clean(void)
{
    assert_int_equal(diag_error_count(), 0);
    assert_string_equal(unit_diag(), "");
}

static const IrBuffer *buffer_param(const IrKernel *k, const char *name)
{
    const IrParam *p = unit_param(k, name);
    assert_int_equal(p->kind, PARAM_BUFFER);
    assert_non_null(p->buf);
    assert_string_equal(p->buf->name, name);
    assert_int_equal(p->buf->space, SPACE_GLOBAL);
    return p->buf;
}

/* ---- parameters ---- */

static void kernel_params(void **state)
{
    (void)state;
    static const char src[] = "#include <tilepp/tile.h>\n"
                              "#pragma tile kernel\n"
                              "void params(int n, float s, const float *a, double *b, int rows, int cols,\n"
                              "            const half m[rows][cols], float t[2][rows][cols + 1], float (*x)[cols],\n"
                              "            unsigned char u[], long long big)\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; i++)\n"
                              "        b[i] = a[i] * s;\n"
                              "}\n";
    IrModule *m = unit_build(src);
    assert_non_null(m);
    expect_clean();
    assert_int_equal(m->kernels.len, 1);
    const IrKernel *k = unit_kernel(m, "params");
    assert_int_equal(k->params.len, 11);
    assert_int_equal(k->loc.line, 3);

    static const char *const order[] = {"n", "s", "a", "b", "rows", "cols", "m", "t", "x", "u", "big"};
    for (int i = 0; i < 11; i++)
        assert_string_equal(((const IrParam *)k->params.items[i])->name, order[i]);

    const IrParam *n = unit_param(k, "n");
    assert_int_equal(n->kind, PARAM_SCALAR);
    assert_int_equal(n->type.kind, SCALAR_INT);
    assert_int_equal(n->type.size, 4);
    assert_true(n->type.is_signed);
    assert_string_equal(n->type.spelling, "int");
    assert_int_equal(n->loc.line, 3);

    const IrParam *s = unit_param(k, "s");
    assert_int_equal(s->kind, PARAM_SCALAR);
    assert_int_equal(s->type.kind, SCALAR_FLOAT);
    assert_int_equal(s->type.size, 4);
    assert_true(ir_type_is_float(&s->type));

    const IrParam *big = unit_param(k, "big");
    assert_int_equal(big->kind, PARAM_SCALAR);
    assert_int_equal(big->type.kind, SCALAR_INT);
    assert_int_equal(big->type.size, 8);

    const IrBuffer *a = buffer_param(k, "a");
    assert_int_equal(a->rank, 1);
    assert_true(a->is_const);
    assert_int_equal(a->elem.kind, SCALAR_FLOAT);
    assert_int_equal(a->elem.size, 4);
    assert_string_equal(a->elem.spelling, "const float");
    assert_null(a->extents[0]);

    const IrBuffer *b = buffer_param(k, "b");
    assert_int_equal(b->rank, 1);
    assert_false(b->is_const);
    assert_int_equal(b->elem.kind, SCALAR_DOUBLE);
    assert_int_equal(b->elem.size, 8);

    const IrBuffer *mm = buffer_param(k, "m");
    assert_int_equal(mm->rank, 2);
    assert_true(mm->is_const);
    assert_int_equal(mm->elem.kind, SCALAR_HALF);
    assert_int_equal(mm->elem.size, 2);
    assert_string_equal(mm->extents[0], "rows");
    assert_string_equal(mm->extents[1], "cols");

    const IrBuffer *t = buffer_param(k, "t");
    assert_int_equal(t->rank, 3);
    assert_false(t->is_const);
    assert_string_equal(t->extents[0], "2");
    assert_string_equal(t->extents[1], "rows");
    assert_string_equal(t->extents[2], "cols + 1");

    const IrBuffer *x = buffer_param(k, "x");
    assert_int_equal(x->rank, 2);
    assert_null(x->extents[0]);
    assert_string_equal(x->extents[1], "cols");
    assert_int_equal(x->elem.kind, SCALAR_FLOAT);

    const IrBuffer *u = buffer_param(k, "u");
    assert_int_equal(u->rank, 1);
    assert_null(u->extents[0]);
    assert_int_equal(u->elem.kind, SCALAR_INT);
    assert_int_equal(u->elem.size, 1);
    assert_false(u->elem.is_signed);
}

static void unsupported_params_refused(void **state)
{
    (void)state;
    static const char src[] = "struct pt { float x, y; };\n"
                              "#pragma tile kernel\n"
                              "void k(int n, float **pp, struct pt *q, float *c)\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; i++)\n"
                              "        c[i] = 0;\n"
                              "}\n";
    /* TRANSLATOR BUG (reported): build_buffer_param() peels every pointer
     * level before it tests for a pointer element, so its "pointers to
     * pointers" message is never given; `float **pp` is refused as
     * "cannot find the extent of dimension 2" instead. */
    assert_null(unit_build(src));
    assert_int_equal(diag_error_count(), 2);
    assert_true(unit_diag_has_line(
        "unit_input.c:3:23: error: parameter 'pp': pointers to pointers are not supported in kernels"));
    assert_non_null(strstr(unit_diag(), "unit_input.c:3:38: error: parameter 'q': elements of type 'struct pt' are "
                                        "not supported"));
}

/* ---- threads(N) ---- */

static void threads_clause(void **state)
{
    (void)state;
    static const char src[] = "enum { T = 64 };\n"
                              "#define NT (2 * 48)\n"
                              "#define NT2 NT + 32\n"
                              "static const int CT = 512;\n"
                              "#pragma tile kernel threads(128)\n"
                              "void lit(int n, float *c)\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; i++) c[i] = 0;\n"
                              "}\n"
                              "#pragma tile kernel threads(T)\n"
                              "void en(int n, float *c)\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; i++) c[i] = 0;\n"
                              "}\n"
                              "#pragma tile kernel threads(NT)\n"
                              "void mac(int n, float *c)\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; i++) c[i] = 0;\n"
                              "}\n"
                              "#pragma tile kernel threads(NT2 * 2)\n"
                              "void expr(int n, float *c)\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; i++) c[i] = 0;\n"
                              "}\n"
                              "#pragma tile kernel threads(CT)\n"
                              "void cst(int n, float *c)\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; i++) c[i] = 0;\n"
                              "}\n"
                              "#pragma tile kernel\n"
                              "void dflt(int n, float *c)\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; i++) c[i] = 0;\n"
                              "}\n";
    IrModule *m = unit_build(src);
    assert_non_null(m);
    expect_clean();
    assert_int_equal(m->kernels.len, 6);
    assert_int_equal(unit_kernel(m, "lit")->threads, 128);
    assert_int_equal(unit_kernel(m, "en")->threads, 64);
    assert_int_equal(unit_kernel(m, "mac")->threads, 96);
    /* NT2 * 2 expands to (2 * 48) + 32 * 2 = 160, as the preprocessor does.
     * TRANSLATOR BUG (reported): eval_macro() evaluates a macro's body as a
     * parenthesised sub-expression, giving (96 + 32) * 2 = 256. */
    assert_int_equal(unit_kernel(m, "expr")->threads, 160);
    assert_int_equal(unit_kernel(m, "cst")->threads, 512);
    assert_int_equal(unit_kernel(m, "dflt")->threads, 256);
}

static void threads_values_checked(void **state)
{
    (void)state;
    static const char src[] = "#pragma tile kernel threads(48)\n"
                              "void a(int n, float *c)\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; i++) c[i] = 0;\n"
                              "}\n"
                              "#pragma tile kernel threads(2048)\n"
                              "void b(int n, float *c)\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; i++) c[i] = 0;\n"
                              "}\n"
                              "#pragma tile kernel threads(UNKNOWN)\n"
                              "void d(int n, float *c)\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; i++) c[i] = 0;\n"
                              "}\n";
    assert_null(unit_build(src));
    assert_int_equal(diag_error_count(), 3);
    assert_true(unit_diag_has_line("unit_input.c:1:29: error: threads(48) must be a multiple of 32 (the warp size)"));
    assert_true(unit_diag_has_line("unit_input.c:7:29: error: threads(2048) is out of range: expected 32 to 1024"));
    assert_true(unit_diag_has_line("unit_input.c:13:29: error: 'UNKNOWN' is not an integer constant (expected a "
                                   "number, an enum constant or a macro)"));
}

/* ---- loops ---- */

static void loop_forms(void **state)
{
    (void)state;
    static const char src[] = "#pragma tile kernel\n"
                              "void loops(int n, int s, float *c)\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; i++)\n"
                              "        c[i] = 0;\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 1; i <= n; i += 2)\n"
                              "        c[i] = 1;\n"
                              "#pragma tile parallel\n"
                              "    for (int i = n - 1; i >= 0; i--)\n"
                              "        c[i] = 2;\n"
                              "#pragma tile parallel\n"
                              "    for (long i = 0; n > i; i = i + s)\n"
                              "        c[i] = 3;\n"
                              "#pragma tile parallel\n"
                              "    for (int i = n; i > 0; i -= 3)\n"
                              "        c[i - 1] = 4;\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; ++i)\n"
                              "        c[i] = 5;\n"
                              "}\n";
    IrModule *m = unit_build(src);
    assert_non_null(m);
    expect_clean();
    const IrKernel *k = unit_kernel(m, "loops");
    assert_int_equal(k->stmts.len, 6);

    const IrParallel *p = unit_parallel(k, 0);
    assert_int_equal(p->depth, 1);
    assert_int_equal(p->vector, 1);
    assert_int_equal(p->loc.line, 4);
    const IrLoop *l = &p->loops[0];
    assert_string_equal(l->var, "i");
    assert_int_equal(l->var_type.kind, SCALAR_INT);
    assert_int_equal(l->var_type.size, 4);
    assert_string_equal(l->lo, "0");
    assert_string_equal(l->hi, "n");
    assert_string_equal(l->step, "1");
    assert_true(l->step_is_const);
    assert_int_equal(l->step_const, 1);
    assert_false(l->inclusive);
    assert_false(l->descending);
    assert_int_equal(l->loc.line, 5);

    l = &unit_parallel(k, 1)->loops[0];
    assert_string_equal(l->lo, "1");
    assert_string_equal(l->hi, "n");
    assert_string_equal(l->step, "(2)");
    assert_true(l->step_is_const);
    assert_int_equal(l->step_const, 2);
    assert_true(l->inclusive);
    assert_false(l->descending);

    l = &unit_parallel(k, 2)->loops[0];
    assert_string_equal(l->lo, "n - 1");
    assert_string_equal(l->hi, "0");
    assert_string_equal(l->step, "-1");
    assert_true(l->step_is_const);
    assert_int_equal(l->step_const, -1);
    assert_true(l->inclusive);
    assert_true(l->descending);

    l = &unit_parallel(k, 3)->loops[0];
    assert_int_equal(l->var_type.size, 8);
    assert_string_equal(l->lo, "0");
    assert_string_equal(l->hi, "n");
    assert_string_equal(l->step, "(s)");
    assert_false(l->step_is_const);
    assert_false(l->inclusive);
    assert_false(l->descending);

    l = &unit_parallel(k, 4)->loops[0];
    assert_string_equal(l->lo, "n");
    assert_string_equal(l->hi, "0");
    assert_string_equal(l->step, "(-(3))");
    assert_true(l->step_is_const);
    assert_int_equal(l->step_const, -3);
    assert_false(l->inclusive);
    assert_true(l->descending);

    l = &unit_parallel(k, 5)->loops[0];
    assert_string_equal(l->step, "1");
    assert_int_equal(l->step_const, 1);
}

static void non_canonical_loops_refused(void **state)
{
    (void)state;
    static const char src[] = "#pragma tile kernel\n"
                              "void k(int n, float *c)\n"
                              "{\n"
                              "    int j = 0;\n"
                              "#pragma tile parallel\n"
                              "    for (j = 0; j < n; j++)\n"
                              "        c[j] = 0;\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i != n; i++)\n"
                              "        c[i] = 0;\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; i--)\n"
                              "        c[i] = 0;\n"
                              "}\n";
    assert_null(unit_build(src));
    assert_int_equal(diag_error_count(), 3);
    assert_true(
        unit_diag_has_line("unit_input.c:6:5: error: a loop under '#pragma tile' must have the form 'for (int v = lo; "
                           "v < hi; v += step)' (also <=, >, >=, ++, --, -=)"));
    assert_true(
        unit_diag_has_line("unit_input.c:9:5: error: a loop under '#pragma tile' must have the form 'for (int v = lo; "
                           "v < hi; v += step)' (also <=, >, >=, ++, --, -=)"));
    assert_true(
        unit_diag_has_line("unit_input.c:12:5: error: the loop's step goes away from its bound: it would never end"));
}

/* ---- collapsing ---- */

static void collapse_depth(void **state)
{
    (void)state;
    static const char src[] = "#pragma tile kernel\n"
                              "void nest(int m, int n, int o, float *c, const float *a)\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < m; i++)\n"
                              "        for (int j = 0; j < n; j++)\n"
                              "            c[i * n + j] = a[i * n + j];\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < m; i++) {\n"
                              "        for (int j = 0; j < n; j += 2) {\n"
                              "            c[i * n + j] = 2 * a[i * n + j];\n"
                              "        }\n"
                              "    }\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; i++)\n"
                              "        for (int j = 0; j < i; j++)\n"
                              "            c[i * n + j] = 0;\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < m; i++)\n"
                              "        for (int j = i; j < n; j++)\n"
                              "            c[i * n + j] = 0;\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < m; i++) {\n"
                              "        c[i] = 0;\n"
                              "        for (int j = 0; j < n; j++)\n"
                              "            c[i] += a[i * n + j];\n"
                              "    }\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < m; i++)\n"
                              "        for (int j = 0; j < n; j++)\n"
                              "            for (int k = 0; k < o; k++)\n"
                              "                for (int l = 0; l < 4; l++)\n"
                              "                    c[((i * n + j) * o + k) * 4 + l] = 1;\n"
                              "}\n";
    IrModule *m = unit_build(src);
    assert_non_null(m);
    expect_clean();
    const IrKernel *k = unit_kernel(m, "nest");

    const IrParallel *p = unit_parallel(k, 0); /* 2-D perfect nest */
    assert_int_equal(p->depth, 2);
    assert_string_equal(p->loops[0].var, "i");
    assert_string_equal(p->loops[0].hi, "m");
    assert_string_equal(p->loops[1].var, "j");
    assert_string_equal(p->loops[1].hi, "n");
    assert_int_equal(p->loops[1].loc.line, 6);

    p = unit_parallel(k, 1); /* the same in braces, inner step 2 */
    assert_int_equal(p->depth, 2);
    assert_int_equal(p->loops[1].step_const, 2);

    p = unit_parallel(k, 2); /* triangular: the inner bound reads i */
    assert_int_equal(p->depth, 1);
    /* the inner loop stays in the body: its accesses are conditional */
    assert_true(unit_access(p, "c[i * n + j]", 0)->conditional);

    p = unit_parallel(k, 3); /* the inner start reads i */
    assert_int_equal(p->depth, 1);

    p = unit_parallel(k, 4); /* not a perfect nest */
    assert_int_equal(p->depth, 1);

    p = unit_parallel(k, 5); /* four deep: the outer three collapse */
    assert_int_equal(p->depth, IR_MAX_NEST);
    assert_string_equal(p->loops[2].var, "k");
}

static void inner_loop_with_own_pragma_not_collapsed(void **state)
{
    (void)state;
    /* Were the inner loop collapsed, its pragma would go unused and be
     * reported as outside a kernel; not collapsed, it is a pragma inside
     * the body of a parallel loop. */
    static const char src[] = "#pragma tile kernel\n"
                              "void k(int m, int n, float *c)\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < m; i++)\n"
                              "#pragma tile parallel\n"
                              "        for (int j = 0; j < n; j++)\n"
                              "            c[i * n + j] = 0;\n"
                              "}\n";
    assert_null(unit_build(src));
    assert_int_equal(diag_error_count(), 1);
    assert_string_equal(unit_diag_first_line(),
                        "unit_input.c:6:1: error: '#pragma tile parallel' inside a parallel loop is not supported");
}

/* ---- accesses ---- */

static const char access_src[] =
    "static float helper(const float *p, int i) { return p[i]; }\n"
    "enum { N = 3 };\n"
    "#pragma tile kernel\n"
    "void acc(int n, int off, float *c, const float *a, const float *b, float *d, float *e,\n"
    "         const int *idx, float g[n][4])\n"
    "{\n"
    "#pragma tile parallel\n" /* nest 0: read/write flags */
    "    for (int i = 0; i < n; i++) {\n"
    "        c[i] = a[i];\n"
    "        d[i] += 1;\n"
    "        e[i]++;\n"
    "    }\n"
    "#pragma tile parallel\n" /* nest 1: conditional */
    "    for (int i = 0; i < n; i++) {\n"
    "        if (a[i] > 0)\n"
    "            c[i] = b[i];\n"
    "        c[i + 1] = a[i + 1] > 0 ? b[i + 1] : 0;\n"
    "        c[i + 2] = a[i + 2] > 0 && b[i + 2] > 0;\n"
    "        c[i + 3] = a[i + 3] > 0 || b[i + 3] > 0;\n"
    "        for (int k = 0; k < 2; k++)\n"
    "            d[i] += b[i + 4];\n"
    "    }\n"
    "#pragma tile parallel\n" /* nest 2: nested and escaping */
    "    for (int i = 0; i < n; i++) {\n"
    "        c[idx[i]] = a[i];\n"
    "        float *p = &d[i];\n"
    "        *p = 1;\n"
    "        e[i] = helper(b, i);\n"
    "        float *row = g[i];\n"
    "        row[0] = 0;\n"
    "    }\n"
    "#pragma tile parallel\n" /* nest 3: affine forms */
    "    for (int i = 0; i < n; i++) {\n"
    "        c[2 * i + 1] = a[i + off];\n"
    "        d[i * i] = a[off - i] + a[3 * (i + 1)] + a[(long)i + N] + a[i + off * 2] + a[idx[0]];\n"
    "    }\n"
    "}\n"
    "#pragma tile kernel\n"
    "void mat(int rows, int cols, const float x[rows][cols], float y[cols][rows])\n"
    "{\n"
    "#pragma tile parallel\n"
    "    for (int r = 0; r < rows; r++)\n"
    "        for (int c = 0; c < cols; c++)\n"
    "            y[c][r] = x[r][c];\n"
    "}\n";

static void access_flags(void **state)
{
    (void)state;
    IrModule *m = unit_build(access_src);
    assert_non_null(m);
    expect_clean();
    const IrParallel *p = unit_parallel(unit_kernel(m, "acc"), 0);
    assert_int_equal(p->accesses.len, 4);

    const IrAccess *a = unit_access(p, "c[i]", 0);
    assert_string_equal(a->buf->name, "c");
    assert_true(a->is_write);
    assert_false(a->is_read);
    assert_int_equal(a->ndims, 1);
    assert_int_equal(a->loc.line, 9);
    assert_int_equal(a->loc.col, 9);

    a = unit_access(p, "a[i]", 0);
    assert_true(a->is_read);
    assert_false(a->is_write);

    a = unit_access(p, "d[i]", 0);
    assert_true(a->is_read);
    assert_true(a->is_write);

    a = unit_access(p, "e[i]", 0);
    assert_true(a->is_read);
    assert_true(a->is_write);

    for (int i = 0; i < p->accesses.len; i++) {
        a = p->accesses.items[i];
        assert_false(a->conditional);
        assert_false(a->nested);
        assert_false(a->escapes);
    }

    /* The body is the source text with the accesses cut out. */
    int naccess = 0;
    for (int i = 0; i < p->body->nsegs; i++)
        naccess += p->body->segs[i].kind == SEG_ACCESS;
    assert_int_equal(naccess, 4);
}

static void access_conditional(void **state)
{
    (void)state;
    IrModule *m = unit_build(access_src);
    assert_non_null(m);
    const IrParallel *p = unit_parallel(unit_kernel(m, "acc"), 1);

    assert_false(unit_access(p, "a[i]", 0)->conditional); /* the if's condition runs always */
    assert_true(unit_access(p, "c[i]", 0)->conditional);
    assert_true(unit_access(p, "b[i]", 0)->conditional);

    assert_false(unit_access(p, "c[i + 1]", 0)->conditional);
    assert_false(unit_access(p, "a[i + 1]", 0)->conditional);
    assert_true(unit_access(p, "b[i + 1]", 0)->conditional); /* ?: */

    assert_false(unit_access(p, "c[i + 2]", 0)->conditional);
    assert_false(unit_access(p, "a[i + 2]", 0)->conditional);
    assert_true(unit_access(p, "b[i + 2]", 0)->conditional); /* && */

    assert_false(unit_access(p, "a[i + 3]", 0)->conditional);
    assert_true(unit_access(p, "b[i + 3]", 0)->conditional); /* || */

    assert_true(unit_access(p, "d[i]", 0)->conditional); /* inner loop */
    assert_true(unit_access(p, "b[i + 4]", 0)->conditional);
}

static void access_nested_and_escaping(void **state)
{
    (void)state;
    IrModule *m = unit_build(access_src);
    assert_non_null(m);
    const IrParallel *p = unit_parallel(unit_kernel(m, "acc"), 2);

    const IrAccess *c = unit_access(p, "c[idx[i]]", 0);
    assert_true(c->is_write);
    assert_false(c->nested);
    assert_false(c->index[0].ok);

    const IrAccess *idx = unit_access(p, "idx[i]", 0);
    assert_true(idx->nested);
    assert_true(idx->is_read);
    assert_false(idx->is_write);
    assert_true(idx->index[0].ok);

    assert_false(unit_access(p, "a[i]", 0)->nested);
    assert_false(unit_access(p, "a[i]", 0)->escapes);

    const IrAccess *d = unit_access(p, "d[i]", 0);
    assert_true(d->escapes); /* &d[i] */
    assert_true(d->is_write);

    const IrAccess *b = unit_access(p, "b", 0); /* passed to helper() */
    assert_true(b->escapes);
    assert_true(b->is_read);
    assert_true(b->is_write);
    assert_string_equal(b->buf->name, "b");

    assert_false(unit_access(p, "e[i]", 0)->escapes);

    const IrAccess *g = unit_access(p, "g[i]", 0); /* a row, not an element */
    assert_int_equal(g->ndims, 1);
    assert_int_equal(g->buf->rank, 2);
    assert_true(g->escapes);
}

static void access_affine_forms(void **state)
{
    (void)state;
    IrModule *m = unit_build(access_src);
    assert_non_null(m);
    const IrParallel *p = unit_parallel(unit_kernel(m, "acc"), 3);

    const Affine *x = &unit_access(p, "c[2 * i + 1]", 0)->index[0];
    assert_true(x->ok);
    assert_int_equal(x->coef[0], 2);
    assert_int_equal(x->offset, 1);
    assert_string_equal(x->rest, "");

    x = &unit_access(p, "a[i + off]", 0)->index[0];
    assert_true(x->ok);
    assert_int_equal(x->coef[0], 1);
    assert_int_equal(x->offset, 0);
    assert_string_equal(x->rest, "off");

    x = &unit_access(p, "d[i * i]", 0)->index[0];
    assert_false(x->ok);

    x = &unit_access(p, "a[off - i]", 0)->index[0];
    assert_true(x->ok);
    assert_int_equal(x->coef[0], -1);
    assert_int_equal(x->offset, 0);
    assert_string_equal(x->rest, "off");

    x = &unit_access(p, "a[3 * (i + 1)]", 0)->index[0];
    assert_true(x->ok);
    assert_int_equal(x->coef[0], 3);
    assert_int_equal(x->offset, 3);
    assert_string_equal(x->rest, "");

    x = &unit_access(p, "a[(long)i + N]", 0)->index[0];
    assert_true(x->ok);
    assert_int_equal(x->coef[0], 1);
    assert_int_equal(x->offset, 3);
    assert_string_equal(x->rest, "");

    x = &unit_access(p, "a[i + off * 2]", 0)->index[0];
    assert_true(x->ok);
    assert_int_equal(x->coef[0], 1);
    assert_int_equal(x->offset, 0);
    assert_non_null(strstr(x->rest, "off"));

    /* a loaded value is not loop-invariant C the analysis may trust */
    x = &unit_access(p, "a[idx[0]]", 0)->index[0];
    assert_false(x->ok);

    const IrParallel *q = unit_parallel(unit_kernel(m, "mat"), 0);
    assert_int_equal(q->depth, 2);
    const IrAccess *xr = unit_access(q, "x[r][c]", 0);
    assert_int_equal(xr->ndims, 2);
    assert_false(xr->escapes);
    assert_true(xr->index[0].ok && xr->index[1].ok);
    assert_int_equal(xr->index[0].coef[0], 1);
    assert_int_equal(xr->index[0].coef[1], 0);
    assert_int_equal(xr->index[1].coef[0], 0);
    assert_int_equal(xr->index[1].coef[1], 1);
    const IrAccess *yc = unit_access(q, "y[c][r]", 0);
    assert_true(yc->is_write);
    assert_int_equal(yc->index[0].coef[0], 0);
    assert_int_equal(yc->index[0].coef[1], 1);
    assert_int_equal(yc->index[1].coef[0], 1);
    assert_int_equal(yc->index[1].coef[1], 0);
}

/* ---- the prelude ---- */

static int prelude_count(const IrModule *m, IrPreludeKind kind, const char *needle)
{
    int n = 0;
    for (int i = 0; i < m->prelude.len; i++) {
        const IrPrelude *p = m->prelude.items[i];
        n += p->kind == kind && strstr(p->text, needle) != NULL;
    }
    return n;
}

static const IrPrelude *prelude_find(const IrModule *m, IrPreludeKind kind, const char *needle)
{
    for (int i = 0; i < m->prelude.len; i++) {
        const IrPrelude *p = m->prelude.items[i];
        if (p->kind == kind && strstr(p->text, needle))
            return p;
    }
    fail_msg("no prelude item containing '%s'", needle);
    return NULL;
}

static bool prelude_mentions(const IrModule *m, const char *needle)
{
    for (int i = 0; i < m->prelude.len; i++)
        if (strstr(((const IrPrelude *)m->prelude.items[i])->text, needle))
            return true;
    return false;
}

static void prelude_closure(void **state)
{
    (void)state;
    static const char src[] = "#include <tilepp/tile.h>\n"                                   /* 1 */
                              "#define SCALE 2.0f\n"                                         /* 2 */
                              "enum { WIDTH = 4 };\n"                                        /* 3 */
                              "enum unused_enum { UNUSED_A };\n"                             /* 4 */
                              "static const float table[WIDTH] = {1, 2, 3, 4};\n"            /* 5 */
                              "static float square(float x) { return x * x; }\n"             /* 6 */
                              "static float scaled(float x) { return SCALE * square(x); }\n" /* 7 */
                              "static float unused_helper(float x) { return x + 1; }\n"      /* 8 */
                              "typedef struct { float v; } unused_pair;\n"                   /* 9 */
                              "#pragma tile kernel\n"                                        /* 10 */
                              "void k(int n, float *c, const float *a)\n"                    /* 11 */
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; i++)\n"
                              "        c[i] = scaled(a[i]) + table[i % WIDTH];\n"
                              "}\n"
                              "int main(void)\n"
                              "{\n"
                              "    float c[4], a[4] = {0};\n"
                              "    k(4, c, a);\n"
                              "    return unused_helper(c[0]) > 0;\n"
                              "}\n";
    IrModule *m = unit_build(src);
    assert_non_null(m);
    expect_clean();
    assert_string_equal(m->source_path, UNIT_FILE);

    const IrPrelude *p = prelude_find(m, PRELUDE_MACRO, "SCALE");
    assert_string_equal(p->text, "#define SCALE 2.0f");
    assert_int_equal(p->loc.line, 2);

    p = prelude_find(m, PRELUDE_DECL, "WIDTH");
    assert_int_equal(p->loc.line, 3);
    assert_non_null(strstr(p->text, "WIDTH = 4"));

    p = prelude_find(m, PRELUDE_VARIABLE, "table");
    assert_int_equal(p->loc.line, 5);
    assert_true(p->is_static);

    p = prelude_find(m, PRELUDE_FUNCTION, "square");
    assert_int_equal(p->loc.line, 6);
    assert_true(p->is_static);
    assert_true(str_starts_with(p->text, "static float square(float x)"));
    p = prelude_find(m, PRELUDE_FUNCTION, "scaled(float x)"); /* reached through scaled() */
    assert_int_equal(p->loc.line, 7);

    assert_int_equal(prelude_count(m, PRELUDE_FUNCTION, ""), 2);
    assert_false(prelude_mentions(m, "unused_helper"));
    assert_false(prelude_mentions(m, "main"));
    assert_false(prelude_mentions(m, "unused_enum"));
    assert_false(prelude_mentions(m, "unused_pair"));
    assert_false(prelude_mentions(m, "void k("));

    /* in source order */
    for (int i = 1; i < m->prelude.len; i++)
        assert_true(((const IrPrelude *)m->prelude.items[i - 1])->loc.line <
                    ((const IrPrelude *)m->prelude.items[i])->loc.line);
}

static void prelude_refuses_mutable_globals_and_undefined_functions(void **state)
{
    (void)state;
    static const char src[] = "float gain = 2;\n"
                              "float ext(float);\n"
                              "#pragma tile kernel\n"
                              "void k(int n, float *c)\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; i++)\n"
                              "        c[i] = gain * ext(c[i]);\n"
                              "}\n";
    /* One error each.
     * TRANSLATOR BUG (reported): the closure visits both the CallExpr and
     * the DeclRefExpr of `ext` and reports the missing definition twice. */
    assert_null(unit_build(src));
    assert_int_equal(diag_error_count(), 2);
    assert_non_null(strstr(unit_diag(), "unit_input.c:8:16: error: kernels cannot use the global variable 'gain'"));
    assert_non_null(
        strstr(unit_diag(), "error: kernels can call only functions defined in this file; 'ext' has no definition"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(kernel_params),
        UNIT_TEST(unsupported_params_refused),
        UNIT_TEST(threads_clause),
        UNIT_TEST(threads_values_checked),
        UNIT_TEST(loop_forms),
        UNIT_TEST(non_canonical_loops_refused),
        UNIT_TEST(collapse_depth),
        UNIT_TEST(inner_loop_with_own_pragma_not_collapsed),
        UNIT_TEST(access_flags),
        UNIT_TEST(access_conditional),
        UNIT_TEST(access_nested_and_escaping),
        UNIT_TEST(access_affine_forms),
        UNIT_TEST(prelude_closure),
        UNIT_TEST(prelude_refuses_mutable_globals_and_undefined_functions),
    };
    return cmocka_run_group_tests_name("ir", tests, NULL, NULL);
}

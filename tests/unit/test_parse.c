/* test_parse.c — the front end: pragma discovery in the token stream and
 * attachment to the construct that follows, on in-memory sources. */
#include "unit.h"

#include <string.h>

static const Attached *attached(const FrontEnd *fe, int i)
{
    assert_true(i < fe->attached.len);
    return fe->attached.items[i];
}

static int target_line(const FrontEnd *fe, const Attached *a) { return fe_cursor_loc(fe, a->target).line; }

static enum CXCursorKind target_kind(const Attached *a) { return clang_getCursorKind(a->target); }

static void expect_clean(void)
{
    assert_int_equal(diag_error_count(), 0);
    assert_string_equal(unit_diag(), "");
}

static void attaches_to_following_construct(void **state)
{
    (void)state;
    static const char src[] = "#include <tilepp/tile.h>\n"        /* 1 */
                              "#pragma tile kernel\n"             /* 2 */
                              "void k(int n, float *c)\n"         /* 3 */
                              "{\n"                               /* 4 */
                              "#pragma tile parallel\n"           /* 5 */
                              "    for (int i = 0; i < n; i++)\n" /* 6 */
                              "        c[i] = 0;\n"               /* 7 */
                              "}\n"                               /* 8 */
                              "void g(void)\n"                    /* 9 */
                              "{\n"                               /* 10 */
                              "    #pragma tile shared\n"         /* 11 */
                              "    half s[4][4];\n"               /* 12 */
                              "    (void)s;\n"                    /* 13 */
                              "}\n"                               /* 14 */
                              "#pragma tile local\n"              /* 15 */
                              "static float t[8];\n";             /* 16 */
    FrontEnd *fe = unit_parse(src);
    assert_non_null(fe);
    expect_clean();
    assert_int_equal(fe->attached.len, 4);

    const Attached *a = attached(fe, 0);
    assert_int_equal(a->pragma->kind, PRAGMA_KERNEL);
    assert_int_equal(target_kind(a), CXCursor_FunctionDecl);
    assert_string_equal(cx_take(clang_getCursorSpelling(a->target)), "k");
    assert_int_equal(target_line(fe, a), 3);
    assert_string_equal(a->pragma->loc.file, UNIT_FILE);
    assert_int_equal(a->pragma->loc.line, 2);
    assert_int_equal(a->pragma->loc.col, 1);
    assert_int_equal(a->pragma->kind_loc.col, 14);
    assert_int_equal(a->pragma->end_offset - a->pragma->begin_offset, strlen("#pragma tile kernel"));
    assert_true(str_starts_with(fe->text + a->pragma->begin_offset, "#pragma tile kernel\n"));
    assert_ptr_equal(fe_pragma_on(fe, a->target, PRAGMA_KERNEL), a->pragma);
    assert_null(fe_pragma_on(fe, a->target, PRAGMA_PARALLEL));
    assert_ptr_equal(fe_attached_on(fe, a->target), a);

    a = attached(fe, 1);
    assert_int_equal(a->pragma->kind, PRAGMA_PARALLEL);
    assert_int_equal(target_kind(a), CXCursor_ForStmt);
    assert_int_equal(target_line(fe, a), 6);

    a = attached(fe, 2);
    assert_int_equal(a->pragma->kind, PRAGMA_SHARED);
    assert_int_equal(a->pragma->loc.line, 11);
    assert_int_equal(a->pragma->loc.col, 5);
    assert_int_equal(target_kind(a), CXCursor_DeclStmt);
    assert_int_equal(target_line(fe, a), 12);

    a = attached(fe, 3);
    assert_int_equal(a->pragma->kind, PRAGMA_LOCAL);
    assert_int_equal(target_kind(a), CXCursor_VarDecl);
    assert_int_equal(target_line(fe, a), 16);

    /* The file itself and the header it includes are dependencies. */
    assert_true(fe->dependencies.len >= 2);
    assert_string_equal(fe->dependencies.items[0], UNIT_FILE);
    bool found = false;
    for (int i = 1; i < fe->dependencies.len; i++)
        found |= str_ends_with(fe->dependencies.items[i], "tilepp/tile.h");
    assert_true(found);
}

static void comments_and_blank_lines_between(void **state)
{
    (void)state;
    static const char src[] = "#pragma tile kernel\n"
                              "\n"
                              "// the kernel\n"
                              "/* a block\n"
                              "   comment */\n"
                              "void k(int n, float *c)\n"
                              "{\n"
                              "#pragma tile parallel /* trailing comment */\n"
                              "    // about the loop\n"
                              "    for (int i = 0; i < n; i++)\n"
                              "        c[i] = 0;\n"
                              "}\n";
    FrontEnd *fe = unit_parse(src);
    assert_non_null(fe);
    expect_clean();
    assert_int_equal(fe->attached.len, 2);
    assert_int_equal(target_kind(attached(fe, 0)), CXCursor_FunctionDecl);
    assert_int_equal(target_line(fe, attached(fe, 0)), 6);
    assert_int_equal(attached(fe, 1)->pragma->nclauses, 0);
    assert_int_equal(target_kind(attached(fe, 1)), CXCursor_ForStmt);
    assert_int_equal(target_line(fe, attached(fe, 1)), 10);
}

static void stacked_pragmas_share_the_function(void **state)
{
    (void)state;
    static const char src[] = "#pragma tile kernel threads(128)\n"
                              "#pragma tile tune BM(64, 128) BN(128)\n"
                              "void k(int n, float *c)\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < n; i++)\n"
                              "        c[i] = 0;\n"
                              "}\n";
    FrontEnd *fe = unit_parse(src);
    assert_non_null(fe);
    expect_clean();
    assert_int_equal(fe->attached.len, 3);
    const Attached *kernel = attached(fe, 0), *tune = attached(fe, 1);
    assert_int_equal(kernel->pragma->kind, PRAGMA_KERNEL);
    assert_int_equal(tune->pragma->kind, PRAGMA_TUNE);
    assert_int_equal(target_kind(kernel), CXCursor_FunctionDecl);
    assert_int_equal(target_kind(tune), CXCursor_FunctionDecl);
    assert_true(clang_equalRanges(clang_getCursorExtent(kernel->target), clang_getCursorExtent(tune->target)));
    assert_ptr_equal(fe_pragma_on(fe, kernel->target, PRAGMA_TUNE), tune->pragma);
    assert_ptr_equal(fe_pragma_on(fe, tune->target, PRAGMA_KERNEL), kernel->pragma);
    assert_int_equal(tune->pragma->nclauses, 2);
}

static void continuation_lines_make_one_pragma(void **state)
{
    (void)state;
    static const char src[] = "#pragma tile kernel \\\n"
                              "    threads(128)\n"
                              "void k(int n, float *c)\n"
                              "{\n"
                              "#pragma \\\n"
                              "  tile parallel \\\n"
                              "  vector(4)\n"
                              "    for (int i = 0; i < n; i++)\n"
                              "        c[i] = 0;\n"
                              "}\n";
    FrontEnd *fe = unit_parse(src);
    assert_non_null(fe);
    expect_clean();
    assert_int_equal(fe->attached.len, 2);
    const Pragma *k = attached(fe, 0)->pragma;
    assert_int_equal(k->kind, PRAGMA_KERNEL);
    assert_int_equal(k->nclauses, 1);
    assert_string_equal(k->clauses[0].name, "threads");
    assert_int_equal(k->clauses[0].loc.line, 2);
    assert_int_equal(k->clauses[0].loc.col, 5);
    assert_string_equal(k->clauses[0].args[0].toks[0].text, "128");
    assert_int_equal(target_kind(attached(fe, 0)), CXCursor_FunctionDecl);

    const Pragma *p = attached(fe, 1)->pragma;
    assert_int_equal(p->kind, PRAGMA_PARALLEL);
    assert_int_equal(p->loc.line, 5);
    assert_int_equal(p->kind_loc.line, 6);
    assert_int_equal(p->kind_loc.col, 8);
    assert_int_equal(p->nclauses, 1);
    assert_string_equal(p->clauses[0].name, "vector");
    assert_int_equal(p->clauses[0].loc.line, 7);
    assert_int_equal(target_kind(attached(fe, 1)), CXCursor_ForStmt);
    assert_int_equal(target_line(fe, attached(fe, 1)), 8);
}

static void pragma_in_skipped_region_ignored(void **state)
{
    (void)state;
    static const char src[] = "#if 0\n"
                              "#pragma tile kernel bogus(1)\n"
                              "#pragma tile nonsense\n"
                              "#endif\n"
                              "#ifdef TILEPP_UNIT_NOT_DEFINED\n"
                              "#pragma tile\n"
                              "#else\n"
                              "#endif\n"
                              "void f(void) {}\n";
    FrontEnd *fe = unit_parse(src);
    assert_non_null(fe);
    expect_clean();
    assert_int_equal(fe->attached.len, 0);
}

static void pragma_operator_refused(void **state)
{
    (void)state;
    static const char src[] = "void f(void) {}\n"
                              "_Pragma(\"tile kernel\")\n"
                              "void k(int n, float *c)\n"
                              "{\n"
                              "    for (int i = 0; i < n; i++)\n"
                              "        c[i] = 0;\n"
                              "}\n";
    assert_null(unit_parse(src));
    assert_int_equal(diag_error_count(), 1);
    assert_string_equal(unit_diag_first_line(),
                        "unit_input.c:2:1: error: _Pragma(\"tile ...\") is not supported: write '#pragma tile' on "
                        "its own line");
}

static void other_pragma_operators_untouched(void **state)
{
    (void)state;
    static const char src[] = "_Pragma(\"GCC diagnostic push\")\n"
                              "_Pragma(\"tiled kernel\")\n"
                              "void f(void) {}\n"
                              "_Pragma(\"GCC diagnostic pop\")\n";
    FrontEnd *fe = unit_parse(src);
    assert_non_null(fe);
    expect_clean();
    assert_int_equal(fe->attached.len, 0);
}

static void pragma_before_closing_brace_refused(void **state)
{
    (void)state;
    static const char src[] = "void f(int n, float *c)\n"
                              "{\n"
                              "    for (int i = 0; i < n; i++)\n"
                              "        c[i] = 0;\n"
                              "  #pragma tile parallel\n"
                              "}\n";
    assert_null(unit_parse(src));
    assert_int_equal(diag_error_count(), 1);
    assert_string_equal(unit_diag_first_line(),
                        "unit_input.c:5:3: error: '#pragma tile parallel' must be followed by a 'for' loop");
}

static void pragma_at_end_of_file_refused(void **state)
{
    (void)state;
    static const char src[] = "void f(void) {}\n"
                              "#pragma tile kernel threads(64)\n";
    assert_null(unit_parse(src));
    assert_int_equal(diag_error_count(), 1);
    assert_string_equal(unit_diag_first_line(),
                        "unit_input.c:2:1: error: '#pragma tile kernel' must be followed by a function definition");
}

static void pragma_on_wrong_construct_refused_with_note(void **state)
{
    (void)state;
    static const char src[] = "int x;\n"
                              "#pragma tile kernel\n"
                              "int y;\n";
    assert_null(unit_parse(src));
    assert_int_equal(diag_error_count(), 1);
    assert_string_equal(unit_diag(),
                        "unit_input.c:2:1: error: '#pragma tile kernel' applies to a function definition, not to "
                        "what follows it\n"
                        "    2 | #pragma tile kernel\n"
                        "      | ^\n"
                        "unit_input.c:3:5: note: this is what follows the pragma\n"
                        "    3 | int y;\n"
                        "      |     ^\n");
}

static void parallel_on_while_refused_with_note(void **state)
{
    (void)state;
    static const char src[] = "void f(int n, float *c)\n"
                              "{\n"
                              "    int i = 0;\n"
                              "#pragma tile parallel\n"
                              "    while (i < n)\n"
                              "        c[i++] = 0;\n"
                              "}\n";
    assert_null(unit_parse(src));
    assert_int_equal(diag_error_count(), 1);
    assert_true(unit_diag_has_line(
        "unit_input.c:4:1: error: '#pragma tile parallel' applies to a 'for' loop, not to what follows it"));
    assert_true(unit_diag_has_line("unit_input.c:5:5: note: this is what follows the pragma"));
}

static void kernel_on_prototype_refused(void **state)
{
    (void)state;
    static const char src[] = "#pragma tile kernel\n"
                              "void k(int n, float *c);\n";
    assert_null(unit_parse(src));
    assert_int_equal(diag_error_count(), 1);
    assert_string_equal(unit_diag_first_line(), "unit_input.c:1:1: error: '#pragma tile kernel' applies to a "
                                                "function definition, not to what follows it");
    assert_true(unit_diag_has_line("unit_input.c:2:6: note: this is what follows the pragma"));
}

static void shared_on_a_statement_refused(void **state)
{
    (void)state;
    static const char src[] = "void f(float *c)\n"
                              "{\n"
                              "#pragma tile shared\n"
                              "    c[0] = 1;\n"
                              "}\n";
    assert_null(unit_parse(src));
    assert_int_equal(diag_error_count(), 1);
    assert_string_equal(unit_diag_first_line(), "unit_input.c:3:1: error: '#pragma tile shared' applies to an array "
                                                "declaration, not to what follows it");
}

static void clang_syntax_error_in_our_format(void **state)
{
    (void)state;
    static const char src[] = "void f(void)\n"
                              "{\n"
                              "    int x = ;\n"
                              "}\n";
    assert_null(unit_parse(src));
    assert_int_equal(diag_error_count(), 1);
    assert_string_equal(unit_diag(), "unit_input.c:3:13: error: expected expression\n"
                                     "    3 |     int x = ;\n"
                                     "      |             ^\n");
}

static void clang_semantic_error_in_our_format(void **state)
{
    (void)state;
    static const char src[] = "void f(void)\n"
                              "{\n"
                              "    undeclared_thing = 1;\n"
                              "}\n";
    assert_null(unit_parse(src));
    assert_true(diag_error_count() >= 1);
    assert_true(str_starts_with(unit_diag_first_line(), "unit_input.c:3:5: error: "));
    assert_non_null(strstr(unit_diag_first_line(), "undeclared_thing"));
}

static void other_pragmas_untouched(void **state)
{
    (void)state;
    static const char src[] = "#pragma once\n"
                              "#include <tilepp/tile.h>\n"
                              "#pragma GCC diagnostic push\n"
                              "#pragma tiled kernel\n"
                              "#pragma tile_kernel\n"
                              "void f(int n, float *c)\n"
                              "{\n"
                              "#pragma omp parallel for\n"
                              "    for (int i = 0; i < n; i++)\n"
                              "        c[i] = 0;\n"
                              "#pragma unroll 4\n"
                              "    for (int i = 0; i < n; i++)\n"
                              "        c[i] += 1;\n"
                              "}\n"
                              "#pragma GCC diagnostic pop\n";
    FrontEnd *fe = unit_parse(src);
    assert_non_null(fe);
    expect_clean();
    assert_int_equal(fe->attached.len, 0);
}

static void tile_word_later_on_the_line_is_no_pragma(void **state)
{
    (void)state;
    /* `#pragma tile` only at the start of a line: not in a string, not after code. */
    static const char src[] = "const char *s = \"#pragma tile kernel\";\n"
                              "#define STR(x) #x\n"
                              "const char *t = STR(pragma tile kernel);\n";
    FrontEnd *fe = unit_parse(src);
    assert_non_null(fe);
    expect_clean();
    assert_int_equal(fe->attached.len, 0);
}

static void bad_pragma_reported_by_front_end(void **state)
{
    (void)state;
    static const char src[] = "#pragma tile kernel thread(128)\n"
                              "void k(int n, float *c)\n"
                              "{\n"
                              "}\n";
    assert_null(unit_parse(src));
    assert_int_equal(diag_error_count(), 1);
    assert_string_equal(unit_diag_first_line(),
                        "unit_input.c:1:21: error: unknown clause 'thread' for '#pragma tile kernel'; expected "
                        "'threads', 'flops', 'bytes'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(attaches_to_following_construct),
        UNIT_TEST(comments_and_blank_lines_between),
        UNIT_TEST(stacked_pragmas_share_the_function),
        UNIT_TEST(continuation_lines_make_one_pragma),
        UNIT_TEST(pragma_in_skipped_region_ignored),
        UNIT_TEST(pragma_operator_refused),
        UNIT_TEST(other_pragma_operators_untouched),
        UNIT_TEST(pragma_before_closing_brace_refused),
        UNIT_TEST(pragma_at_end_of_file_refused),
        UNIT_TEST(pragma_on_wrong_construct_refused_with_note),
        UNIT_TEST(parallel_on_while_refused_with_note),
        UNIT_TEST(kernel_on_prototype_refused),
        UNIT_TEST(shared_on_a_statement_refused),
        UNIT_TEST(clang_syntax_error_in_our_format),
        UNIT_TEST(clang_semantic_error_in_our_format),
        UNIT_TEST(other_pragmas_untouched),
        UNIT_TEST(tile_word_later_on_the_line_is_no_pragma),
        UNIT_TEST(bad_pragma_reported_by_front_end),
    };
    return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}

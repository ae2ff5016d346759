/* test_check.c — the dependence check and the aliasing warning on the IR of
 * small kernels. */
#include "unit.h"

#include <string.h>

/* A one-nest kernel around `body` (a statement of the loop over i < n). */
static const char *one_loop(const char *body)
{
    return aprintf("#pragma tile kernel\n"                                        /* 1 */
                   "void k(int n, int off, float *a, float *c, const int *idx)\n" /* 2 */
                   "{\n"                                                          /* 3 */
                   "#pragma tile parallel\n"                                      /* 4 */
                   "    for (int i = 0; i < n; i++)\n"                            /* 5 */
                   "        %s\n"                                                 /* 6 */
                   "}\n",
                   body);
}

static bool check_source(const char *src)
{
    IrModule *m = unit_build(src);
    assert_non_null(m);
    assert_int_equal(diag_error_count(), 0);
    return check_module(m);
}

static void forward_dependence_flagged(void **state)
{
    (void)state;
    assert_false(check_source(one_loop("a[i + 1] = a[i];")));
    assert_int_equal(diag_error_count(), 1);
    assert_string_equal(unit_diag_first_line(),
                        "unit_input.c:6:20: error: loop-carried dependence: 'a[i]' touches an element that another "
                        "iteration writes as 'a[i + 1]'; the iterations of a parallel loop must be independent");
    assert_true(unit_diag_has_line("unit_input.c:6:9: note: the write is here"));
}

static void backward_dependence_flagged(void **state)
{
    (void)state;
    assert_false(check_source(one_loop("a[i] = a[i + 3] + 1;")));
    assert_int_equal(diag_error_count(), 1);
    assert_non_null(strstr(unit_diag_first_line(), "loop-carried dependence: 'a[i + 3]'"));
}

static void dependence_with_invariant_rest_flagged(void **state)
{
    (void)state;
    assert_false(check_source(one_loop("a[i + off] = a[i + off + 1];")));
    assert_int_equal(diag_error_count(), 1);
}

static void disjoint_strides_not_flagged(void **state)
{
    (void)state;
    /* even elements written, odd elements read: gcd(2, 2) does not divide 1 */
    assert_true(check_source(one_loop("a[2 * i] = a[2 * i + 1];")));
    assert_int_equal(diag_error_count(), 0);
    assert_string_equal(unit_diag(), "");
}

static void same_element_not_flagged(void **state)
{
    (void)state;
    assert_true(check_source(one_loop("a[i] = a[i] * 2 + c[i];")));
    assert_true(check_source(one_loop("a[i + 1] += 1;")));
    assert_int_equal(diag_error_count(), 0);
}

static void other_buffer_ok(void **state)
{
    (void)state;
    assert_true(check_source(one_loop("c[i] = a[i];")));
    assert_int_equal(diag_error_count(), 0);
    assert_string_equal(unit_diag(), "");
    /* no dependence (distinct parameters are distinct memory), but the
     * aliasing warning: were a and c to overlap, the result would differ */
    assert_true(check_source(one_loop("c[i] = a[i + 1] + a[i - 1];")));
    assert_int_equal(diag_error_count(), 0);
    assert_int_equal(diag_warning_count(), 1);
}

/* ---- the aliasing warning ---- */

/* A kernel with the given parameters around `body` (in a loop over i < n). */
static const char *params_loop(const char *params, const char *body)
{
    return aprintf("#pragma tile kernel\n"                 /* 1 */
                   "void k(int n, %s)\n"                   /* 2 */
                   "{\n"                                   /* 3 */
                   "#pragma tile parallel\n"               /* 4 */
                   "    for (int i = 1; i < n - 1; i++)\n" /* 5 */
                   "        %s\n"                          /* 6 */
                   "}\n",
                   params, body);
}

/* The warnings of that kernel, with diagnostics captured afresh. */
static int warnings_for(const char *params, const char *body)
{
    unit_teardown(NULL);
    assert_int_equal(unit_setup(NULL), 0);
    assert_true(check_source(params_loop(params, body)));
    assert_int_equal(diag_error_count(), 0);
    return diag_warning_count();
}

static void aliasing_warned_at_the_read(void **state)
{
    (void)state;
    assert_int_equal(warnings_for("const float *x, float *y", "y[i] = x[i - 1] + x[i + 1];"), 1);
    assert_string_equal(unit_diag_first_line(),
                        "unit_input.c:6:16: warning: 'x' and 'y' may overlap: 'x[i - 1]' reads another element than "
                        "'y[i]' writes, and if the caller's arrays overlap, the GPU (all iterations at once) computes "
                        "other values than the C (one after another); declare them 'restrict' if they never do");
    assert_true(unit_diag_has_line("unit_input.c:6:9: note: the write is here"));
}

static void aliasing_once_per_pair(void **state)
{
    (void)state;
    /* x twice, z once: two pairs */
    assert_int_equal(warnings_for("const float *x, const float *z, float *y", "y[i] = x[i - 1] + x[i + 1] + z[n - i];"),
                     2);
}

static void aliasing_shapes_that_warn(void **state)
{
    (void)state;
    assert_int_equal(warnings_for("const float *x, float *y", "y[i] = x[n - 1 - i];"), 1);
    assert_int_equal(warnings_for("const float x[n], float *y", "y[i] = x[i + 1];"), 1);
    assert_int_equal(warnings_for("const int *x, unsigned *y", "y[i] = x[i + 1];"), 1);
    assert_int_equal(warnings_for("int m, const float x[n][m], float y[n][m]", "y[i][0] = x[0][i];"), 1);
}

static void aliasing_restrict_silences(void **state)
{
    (void)state;
    assert_int_equal(warnings_for("const float *restrict x, float *y", "y[i] = x[i + 1];"), 0);
    assert_int_equal(warnings_for("const float *x, float *restrict y", "y[i] = x[i + 1];"), 0);
    assert_int_equal(warnings_for("const float x[restrict n], float *y", "y[i] = x[i + 1];"), 0);
    assert_int_equal(warnings_for("int m, const float x[restrict n][m], float y[n][m]", "y[i][0] = x[0][i];"), 0);
}

static void aliasing_not_warned(void **state)
{
    (void)state;
    /* element-wise, another element type, another rank, another layout, indirect */
    assert_int_equal(warnings_for("const float *x, float *y", "y[i] = 2.0f * x[i];"), 0);
    assert_int_equal(warnings_for("const double *x, float *y", "y[i] = (float)x[i + 1];"), 0);
    assert_int_equal(warnings_for("int m, const float *b, float y[n][m]", "y[i][0] = b[i + 1];"), 0);
    assert_int_equal(warnings_for("int m, const float x[m][n], float y[n][m]", "y[i][0] = x[0][i];"), 0);
    assert_int_equal(warnings_for("const int *idx, const float *x, float *y", "y[i] = x[idx[i]];"), 0);
}

static void write_missing_collapsed_variable_flagged(void **state)
{
    (void)state;
    static const char src[] = "#pragma tile kernel\n"
                              "void k(int m, int n, float *c, const float *a)\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < m; i++)\n"
                              "        for (int j = 0; j < n; j++)\n"
                              "            c[i] = a[j];\n"
                              "}\n";
    assert_false(check_source(src));
    assert_int_equal(diag_error_count(), 1);
    assert_string_equal(unit_diag_first_line(),
                        "unit_input.c:7:13: error: every iteration of 'j' writes the same element 'c[i]': the "
                        "iterations would race (to combine the iterations' values, accumulate into a variable with "
                        "reduce(op: var) and store it after the loop)");
}

static void write_missing_only_variable_flagged(void **state)
{
    (void)state;
    assert_false(check_source(one_loop("c[0] = a[i];")));
    assert_int_equal(diag_error_count(), 1);
    assert_non_null(strstr(unit_diag_first_line(), "every iteration of 'i' writes the same element 'c[0]'"));
}

static void collapsed_nest_all_variables_ok(void **state)
{
    (void)state;
    static const char src[] = "#pragma tile kernel\n"
                              "void k(int m, int n, float c[m][n], const float a[m][n])\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 0; i < m; i++)\n"
                              "        for (int j = 0; j < n; j++)\n"
                              "            c[i][j] = a[i][j] + c[i][j];\n"
                              "}\n";
    assert_true(check_source(src));
    assert_int_equal(diag_error_count(), 0);
}

static void two_dimensional_dependence_flagged(void **state)
{
    (void)state;
    static const char src[] = "#pragma tile kernel\n"
                              "void k(int m, int n, float c[m][n])\n"
                              "{\n"
                              "#pragma tile parallel\n"
                              "    for (int i = 1; i < m; i++)\n"
                              "        for (int j = 0; j < n; j++)\n"
                              "            c[i][j] = c[i - 1][j];\n"
                              "}\n";
    assert_false(check_source(src));
    assert_int_equal(diag_error_count(), 1);
    assert_non_null(strstr(unit_diag_first_line(), "loop-carried dependence: 'c[i - 1][j]'"));
}

static void indirect_not_flagged(void **state)
{
    (void)state;
    /* the user's responsibility, as with OpenMP */
    assert_true(check_source(one_loop("a[idx[i]] = a[i];")));
    assert_true(check_source(one_loop("a[i] = a[idx[i]];")));
    assert_int_equal(diag_error_count(), 0);
    assert_string_equal(unit_diag(), "");
}

static void non_affine_not_flagged(void **state)
{
    (void)state;
    assert_true(check_source(one_loop("a[i * i] = a[i];")));
    assert_int_equal(diag_error_count(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(forward_dependence_flagged),
        UNIT_TEST(backward_dependence_flagged),
        UNIT_TEST(dependence_with_invariant_rest_flagged),
        UNIT_TEST(disjoint_strides_not_flagged),
        UNIT_TEST(same_element_not_flagged),
        UNIT_TEST(other_buffer_ok),
        UNIT_TEST(write_missing_collapsed_variable_flagged),
        UNIT_TEST(write_missing_only_variable_flagged),
        UNIT_TEST(collapsed_nest_all_variables_ok),
        UNIT_TEST(two_dimensional_dependence_flagged),
        UNIT_TEST(indirect_not_flagged),
        UNIT_TEST(non_affine_not_flagged),
        UNIT_TEST(aliasing_warned_at_the_read),
        UNIT_TEST(aliasing_once_per_pair),
        UNIT_TEST(aliasing_shapes_that_warn),
        UNIT_TEST(aliasing_restrict_silences),
        UNIT_TEST(aliasing_not_warned),
    };
    return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}

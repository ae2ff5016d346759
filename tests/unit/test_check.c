/* test_check.c — the dependence check on the IR of small kernels. */
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
    assert_true(check_source(one_loop("c[i] = a[i + 1] + a[i - 1];")));
    assert_int_equal(diag_error_count(), 0);
    assert_string_equal(unit_diag(), "");
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
    };
    return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}

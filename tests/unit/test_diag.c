/* test_diag.c — diagnostics as the command line sets them up: clang's
 * colours, -w, -Werror and clang's closing count. */
#define _POSIX_C_SOURCE 200809L
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#define SRC "diag_input.c"

static SrcLoc at(int line, int col) { return (SrcLoc){SRC, line, col}; }

static void summary_in_clangs_words(void **state)
{
    (void)state;
    static const struct {
        int warnings, errors;
        const char *text;
    } cases[] = {
        {0, 0, ""},
        {0, 1, "1 error generated.\n"},
        {0, 2, "2 errors generated.\n"},
        {1, 0, "1 warning generated.\n"},
        {1, 2, "1 warning and 2 errors generated.\n"},
        {3, 1, "3 warnings and 1 error generated.\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *text = diag_summary(cases[i].warnings, cases[i].errors);
        assert_string_equal(text, cases[i].text);
        free(text);
    }
}

static void plain_without_color(void **state)
{
    (void)state;
    diag_register_source(SRC, "int a = b;\n");
    error_at(at(1, 9), "use of undeclared identifier 'b'");
    assert_string_equal(unit_diag(), SRC ":1:9: error: use of undeclared identifier 'b'\n"
                                         "    1 | int a = b;\n"
                                         "      |         ^\n");
}

/* The escapes clang writes: bold location, red error, bold message, green
 * caret; a note cyan with its message plain. */
static void clangs_colors(void **state)
{
    (void)state;
    diag_set_color(true);
    diag_register_source(SRC, "int a = b;\n");
    error_at(at(1, 9), "bad");
    note_at((SrcLoc){0}, "hello");
    assert_string_equal(unit_diag(), "\033[1m" SRC ":1:9: \033[0m\033[0;1;31merror: \033[0m\033[1mbad\033[0m\n"
                                     "    1 | int a = b;\n"
                                     "      | \033[0;1;32m        ^\033[0m\n"
                                     "tilepp: \033[0;1;36mnote: \033[0mhello\033[0m\n");
}

static void warning_is_magenta(void **state)
{
    (void)state;
    diag_set_color(true);
    warning_at((SrcLoc){0}, "careful");
    assert_string_equal(unit_diag(), "tilepp: \033[0;1;35mwarning: \033[0m\033[1mcareful\033[0m\n");
    assert_int_equal(diag_warning_count(), 1);
    assert_int_equal(diag_error_count(), 0);
}

/* -w: a warning and the notes that explain it go; what follows stays. */
static void ignored_warnings_take_their_notes(void **state)
{
    (void)state;
    diag_ignore_warnings(true);
    warning_at((SrcLoc){0}, "dropped");
    note_at((SrcLoc){0}, "dropped too");
    error_at((SrcLoc){0}, "kept");
    note_at((SrcLoc){0}, "kept too");
    assert_string_equal(unit_diag(), "tilepp: error: kept\ntilepp: note: kept too\n");
    assert_int_equal(diag_warning_count(), 0);
    assert_int_equal(diag_error_count(), 1);
}

static void werror_makes_warnings_errors(void **state)
{
    (void)state;
    diag_warnings_as_errors(true);
    warning_at((SrcLoc){0}, "careful");
    note_at((SrcLoc){0}, "why");
    assert_string_equal(unit_diag(), "tilepp: error: careful [-Werror]\ntilepp: note: why\n");
    assert_int_equal(diag_warning_count(), 0);
    assert_int_equal(diag_error_count(), 1);
}

/* As in gcc and clang, -w wins: there is no warning left to promote. */
static void ignoring_wins_over_werror(void **state)
{
    (void)state;
    diag_warnings_as_errors(true);
    diag_ignore_warnings(true);
    warning_at((SrcLoc){0}, "careful");
    assert_string_equal(unit_diag(), "");
    assert_int_equal(diag_error_count(), 0);
}

static void reset_forgets_settings(void **state)
{
    (void)state;
    diag_set_color(true);
    diag_ignore_warnings(true);
    diag_warnings_as_errors(true);
    diag_show_compiler_warnings(true);
    diag_reset();
    warning_at((SrcLoc){0}, "careful");
    assert_string_equal(unit_diag(), "tilepp: warning: careful\n");
    assert_int_equal(diag_warning_count(), 1);
    assert_false(diag_compiler_warnings());
}

/* Clang's warnings on the parse: shown when asked for (the command line
 * asks), with -Werror applied to them as to tilepp's. */
static void compiler_warnings_on_request(void **state)
{
    (void)state;
    static const char src[] = "int f(void) { return 1 << 40; }\n";
    assert_non_null(unit_parse(src));
    assert_string_equal(unit_diag(), "");
    diag_show_compiler_warnings(true);
    assert_non_null(unit_parse(src));
    assert_string_equal(unit_diag_first_line(), UNIT_FILE ":1:24: warning: shift count >= width of type");
    diag_warnings_as_errors(true);
    assert_non_null(unit_parse(src)); /* the parse goes on; the driver writes nothing */
    assert_int_equal(diag_error_count(), 1);
    assert_true(unit_diag_has_line(UNIT_FILE ":1:24: error: shift count >= width of type [-Werror]"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(summary_in_clangs_words),
        UNIT_TEST(plain_without_color),
        UNIT_TEST(clangs_colors),
        UNIT_TEST(warning_is_magenta),
        UNIT_TEST(ignored_warnings_take_their_notes),
        UNIT_TEST(werror_makes_warnings_errors),
        UNIT_TEST(ignoring_wins_over_werror),
        UNIT_TEST(reset_forgets_settings),
        UNIT_TEST(compiler_warnings_on_request),
    };
    return cmocka_run_group_tests_name("diag", tests, NULL, NULL);
}

/* test_emit.c — properties of the emitted .cu and .h (not golden text):
 * launcher names and linkage, #line directives, launch bounds, the C header. */
#define _POSIX_C_SOURCE 200809L
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char src[] = "#include <tilepp/tile.h>\n"                                             /* 1 */
                          "#define GAIN 2.0f\n"                                                    /* 2 */
                          "static float twice(float v) { return GAIN * v; }\n"                     /* 3 */
                          "#pragma tile kernel threads(128)\n"                                     /* 4 */
                          "void vadd(int n, const float *a, const float *b, float *c)\n"           /* 5 */
                          "{\n"                                                                    /* 6 */
                          "#pragma tile parallel vector(4)\n"                                      /* 7 */
                          "    for (int i = 0; i < n; i++)\n"                                      /* 8 */
                          "        c[i] = a[i] + twice(b[i]);\n"                                   /* 9 */
                          "}\n"                                                                    /* 10 */
                          "\n"                                                                     /* 11 */
                          "#pragma tile kernel\n"                                                  /* 12 */
                          "void scale2d(int rows, int cols, float s, const float x[rows][cols],\n" /* 13 */
                          "             float y[rows][cols])\n"                                    /* 14 */
                          "{\n"                                                                    /* 15 */
                          "    int half_rows = rows / 2;\n"                                        /* 16 */
                          "#pragma tile parallel\n"                                                /* 17 */
                          "    for (int r = 0; r < half_rows; r++)\n"                              /* 18 */
                          "        for (int c = 0; c < cols; c++)\n"                               /* 19 */
                          "            y[r][c] = s * x[r][c];\n"                                   /* 20 */
                          "}\n";

/* The parse's command line: its -D, -U and -include come back at the top of
 * the .cu. */
static const char *const parse_args[] = {
    "-Iinc", "-DN=1024", "-DFLAG", "-D", "SEP=2", "-UGONE", "-DF(x)=(x)+1", "-std=c11", "-includeno_such_dir/forced.h",
};
static const EmitNames names = {"unit_input.c",
                                "unit_input.tile.cu",
                                "unit_input.tile.h",
                                parse_args,
                                (int)(sizeof parse_args / sizeof *parse_args),
                                0};

static char *cu, *hdr;

static int emit_setup(void **state)
{
    if (unit_setup(state) != 0)
        return -1;
    Plan *plan = unit_lower(src);
    if (!plan || diag_error_count() != 0)
        return -1;
    cu = emit_cuda(plan, &names);
    hdr = emit_header(plan, &names);
    return cu && hdr ? 0 : -1;
}

#define EMIT_TEST(f) cmocka_unit_test_setup_teardown(f, emit_setup, unit_teardown)

/* The lines of a text (arena memory); *n gets their number. */
static char **split_lines(const char *text, int *n)
{
    int cap = unit_count(text, "\n") + 2;
    char **lines = anew((size_t)cap * sizeof *lines);
    *n = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        lines[(*n)++] = astrndup(p, len);
        if (!nl)
            break;
        p = nl + 1;
    }
    return lines;
}

static void launcher_names_and_linkage(void **state)
{
    (void)state;
    assert_non_null(strstr(cu, "extern \"C\" cudaError_t vadd_gpu(int n, const float *a, const float *b, float *c)\n"));
    assert_non_null(strstr(cu, "extern \"C\" cudaError_t vadd_gpu_stream(int n, const float *a, const float *b, "
                               "float *c, cudaStream_t tile_stream)\n"));
    assert_non_null(strstr(cu, "extern \"C\" cudaError_t scale2d_gpu(int rows, int cols, float s, const float *x, "
                               "float *y)\n"));
    assert_non_null(strstr(cu, "extern \"C\" cudaError_t scale2d_gpu_stream("));
    /* the plain launcher runs the stream one on the default stream */
    assert_non_null(strstr(cu, "return vadd_gpu_stream(n, a, b, c, 0);"));
    /* each launcher once; no other extern "C" definitions */
    assert_int_equal(unit_count(cu, "extern \"C\" cudaError_t vadd_gpu("), 1);
    assert_int_equal(unit_count(cu, "extern \"C\""), 4);
    assert_non_null(strstr(cu, "#include \"unit_input.tile.h\"\n"));
    assert_non_null(strstr(cu, "#include <tilepp/tile.h>\n"));
}

static void launch_bounds_from_threads(void **state)
{
    (void)state;
    assert_non_null(strstr(cu, "__global__ void __launch_bounds__(128) tile_vadd_0("));
    assert_non_null(strstr(cu, "__global__ void __launch_bounds__(256) tile_scale2d_0("));
    assert_int_equal(unit_count(cu, "__global__"), 2);
    assert_int_equal(unit_count(cu, "__launch_bounds__("), 2);
    /* the launcher launches with the same block size */
    assert_non_null(strstr(cu, "tile_launch(tile_vadd_0, tile_total, 128, tile_stream"));
    assert_non_null(strstr(cu, "tile_launch(tile_scale2d_0, tile_total, 256, tile_stream"));
}

static void line_directives(void **state)
{
    (void)state;
    int n;
    char **lines = split_lines(cu, &n);
    int to_source = 0, to_self = 0;
    bool body_found = false, prelude_found = false, decl_found = false;
    for (int i = 0; i < n; i++) {
        if (!str_starts_with(lines[i], "#line "))
            continue;
        int num = 0;
        char file[256] = "";
        assert_int_equal(sscanf(lines[i], "#line %d \"%255[^\"]\"", &num, file), 2);
        assert_true(num > 0);
        if (strcmp(file, "unit_input.c") == 0) {
            to_source++;
            assert_true(i + 1 < n);
            const char *next = lines[i + 1];
            if (num == 9 && strcmp(next, "        c[i] = a[i] + twice(b[i]);") == 0)
                body_found = true;
            if (num == 3 && strstr(next, "twice(float v) { return GAIN * v; }"))
                prelude_found = true;
            if (num == 16 && strcmp(next, "    int half_rows = rows / 2;") == 0)
                decl_found = true;
        } else if (strcmp(file, "unit_input.tile.cu") == 0) {
            to_self++;
            /* back to the generated file: the next line is line `num` of it */
            assert_int_equal(num, i + 2);
        } else
            fail_msg("#line names '%s'", file);
    }
    assert_true(to_source > 0);
    assert_true(to_self > 0);
    assert_true(body_found);
    assert_true(prelude_found);
    assert_true(decl_found);
}

static void prelude_and_comments_name_the_source(void **state)
{
    (void)state;
    assert_non_null(strstr(cu, "#define GAIN 2.0f\n"));
    assert_non_null(strstr(cu, "// ==== kernel vadd, unit_input.c:5, threads(128) ====\n"));
    assert_non_null(
        strstr(cu, "// #pragma tile parallel at unit_input.c:7: i over the grid; each thread takes 4 consecutive "
                   "iterations of 'i'"));
    assert_non_null(strstr(cu, "unit_input.c:17: r x c collapsed"));
    /* vectorised buffers go through registers in the wide path */
    assert_non_null(strstr(cu, "tile_v_c[tile_j] = tile_v_a[tile_j] + twice(tile_v_b[tile_j]);"));
}

static void array_params_are_views_in_kernels(void **state)
{
    (void)state;
    assert_non_null(strstr(cu, "const float *tile_p_x"));
    assert_non_null(strstr(cu, "float *tile_p_y"));
    assert_non_null(strstr(cu, "const tile_view<const float, 2> x = {tile_p_x, {(long long)(cols)}};"));
    /* the bound's declaration is evaluated by the launcher */
    assert_non_null(strstr(cu, "(long long)(half_rows)"));
}

/* nvcc sees the command line's macros and forced includes before anything
 * else, in the command line's order, each macro undefined first (a forced
 * include not found from here keeps its spelling); other arguments are not
 * macros. */
static void command_line_macros_come_first(void **state)
{
    (void)state;
    const char *want = "#define TILEPP_GENERATED_CUDA 1\n"
                       "#undef N\n#define N 1024\n"
                       "#undef FLAG\n#define FLAG 1\n"
                       "#undef SEP\n#define SEP 2\n"
                       "#undef GONE\n"
                       "#undef F\n#define F(x) (x)+1\n"
                       "#include \"no_such_dir/forced.h\"\n"
                       "#include <tilepp/tile.h>\n";
    assert_non_null(strstr(cu, want));
    assert_null(strstr(cu, "inc\n"));
    assert_null(strstr(cu, "c11"));
}

static void header_guard(void **state)
{
    (void)state;
    int n;
    char **lines = split_lines(hdr, &n);
    int i = 0;
    while (i < n && (str_starts_with(lines[i], "/*") || str_starts_with(lines[i], " *") || !*lines[i]))
        i++;
    assert_true(i + 1 < n);
    assert_string_equal(lines[i], "#ifndef TILEPP_GENERATED_UNIT_INPUT_TILE_H");
    assert_string_equal(lines[i + 1], "#define TILEPP_GENERATED_UNIT_INPUT_TILE_H");
    assert_true(str_ends_with(hdr, "#endif /* TILEPP_GENERATED_UNIT_INPUT_TILE_H */\n"));
}

static void header_has_flat_prototypes(void **state)
{
    (void)state;
    assert_non_null(strstr(hdr, "cudaError_t vadd_gpu(int n, const float *a, const float *b, float *c);\n"));
    assert_non_null(strstr(hdr, "cudaError_t vadd_gpu_stream(int n, const float *a, const float *b, float *c, "
                                "cudaStream_t stream);\n"));
    assert_non_null(strstr(hdr, "cudaError_t scale2d_gpu(int rows, int cols, float s, const float *x, float *y);\n"));
    assert_non_null(strstr(hdr, "cudaError_t scale2d_gpu_stream(int rows, int cols, float s, const float *x, "
                                "float *y, cudaStream_t stream);\n"));
    int n;
    char **lines = split_lines(hdr, &n);
    for (int i = 0; i < n; i++)
        if (str_starts_with(lines[i], "cudaError_t "))
            assert_null(strchr(lines[i], '['));
}

static void header_is_c(void **state)
{
    (void)state;
    int n;
    char **lines = split_lines(hdr, &n);
    int cplusplus_depth = 0, depth = 0, externs = 0;
    for (int i = 0; i < n; i++) {
        const char *l = lines[i];
        if (str_starts_with(l, "#if")) {
            depth++;
            if (strcmp(l, "#ifdef __cplusplus") == 0 || strcmp(l, "#if defined(__cplusplus)") == 0)
                cplusplus_depth = depth;
        } else if (str_starts_with(l, "#endif")) {
            if (depth == cplusplus_depth)
                cplusplus_depth = 0;
            depth--;
        }
        if (strstr(l, "extern \"C\"")) {
            externs++;
            assert_true(cplusplus_depth > 0);
        }
        if (cplusplus_depth == 0) {
            assert_null(strstr(l, "__global__"));
            assert_null(strstr(l, "template"));
            assert_null(strstr(l, "tile_view"));
            assert_null(strstr(l, "__host__"));
        }
    }
    assert_int_equal(depth, 0);
    assert_int_equal(externs, 1);
}

static bool write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

/* The header compiles as C11 (twice included, prototypes as declared), with
 * a stand-in for cuda_runtime_api.h. */
static void header_compiles_as_c(void **state)
{
    (void)state;
    char dir[] = "unit_emit_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *stub = aprintf("%s/cuda_runtime_api.h", dir);
    char *header = aprintf("%s/unit_input.tile.h", dir);
    char *user = aprintf("%s/user.c", dir);
    assert_true(write_file(stub, "typedef int cudaError_t;\ntypedef struct CUstream_st *cudaStream_t;\n"));
    assert_true(write_file(header, hdr));
    assert_true(write_file(user, "#include \"unit_input.tile.h\"\n"
                                 "#include \"unit_input.tile.h\"\n"
                                 "int main(void)\n"
                                 "{\n"
                                 "    cudaError_t (*f)(int, const float *, const float *, float *) = vadd_gpu;\n"
                                 "    cudaError_t (*g)(int, int, float, const float *, float *, cudaStream_t) =\n"
                                 "        scale2d_gpu_stream;\n"
                                 "    return f == 0 || g == 0;\n"
                                 "}\n"));
    char *cmd = aprintf("'%s' -std=c11 -Wall -Wextra -Werror -fsyntax-only -I'%s' -I'%s' '%s'", TILEPP_TEST_C_COMPILER,
                        dir, TILEPP_TEST_INCLUDE_DIR, user);
    int rc = system(cmd);
    remove(stub);
    remove(header);
    remove(user);
    rmdir(dir);
    assert_int_equal(rc, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        EMIT_TEST(launcher_names_and_linkage),
        EMIT_TEST(launch_bounds_from_threads),
        EMIT_TEST(line_directives),
        EMIT_TEST(prelude_and_comments_name_the_source),
        EMIT_TEST(array_params_are_views_in_kernels),
        EMIT_TEST(command_line_macros_come_first),
        EMIT_TEST(header_guard),
        EMIT_TEST(header_has_flat_prototypes),
        EMIT_TEST(header_is_c),
        EMIT_TEST(header_compiles_as_c),
    };
    return cmocka_run_group_tests_name("emit", tests, NULL, NULL);
}

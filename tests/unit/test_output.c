/* test_output.c — write_outputs: all files or none, no temporary files left.
 * Works in a fresh directory under the current one (ctest runs the test in
 * its build directory). */
#define _POSIX_C_SOURCE 200809L
#include "unit.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

static char dir[] = "unit_output_XXXXXX";
static char dir_name[sizeof dir];

static int output_setup(void **state)
{
    if (unit_setup(state) != 0)
        return -1;
    memcpy(dir_name, dir, sizeof dir);
    return mkdtemp(dir_name) ? 0 : -1;
}

/* Removes the directory and everything in it (one level of subdirectories). */
static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *p = aprintf("%s/%s", path, e->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(p);
        else
            remove(p);
    }
    closedir(d);
    rmdir(path);
}

static int output_teardown(void **state)
{
    remove_tree(dir_name);
    return unit_teardown(state);
}

#define OUTPUT_TEST(f) cmocka_unit_test_setup_teardown(f, output_setup, output_teardown)

static char *in_dir(const char *name) { return aprintf("%s/%s", dir_name, name); }

/* The file's content (arena memory), or NULL if it does not exist. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    Str s = {0};
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        str_addn(&s, buf, n);
    fclose(f);
    return atake(&s);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The names in a directory, sorted, joined by spaces. */
static char *listing(const char *path)
{
    struct dirent **entries;
    int n = scandir(path, &entries, NULL, alphasort);
    assert_true(n >= 0);
    Str s = {0};
    for (int i = 0; i < n; i++) {
        if (strcmp(entries[i]->d_name, ".") != 0 && strcmp(entries[i]->d_name, "..") != 0)
            str_addf(&s, "%s%s", s.len ? " " : "", entries[i]->d_name);
        free(entries[i]);
    }
    free(entries);
    return atake(&s);
}

static void writes_all_files(void **state)
{
    (void)state;
    OutputFile files[] = {
        {in_dir("x.tile.cu"), "// cuda\n__global__ void k() {}\n"},
        {in_dir("x.tile.h"), "/* header */\n"},
        {in_dir("x.tile.cu.d"), ""},
    };
    assert_true(write_outputs(files, 3, NULL));
    assert_int_equal(diag_error_count(), 0);
    assert_string_equal(unit_diag(), "");
    assert_string_equal(slurp(files[0].path), files[0].text);
    assert_string_equal(slurp(files[1].path), files[1].text);
    assert_string_equal(slurp(files[2].path), "");
    assert_string_equal(listing(dir_name), "x.tile.cu x.tile.cu.d x.tile.h");
}

static void replaces_existing_files(void **state)
{
    (void)state;
    OutputFile old[] = {{in_dir("y.cu"), "old cu\n"}, {in_dir("y.h"), "old h\n"}};
    assert_true(write_outputs(old, 2, NULL));
    OutputFile now[] = {{in_dir("y.cu"), "new cu\n"}, {in_dir("y.h"), "new h\n"}};
    assert_true(write_outputs(now, 2, NULL));
    assert_string_equal(slurp(now[0].path), "new cu\n");
    assert_string_equal(slurp(now[1].path), "new h\n");
    assert_string_equal(listing(dir_name), "y.cu y.h");
}

static void missing_directory_writes_none(void **state)
{
    (void)state;
    char *bad = in_dir("no_such_dir/x.tile.h");
    OutputFile files[] = {{in_dir("x.tile.cu"), "cuda\n"}, {bad, "header\n"}};
    assert_false(write_outputs(files, 2, NULL));
    assert_int_equal(diag_error_count(), 1);
    assert_string_equal(unit_diag_first_line(),
                        aprintf("tilepp: error: cannot create '%s': No such file or directory", bad));
    assert_false(exists(files[0].path));
    assert_false(exists(files[1].path));
    /* no temporary file left beside either target */
    assert_string_equal(listing(dir_name), "");
}

static void failure_keeps_previous_outputs(void **state)
{
    (void)state;
    OutputFile old[] = {{in_dir("z.cu"), "old cu\n"}};
    assert_true(write_outputs(old, 1, NULL));
    OutputFile files[] = {{in_dir("z.cu"), "new cu\n"}, {in_dir("missing/z.h"), "new h\n"}};
    assert_false(write_outputs(files, 2, NULL));
    assert_string_equal(slurp(in_dir("z.cu")), "old cu\n");
    assert_string_equal(listing(dir_name), "z.cu");
}

/* A target that cannot be replaced (here: a directory of that name) fails
 * only when the temporary files are renamed into place. All or nothing still
 * holds: the other targets must not have been replaced either.
 * TRANSLATOR BUG (reported): write_outputs() renames the temporary files one
 * by one; when a later rename fails, the earlier targets have already been
 * replaced, so a partial set of outputs is left behind. */
static void rename_failure_writes_none(void **state)
{
    (void)state;
    assert_int_equal(mkdir(in_dir("w.tile.h"), 0755), 0);
    OutputFile old[] = {{in_dir("w.tile.cu"), "old cu\n"}};
    assert_true(write_outputs(old, 1, NULL));
    OutputFile files[] = {{in_dir("w.tile.cu"), "new cu\n"}, {in_dir("w.tile.h"), "new h\n"}};
    assert_false(write_outputs(files, 2, NULL));
    assert_int_equal(diag_error_count(), 1);
    assert_true(str_starts_with(unit_diag_first_line(), aprintf("tilepp: error: cannot write '%s'", files[1].path)));
    assert_string_equal(listing(dir_name), "w.tile.cu w.tile.h"); /* no temporary files */
    assert_string_equal(slurp(in_dir("w.tile.cu")), "old cu\n");
}

/* An output that is the input (tilepp x.c -o x.c) or two outputs that are
 * one file (-o y.cu --header y.cu) are refused before anything is written:
 * gcc refuses the first too, and the second would lose one of the texts. */
static void input_and_twice_named_refused(void **state)
{
    (void)state;
    char *src = in_dir("x.c");
    FILE *f = fopen(src, "w");
    assert_non_null(f);
    fputs("int x;\n", f);
    fclose(f);
    OutputFile onto_input[] = {{src, "cuda\n"}, {in_dir("x.h"), "header\n"}};
    assert_false(write_outputs(onto_input, 2, src));
    assert_string_equal(
        unit_diag_first_line(),
        aprintf("tilepp: error: the output '%s' is the input file; name another with -o or --header", src));
    assert_string_equal(slurp(src), "int x;\n");
    assert_false(exists(in_dir("x.h")));
    /* the same file by another path */
    OutputFile by_dot[] = {{aprintf("%s/./x.c", dir_name), "cuda\n"}};
    assert_false(write_outputs(by_dot, 1, src));
    assert_string_equal(slurp(src), "int x;\n");
    OutputFile twice[] = {{in_dir("y.cu"), "cuda\n"}, {in_dir("y.cu"), "header\n"}};
    assert_false(write_outputs(twice, 2, src));
    assert_int_equal(diag_error_count(), 3);
    assert_non_null(strstr(
        unit_diag(), aprintf("tilepp: error: '%s' is named for two outputs; give each its own file", in_dir("y.cu"))));
    assert_false(exists(in_dir("y.cu")));
    assert_string_equal(listing(dir_name), "x.c");
}

/* A FIFO (as a device like /dev/null) is written in place: it stays a FIFO,
 * and its reader gets the text (it was replaced by a regular file). */
static void fifo_written_in_place(void **state)
{
    (void)state;
    char *fifo = in_dir("pipe");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    int reader = open(fifo, O_RDONLY | O_NONBLOCK); /* so that the writer's open does not wait */
    assert_true(reader >= 0);
    OutputFile files[] = {{fifo, "// cuda\n"}, {in_dir("pipe.h"), "/* header */\n"}};
    assert_true(write_outputs(files, 2, NULL));
    char got[64] = {0};
    assert_int_equal(read(reader, got, sizeof got - 1), (ssize_t)strlen("// cuda\n"));
    close(reader);
    assert_string_equal(got, "// cuda\n");
    struct stat st;
    assert_int_equal(stat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_string_equal(slurp(files[1].path), "/* header */\n");
    assert_string_equal(listing(dir_name), "pipe pipe.h");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        OUTPUT_TEST(writes_all_files),
        OUTPUT_TEST(replaces_existing_files),
        OUTPUT_TEST(missing_directory_writes_none),
        OUTPUT_TEST(failure_keeps_previous_outputs),
        OUTPUT_TEST(rename_failure_writes_none),
        OUTPUT_TEST(input_and_twice_named_refused),
        OUTPUT_TEST(fifo_written_in_place),
    };
    return cmocka_run_group_tests_name("output", tests, NULL, NULL);
}

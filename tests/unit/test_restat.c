/* test_restat.c — write_outputs leaves a file that already holds its text
 * alone (same inode, same mtime), so Ninja's restat skips what depends on
 * it; the all-or-nothing rule holds with such files in the set. Works in a
 * fresh directory under the current one. */
#define _POSIX_C_SOURCE 200809L
#include "unit.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

static char dir_name[] = "unit_restat_XXXXXX";

static int restat_setup(void **state)
{
    if (unit_setup(state) != 0)
        return -1;
    strcpy(dir_name, "unit_restat_XXXXXX");
    return mkdtemp(dir_name) ? 0 : -1;
}

/* The directory holds plain files and at most empty directories. */
static int restat_teardown(void **state)
{
    DIR *d = opendir(dir_name);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *p = aprintf("%s/%s", dir_name, e->d_name);
        if (remove(p) != 0)
            rmdir(p);
    }
    if (d)
        closedir(d);
    rmdir(dir_name);
    return unit_teardown(state);
}

#define RESTAT_TEST(f) cmocka_unit_test_setup_teardown(f, restat_setup, restat_teardown)

static char *in_dir(const char *name) { return aprintf("%s/%s", dir_name, name); }

/* Inode and modification time: a rewrite through a temporary file and a
 * rename changes both. */
typedef struct Stamp {
    ino_t ino;
    struct timespec mtime;
} Stamp;

static Stamp stamp(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (Stamp){st.st_ino, st.st_mtim};
}

static bool same_stamp(Stamp a, Stamp b)
{
    return a.ino == b.ino && a.mtime.tv_sec == b.mtime.tv_sec && a.mtime.tv_nsec == b.mtime.tv_nsec;
}

static char *slurp(const char *path)
{
    char *text = read_file(path, NULL);
    char *copy = text ? astrdup(text) : NULL;
    free(text);
    return copy;
}

static int entries(void)
{
    DIR *d = opendir(dir_name);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

static void same_text_is_not_written(void **state)
{
    (void)state;
    OutputFile files[] = {{in_dir("a.cu"), "cuda\n"}, {in_dir("a.h"), "header\n"}};
    assert_true(write_outputs(files, 2, NULL));
    Stamp cu = stamp(files[0].path), h = stamp(files[1].path);
    assert_true(write_outputs(files, 2, NULL));
    assert_true(same_stamp(cu, stamp(files[0].path)));
    assert_true(same_stamp(h, stamp(files[1].path)));
    assert_int_equal(entries(), 2); /* no temporary file left */
}

static void only_changed_files_are_written(void **state)
{
    (void)state;
    OutputFile old[] = {{in_dir("b.cu"), "old cuda\n"}, {in_dir("b.h"), "header\n"}};
    assert_true(write_outputs(old, 2, NULL));
    Stamp cu = stamp(old[0].path), h = stamp(old[1].path);
    OutputFile now[] = {{in_dir("b.cu"), "new cuda\n"}, {in_dir("b.h"), "header\n"}};
    assert_true(write_outputs(now, 2, NULL));
    assert_false(same_stamp(cu, stamp(now[0].path)));
    assert_true(same_stamp(h, stamp(now[1].path)));
    assert_string_equal(slurp(now[0].path), "new cuda\n");
}

/* A prefix of the text, or the text and more, is not the same text. */
static void prefix_is_a_change(void **state)
{
    (void)state;
    OutputFile full[] = {{in_dir("c.cu"), "cuda\nmore\n"}};
    assert_true(write_outputs(full, 1, NULL));
    OutputFile shorter[] = {{in_dir("c.cu"), "cuda\n"}};
    assert_true(write_outputs(shorter, 1, NULL));
    assert_string_equal(slurp(full[0].path), "cuda\n");
    assert_true(write_outputs(full, 1, NULL));
    assert_string_equal(slurp(full[0].path), "cuda\nmore\n");
}

/* A rename that fails puts back what earlier renames replaced and leaves
 * the file that was not touched (it was once removed by the roll-back). */
static void roll_back_keeps_untouched_files(void **state)
{
    (void)state;
    OutputFile old[] = {{in_dir("d.cu"), "same\n"}, {in_dir("d.h"), "old header\n"}};
    assert_true(write_outputs(old, 2, NULL));
    Stamp cu = stamp(old[0].path);
    assert_int_equal(mkdir(in_dir("d.d"), 0755), 0); /* the depfile's rename fails */
    OutputFile now[] = {{in_dir("d.cu"), "same\n"}, {in_dir("d.h"), "new header\n"}, {in_dir("d.d"), "deps\n"}};
    assert_false(write_outputs(now, 3, NULL));
    assert_int_equal(diag_error_count(), 1);
    assert_true(same_stamp(cu, stamp(old[0].path)));
    assert_string_equal(slurp(old[0].path), "same\n");
    assert_string_equal(slurp(old[1].path), "old header\n");
    assert_int_equal(entries(), 3); /* d.cu, d.h, the directory d.d: no temporary */
}

/* A directory in the way reads as empty; an empty text must not pass for
 * it. */
static void directory_is_not_an_empty_file(void **state)
{
    (void)state;
    assert_int_equal(mkdir(in_dir("e.d"), 0755), 0);
    OutputFile files[] = {{in_dir("e.d"), ""}};
    assert_false(write_outputs(files, 1, NULL));
    assert_int_equal(diag_error_count(), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        RESTAT_TEST(same_text_is_not_written),
        RESTAT_TEST(only_changed_files_are_written),
        RESTAT_TEST(prefix_is_a_change),
        RESTAT_TEST(roll_back_keeps_untouched_files),
        RESTAT_TEST(directory_is_not_an_empty_file),
    };
    return cmocka_run_group_tests_name("restat", tests, NULL, NULL);
}

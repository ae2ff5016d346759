/* Unit tests of the autotuner's on-disk cache (tilepp/runtime/tile_tune_cache.h,
 * plain C, no CUDA): the file format and its name, FNV-1a 64, the shape
 * class, the default directory, a round trip, that a changed key field is
 * a miss, that a damaged or foreign file is ignored with a reason and then
 * overwritten, that concurrent writers never show a reader a partial entry,
 * and that an unwritable directory makes the store fail cleanly. Every
 * file lives in a fresh directory under the build directory. */
#define _GNU_SOURCE
#include "tile_tune_cache.h"

#include <dirent.h>
#include <ftw.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/wait.h>

#include <cmocka.h>

static char tmpdir[4096];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    chmod(path, 0700);
    return remove(path);
}

static int make_tmpdir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "%s/tune_cache.XXXXXX", TILEPP_TEST_BUILD_DIR);
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    (void)state;
    chmod(tmpdir, 0700);
    return nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void make_entry(tile_tune_entry *e)
{
    memset(e, 0, sizeof *e);
    strcpy(e->kernel, "gemm");
    strcpy(e->key, "0123456789abcdef");
    strcpy(e->gpu, "NVIDIA H200");
    e->cc_major = 9;
    e->cc_minor = 0;
    e->sms = 132;
    long long ints[3] = {4000, 4096, 4097};
    assert_true(tile_tune_shape_string(ints, 3, e->shape, sizeof e->shape));
    strcpy(e->variant, "BM=128,BN=256,BK=64,STAGES=3");
    e->ms = 0.1234;
}

static void entry_path(const tile_tune_entry *e, char *path, size_t cap)
{
    assert_true(tile_tune_cache_path(tmpdir, e, path, cap));
}

static void write_text(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static size_t read_text(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
    return n;
}

/* Number of directory entries (other than . and ..) in dir. */
static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *de; (de = readdir(d));)
        n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    closedir(d);
    return n;
}

static void test_fnv_and_shape_class(void **state)
{
    (void)state;
    /* The published FNV-1a 64 test vectors. */
    assert_true(tile_tune_fnv1a(TILE_TUNE_FNV_OFFSET, "", 0) == 0xcbf29ce484222325ULL);
    assert_true(tile_tune_fnv1a(TILE_TUNE_FNV_OFFSET, "a", 1) == 0xaf63dc4c8601ec8cULL);
    assert_true(tile_tune_fnv1a(TILE_TUNE_FNV_OFFSET, "foobar", 6) == 0x85944171f73967e8ULL);
    assert_int_equal(tile_tune_shape_class(-5), 0);
    assert_int_equal(tile_tune_shape_class(0), 0);
    assert_int_equal(tile_tune_shape_class(1), 1);
    assert_int_equal(tile_tune_shape_class(3), 4);
    assert_int_equal(tile_tune_shape_class(4096), 4096);
    assert_int_equal(tile_tune_shape_class(4097), 8192);
    assert_true(tile_tune_shape_class(1LL << 62) == 1LL << 62);
    char s[64];
    long long ints[4] = {0, 1000, 64, -1};
    assert_true(tile_tune_shape_string(ints, 4, s, sizeof s));
    assert_string_equal(s, "0,1024,64,0");
    assert_true(tile_tune_shape_string(ints, 0, s, sizeof s));
    assert_string_equal(s, "");
    assert_false(tile_tune_shape_string(ints, 4, s, 5));
}

static void test_default_dir(void **state)
{
    (void)state;
    char dir[4096];
    setenv("TILEPP_TUNE_CACHE", "/some/dir", 1);
    assert_true(tile_tune_cache_default_dir(dir, sizeof dir));
    assert_string_equal(dir, "/some/dir");
    setenv("TILEPP_TUNE_CACHE", "off", 1);
    assert_false(tile_tune_cache_default_dir(dir, sizeof dir));
    setenv("TILEPP_TUNE_CACHE", "", 1);
    assert_false(tile_tune_cache_default_dir(dir, sizeof dir));
    unsetenv("TILEPP_TUNE_CACHE");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    setenv("HOME", "/home/u", 1);
    assert_true(tile_tune_cache_default_dir(dir, sizeof dir));
    assert_string_equal(dir, "/xdg/tilepp/tune");
    setenv("XDG_CACHE_HOME", "relative", 1); /* not absolute: ignored, as the XDG spec says */
    assert_true(tile_tune_cache_default_dir(dir, sizeof dir));
    assert_string_equal(dir, "/home/u/.cache/tilepp/tune");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    assert_false(tile_tune_cache_default_dir(dir, sizeof dir));
}

static void test_round_trip(void **state)
{
    (void)state;
    tile_tune_entry e, got;
    char path[8192], why[256], text[8192];
    make_entry(&e);
    entry_path(&e, path, sizeof path);
    assert_int_equal(tile_tune_cache_load(path, &e, &got, why, sizeof why), TILE_TUNE_CACHE_MISS);
    assert_string_equal(why, "");
    assert_int_equal(tile_tune_cache_store(path, &e, why, sizeof why), 0);
    assert_int_equal(tile_tune_cache_load(path, &e, &got, why, sizeof why), TILE_TUNE_CACHE_HIT);
    assert_string_equal(got.kernel, "gemm");
    assert_string_equal(got.gpu, "NVIDIA H200");
    assert_string_equal(got.shape, "4096,4096,8192");
    assert_string_equal(got.variant, e.variant);
    assert_int_equal(got.cc_major, 9);
    assert_int_equal(got.sms, 132);
    assert_true(fabs(got.ms - 0.1234) < 1e-9);
    assert_int_equal(count_files(tmpdir), 1); /* no temporary file left */

    /* The name: <kernel>-<FNV-1a 64 of the key lines>.tune. */
    const char *key = "kernel gemm\nkey 0123456789abcdef\ngpu NVIDIA H200\ncc 9.0\nsms 132\nshape 4096,4096,8192\n";
    char want[8192];
    snprintf(want, sizeof want, "%s/gemm-%016llx.tune", tmpdir,
             (unsigned long long)tile_tune_fnv1a(TILE_TUNE_FNV_OFFSET, key, strlen(key)));
    assert_string_equal(path, want);

    /* The text, line by line, and its check. */
    size_t n = read_text(path, text, sizeof text);
    const char *body = "tilepp-tune-cache 1\n"
                       "kernel gemm\nkey 0123456789abcdef\ngpu NVIDIA H200\ncc 9.0\nsms 132\nshape 4096,4096,8192\n"
                       "variant BM=128,BN=256,BK=64,STAGES=3\nms 0.1234\n";
    assert_int_equal(strncmp(text, body, strlen(body)), 0);
    char check[64];
    snprintf(check, sizeof check, "check %016llx\n",
             (unsigned long long)tile_tune_fnv1a(TILE_TUNE_FNV_OFFSET, body, strlen(body)));
    assert_string_equal(text + strlen(body), check);
    assert_int_equal(n, strlen(body) + strlen(check));
}

static void test_key_change_is_miss(void **state)
{
    (void)state;
    tile_tune_entry e, other, got;
    char path[8192], why[256];
    make_entry(&e);
    entry_path(&e, path, sizeof path);
    assert_int_equal(tile_tune_cache_store(path, &e, why, sizeof why), 0);
    for (int field = 0; field < 6; field++) {
        other = e;
        switch (field) {
        case 0:
            strcpy(other.key, "fedcba9876543210");
            break;
        case 1:
            strcpy(other.gpu, "NVIDIA H100 80GB HBM3");
            break;
        case 2:
            other.cc_minor = 1;
            break;
        case 3:
            other.sms = 114;
            break;
        case 4:
            strcpy(other.shape, "4096,4096,4096");
            break;
        case 5:
            strcpy(other.kernel, "gemm2");
            break;
        }
        char opath[8192];
        entry_path(&other, opath, sizeof opath);
        assert_string_not_equal(opath, path);
        assert_int_equal(tile_tune_cache_load(opath, &other, &got, why, sizeof why), TILE_TUNE_CACHE_MISS);
        /* Asked at the old name (a hash collision): foreign, with the field. */
        assert_int_equal(tile_tune_cache_load(path, &other, &got, why, sizeof why), TILE_TUNE_CACHE_BAD);
        assert_non_null(strstr(why, "foreign"));
    }
    assert_int_equal(tile_tune_cache_load(path, &e, &got, why, sizeof why), TILE_TUNE_CACHE_HIT);
}

/* Each damaged file is ignored with a reason, then a store overwrites it. */
static void test_bad_files(void **state)
{
    (void)state;
    tile_tune_entry e, foreign, got;
    char path[8192], why[256], good[8192], text[8192];
    make_entry(&e);
    entry_path(&e, path, sizeof path);
    int n = tile_tune_entry_text(&e, good, sizeof good);
    assert_true(n > 0);
    foreign = e;
    strcpy(foreign.gpu, "NVIDIA A100-SXM4-80GB");
    int fn = tile_tune_entry_text(&foreign, text, sizeof text);
    assert_true(fn > 0);
    char foreign_text[8192];
    memcpy(foreign_text, text, (size_t)fn);

    struct {
        const char *what, *reason;
    } cases[] = {
        {"flipped byte in the variant", "check"},
        {"flipped byte in a key word", "parse"},
        {"truncated in the middle", "truncated"},
        {"truncated: no last newline", "truncated"},
        {"garbage", "not a tune cache file"},
        {"empty", "empty"},
        {"foreign entry", "foreign"},
        {"other format version", "version"},
        {"text after the check", "after the check"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = (size_t)n;
        memcpy(text, good, len);
        switch (i) {
        case 0:
            text[strstr(good, "BM=") - good + 1] ^= 0x01;
            break;
        case 1:
            text[strstr(good, "sms") - good] ^= 0x20;
            break;
        case 2:
            len = len / 2;
            break;
        case 3:
            len = len - 1;
            break;
        case 4:
            strcpy(text, "\x7f"
                         "ELF\x01\x02 garbage \xff\xfe\n\n");
            len = strlen(text);
            break;
        case 5:
            len = 0;
            break;
        case 6:
            memcpy(text, foreign_text, (size_t)fn);
            len = (size_t)fn;
            break;
        case 7:
            text[strlen("tilepp-tune-cache ")] = '2';
            break;
        case 8:
            memcpy(text + len, "x\n", 2);
            len += 2;
            break;
        }
        write_text(path, text, len);
        assert_int_equal(tile_tune_cache_load(path, &e, &got, why, sizeof why), TILE_TUNE_CACHE_BAD);
        if (!strstr(why, cases[i].reason))
            fail_msg("%s: reason '%s' does not mention '%s'", cases[i].what, why, cases[i].reason);
        assert_int_equal(tile_tune_cache_store(path, &e, why, sizeof why), 0);
        assert_int_equal(tile_tune_cache_load(path, &e, &got, why, sizeof why), TILE_TUNE_CACHE_HIT);
        assert_string_equal(got.variant, e.variant);
    }
    assert_int_equal(count_files(tmpdir), 1);
}

/* A reader process: every load is a miss or a whole entry of some writer. */
static int reader(const char *path, const tile_tune_entry *e, int loads)
{
    tile_tune_entry got;
    char why[256];
    int hits = 0;
    for (int i = 0; i < loads; i++) {
        tile_tune_cache_result r = tile_tune_cache_load(path, e, &got, why, sizeof why);
        if (r == TILE_TUNE_CACHE_BAD) {
            fprintf(stderr, "reader: a bad entry: %s\n", why);
            return 1;
        }
        int w, k;
        char tail;
        if (r == TILE_TUNE_CACHE_HIT &&
            (sscanf(got.variant, "W=%d,N=%d%c", &w, &k, &tail) != 2 || fabs(got.ms - (w * 1000 + k)) > 1e-6)) {
            fprintf(stderr, "reader: an entry that no writer wrote: %s %g\n", got.variant, got.ms);
            return 1;
        }
        hits += r == TILE_TUNE_CACHE_HIT;
    }
    return hits == 0 && loads > 100 ? 2 : 0; /* the writers must have been seen at least once */
}

static int writer(const char *path, const tile_tune_entry *e, int id, int stores)
{
    tile_tune_entry mine = *e;
    char why[256];
    for (int i = 0; i < stores; i++) {
        snprintf(mine.variant, sizeof mine.variant, "W=%d,N=%d", id, i);
        mine.ms = id * 1000 + i;
        if (tile_tune_cache_store(path, &mine, why, sizeof why) != 0) {
            fprintf(stderr, "writer %d: %s\n", id, why);
            return 1;
        }
    }
    return 0;
}

static void test_concurrent_writers(void **state)
{
    (void)state;
    tile_tune_entry e;
    char path[8192];
    make_entry(&e);
    entry_path(&e, path, sizeof path);
    enum { WRITERS = 8, READERS = 4 };
    pid_t pids[WRITERS + READERS];
    for (int i = 0; i < WRITERS + READERS; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0)
            _exit(i < WRITERS ? writer(path, &e, i, 200) : reader(path, &e, 3000));
    }
    int failed = 0;
    for (int i = 0; i < WRITERS + READERS; i++) {
        int status = 0;
        assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "%s %d: status %d\n", i < WRITERS ? "writer" : "reader", i, status);
            failed++;
        }
    }
    assert_int_equal(failed, 0);
    tile_tune_entry got;
    char why[256];
    assert_int_equal(tile_tune_cache_load(path, &e, &got, why, sizeof why), TILE_TUNE_CACHE_HIT);
    assert_non_null(strstr(got.variant, ",N=199"));
    assert_int_equal(count_files(tmpdir), 1); /* every temporary file renamed */
}

static void test_unwritable_directory(void **state)
{
    (void)state;
    tile_tune_entry e, got;
    char path[8192], why[256], file[4200];
    make_entry(&e);
    /* A directory below a regular file cannot be made, not even by root. */
    snprintf(file, sizeof file, "%s/plain", tmpdir);
    write_text(file, "x", 1);
    snprintf(path, sizeof path, "%s/sub/gemm-0.tune", file);
    assert_int_equal(tile_tune_cache_store(path, &e, why, sizeof why), -1);
    assert_non_null(strstr(why, "cannot make the directory"));
    /* No directory, no entry: a miss (the store's failure is what warns). */
    assert_int_equal(tile_tune_cache_load(path, &e, &got, why, sizeof why), TILE_TUNE_CACHE_MISS);
    /* A read-only directory (root writes anyway: then the store succeeds). */
    char ro[4200];
    snprintf(ro, sizeof ro, "%s/ro", tmpdir);
    assert_int_equal(tile_tune_mkdir_p(ro), 0);
    assert_int_equal(chmod(ro, 0500), 0);
    snprintf(path, sizeof path, "%s/deeper/gemm-0.tune", ro);
    int r = tile_tune_cache_store(path, &e, why, sizeof why);
    if (geteuid() != 0) {
        assert_int_equal(r, -1);
        assert_non_null(strstr(why, "cannot make the directory"));
        snprintf(path, sizeof path, "%s/gemm-0.tune", ro);
        assert_int_equal(tile_tune_cache_store(path, &e, why, sizeof why), -1);
        assert_non_null(strstr(why, "cannot create a file"));
        assert_int_equal(count_files(ro), 0);
    }
    chmod(ro, 0700);
    /* A field that would span lines is refused, nothing is written. */
    snprintf(path, sizeof path, "%s/nl/gemm-0.tune", tmpdir);
    strcpy(e.variant, "BM=64\nBN=64");
    assert_int_equal(tile_tune_cache_store(path, &e, why, sizeof why), -1);
    assert_non_null(strstr(why, "cannot be written"));
}

static void test_mkdir_p(void **state)
{
    (void)state;
    char dir[8192];
    snprintf(dir, sizeof dir, "%s/a/b//c/", tmpdir);
    assert_int_equal(tile_tune_mkdir_p(dir), 0);
    assert_int_equal(tile_tune_mkdir_p(dir), 0); /* already there */
    snprintf(dir, sizeof dir, "%s/a/b/c", tmpdir);
    struct stat st;
    assert_int_equal(stat(dir, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fnv_and_shape_class),
        cmocka_unit_test(test_default_dir),
        cmocka_unit_test_setup_teardown(test_round_trip, make_tmpdir, remove_tmpdir),
        cmocka_unit_test_setup_teardown(test_key_change_is_miss, make_tmpdir, remove_tmpdir),
        cmocka_unit_test_setup_teardown(test_bad_files, make_tmpdir, remove_tmpdir),
        cmocka_unit_test_setup_teardown(test_concurrent_writers, make_tmpdir, remove_tmpdir),
        cmocka_unit_test_setup_teardown(test_unwritable_directory, make_tmpdir, remove_tmpdir),
        cmocka_unit_test_setup_teardown(test_mkdir_p, make_tmpdir, remove_tmpdir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* tile_tune_cache.h — the autotuner's on-disk cache (issue 13): one small
 * text file per tuned (kernel, translation, GPU, shape class), written
 * atomically, read back with validation. Plain C99, header-only (static inline
 * functions), compiles as C and as C++; POSIX file calls, no CUDA. The
 * CUDA side (tile_tune.cuh) fills in the entry and prints the warnings.
 *
 * File: <dir>/<kernel>-<16 hex>.tune, the hex being FNV-1a 64 over the key
 * lines (the "kernel" .. "shape" lines below, newlines included):
 *
 *   tilepp-tune-cache 1
 *   kernel gemm
 *   key 0123456789abcdef          the translator's key (version, text, space, options)
 *   gpu NVIDIA H200               cudaDeviceProp::name
 *   cc 9.0                        compute capability
 *   sms 132                       multiprocessors
 *   shape 4096,4096,4096          shape class of the integer parameters
 *   variant BM=128,BN=256,BK=64,STAGES=3
 *   ms 0.1234                     median time of the chosen variant
 *   check <16 hex>                FNV-1a 64 of all the lines above
 *
 * Decisions where the contract is silent:
 * - Load returns HIT, MISS (no file: nothing to say) or BAD with a reason
 *   (the caller warns "tilepp: ignoring the tune cache entry <path>: <why>"
 *   and re-tunes; the next store overwrites the file). A file that cannot
 *   be opened for another reason than ENOENT or ENOTDIR is BAD too.
 * - The lines must come in the order above, exactly once, each ending in a
 *   newline; a file ending early or without its last newline is
 *   "truncated"; a file over 64 KiB, a NUL byte or a carriage return is
 *   "not a tune cache file". Names (kernel, gpu, variant) may hold spaces
 *   but no newline; the store refuses such names.
 * - Store writes <path>.tmp.<pid>.<n> in the same directory (O_EXCL), then
 *   rename(2), so a reader sees the old file or the new one, never a part.
 *   No fsync: a file torn by a crash fails its check and is re-tuned.
 * - Directory: TILEPP_TUNE_CACHE when set ("off" or empty value: no cache),
 *   else $XDG_CACHE_HOME/tilepp/tune when XDG_CACHE_HOME is an absolute
 *   path (as the XDG spec says), else $HOME/.cache/tilepp/tune, else none.
 * - Shape class: 0 for v <= 0, else the least power of two >= v (values
 *   above 2^62 map to 2^62). */
#ifndef TILEPP_TILE_TUNE_CACHE_H
#define TILEPP_TILE_TUNE_CACHE_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define TILE_TUNE_CACHE_VERSION 1
#define TILE_TUNE_CACHE_MAX_FILE 65536
#define TILE_TUNE_CACHE_PATH_MAX 4096

/* One entry. The key fields say what it is for; variant and ms are what
 * the tuning found. Fixed-size strings: no allocation anywhere. */
typedef struct tile_tune_entry {
    char kernel[128];
    char key[128];
    char gpu[256];
    int cc_major, cc_minor;
    int sms;
    char shape[1024];
    char variant[2048];
    double ms;
} tile_tune_entry;

typedef enum tile_tune_cache_result {
    TILE_TUNE_CACHE_HIT = 0,  /* *got holds a valid entry for the wanted key */
    TILE_TUNE_CACHE_MISS = 1, /* no file */
    TILE_TUNE_CACHE_BAD = 2   /* a file that was ignored; why says why */
} tile_tune_cache_result;

/* ---- hashing and small helpers ---------------------------------------- */

#define TILE_TUNE_FNV_OFFSET 0xcbf29ce484222325ULL
#define TILE_TUNE_FNV_PRIME 0x100000001b3ULL

/* FNV-1a 64 of n bytes, continuing from h (start with TILE_TUNE_FNV_OFFSET). */
static inline uint64_t tile_tune_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= TILE_TUNE_FNV_PRIME;
    }
    return h;
}

/* 16 lower-case hex digits and a NUL into out[17]. */
static inline void tile_tune_hex16(uint64_t h, char *out) { snprintf(out, 17, "%016llx", (unsigned long long)h); }

/* Copies src into dst[cap]; 0 when it does not fit (dst is then ""). */
static inline int tile_tune_copy(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap) {
        if (cap)
            dst[0] = '\0';
        return 0;
    }
    memcpy(dst, src, n + 1);
    return 1;
}

/* A why-string for the caller, when it asked for one. */
static inline void tile_tune_why(char *why, size_t cap, const char *text)
{
    if (why && cap)
        snprintf(why, cap, "%s", text);
}

/* ---- shape class ------------------------------------------------------ */

/* 0 when v <= 0, else the least power of two >= v (at most 2^62). */
static inline long long tile_tune_shape_class(long long v)
{
    if (v <= 0)
        return 0;
    long long p = 1;
    while (p < v && p < (1LL << 62))
        p <<= 1;
    return p;
}

/* "4096,4096,64": the shape classes of n integer parameters ("" for none);
 * 0 when it does not fit in out[cap]. */
static inline int tile_tune_shape_string(const long long *ints, int n, char *out, size_t cap)
{
    size_t used = 0;
    if (!cap)
        return 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        int w = snprintf(out + used, cap - used, "%s%lld", i ? "," : "", tile_tune_shape_class(ints[i]));
        if (w < 0 || (size_t)w >= cap - used) {
            out[0] = '\0';
            return 0;
        }
        used += (size_t)w;
    }
    return 1;
}

/* ---- the text of an entry --------------------------------------------- */

/* A name that can stand on one line of the file. */
static inline int tile_tune_one_line(const char *s) { return s[0] != '\0' && !strchr(s, '\n') && !strchr(s, '\r'); }

/* The key lines ("kernel" .. "shape"); returns the length, or -1 when they
 * do not fit or a field cannot be written. */
static inline int tile_tune_key_text(const tile_tune_entry *e, char *out, size_t cap)
{
    if (!tile_tune_one_line(e->kernel) || !tile_tune_one_line(e->key) || !tile_tune_one_line(e->gpu) ||
        strchr(e->shape, '\n') || strchr(e->shape, '\r'))
        return -1;
    int n = snprintf(out, cap, "kernel %s\nkey %s\ngpu %s\ncc %d.%d\nsms %d\nshape %s\n", e->kernel, e->key, e->gpu,
                     e->cc_major, e->cc_minor, e->sms, e->shape);
    return n < 0 || (size_t)n >= cap ? -1 : n;
}

/* The whole file; returns its length, or -1. */
static inline int tile_tune_entry_text(const tile_tune_entry *e, char *out, size_t cap)
{
    int n = snprintf(out, cap, "tilepp-tune-cache %d\n", TILE_TUNE_CACHE_VERSION);
    if (n < 0 || (size_t)n >= cap || !tile_tune_one_line(e->variant))
        return -1;
    int k = tile_tune_key_text(e, out + n, cap - (size_t)n);
    if (k < 0)
        return -1;
    n += k;
    k = snprintf(out + n, cap - (size_t)n, "variant %s\nms %.6g\n", e->variant, e->ms);
    if (k < 0 || (size_t)k >= cap - (size_t)n)
        return -1;
    n += k;
    char hex[17];
    tile_tune_hex16(tile_tune_fnv1a(TILE_TUNE_FNV_OFFSET, out, (size_t)n), hex);
    k = snprintf(out + n, cap - (size_t)n, "check %s\n", hex);
    return k < 0 || (size_t)k >= cap - (size_t)n ? -1 : n + k;
}

/* ---- file name and directory ------------------------------------------ */

/* "<dir>/<kernel>-<16 hex>.tune" for the key fields of e; 0 when it does
 * not fit or the kernel name cannot be part of a file name. */
static inline int tile_tune_cache_path(const char *dir, const tile_tune_entry *e, char *out, size_t cap)
{
    char key[4096];
    int n = tile_tune_key_text(e, key, sizeof key);
    if (n < 0 || strchr(e->kernel, '/'))
        return 0;
    char hex[17];
    tile_tune_hex16(tile_tune_fnv1a(TILE_TUNE_FNV_OFFSET, key, (size_t)n), hex);
    int w = snprintf(out, cap, "%s/%s-%s.tune", dir, e->kernel, hex);
    return w >= 0 && (size_t)w < cap;
}

/* The default cache directory into out[cap]: 1 when there is one, 0 when
 * the cache is off (TILEPP_TUNE_CACHE=off or empty, or no HOME). */
static inline int tile_tune_cache_default_dir(char *out, size_t cap)
{
    const char *v = getenv("TILEPP_TUNE_CACHE");
    if (v)
        return *v && strcmp(v, "off") != 0 && tile_tune_copy(out, cap, v);
    v = getenv("XDG_CACHE_HOME");
    if (v && v[0] == '/') {
        int w = snprintf(out, cap, "%s/tilepp/tune", v);
        return w >= 0 && (size_t)w < cap;
    }
    v = getenv("HOME");
    if (v && *v) {
        int w = snprintf(out, cap, "%s/.cache/tilepp/tune", v);
        return w >= 0 && (size_t)w < cap;
    }
    return 0;
}

/* mkdir -p: 0 on success (the directory exists), else -1 with errno set. */
static inline int tile_tune_mkdir_p(const char *dir)
{
    char path[TILE_TUNE_CACHE_PATH_MAX];
    if (!tile_tune_copy(path, sizeof path, dir) || !path[0]) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = c;
        if (!c)
            break;
    }
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* ---- store ------------------------------------------------------------ */

/* Writes n bytes to fd; 0 on success. */
static inline int tile_tune_write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Stores e at path (its directory is made when missing): a temporary file
 * in the same directory, then rename. 0 on success, else -1 and why. */
static inline int tile_tune_cache_store(const char *path, const tile_tune_entry *e, char *why, size_t whycap)
{
    char text[8192], dir[TILE_TUNE_CACHE_PATH_MAX], tmp[TILE_TUNE_CACHE_PATH_MAX + 64];
    int n = tile_tune_entry_text(e, text, sizeof text);
    if (n < 0) {
        tile_tune_why(why, whycap, "the entry cannot be written (a field is too long or spans lines)");
        return -1;
    }
    const char *slash = strrchr(path, '/');
    if (!slash || !tile_tune_copy(dir, sizeof dir, path) || slash == path) {
        tile_tune_why(why, whycap, "not a path in a directory");
        return -1;
    }
    dir[slash - path] = '\0';
    if (tile_tune_mkdir_p(dir) != 0) {
        if (why && whycap)
            snprintf(why, whycap, "cannot make the directory %s: %s", dir, strerror(errno));
        return -1;
    }
    static unsigned serial; /* with the pid a fresh name; O_EXCL and a retry cover any clash */
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%u", path, (long)getpid(), serial++);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        if (why && whycap)
            snprintf(why, whycap, "cannot create a file in %s: %s", dir, strerror(errno));
        return -1;
    }
    int failed = tile_tune_write_all(fd, text, (size_t)n);
    int saved = errno;
    failed |= close(fd) != 0;
    if (!failed && rename(tmp, path) == 0)
        return 0;
    saved = failed ? saved : errno;
    unlink(tmp);
    if (why && whycap)
        snprintf(why, whycap, "cannot write %s: %s", path, strerror(saved));
    return -1;
}

/* ---- load ------------------------------------------------------------- */

/* Reads the next line that must start with "<name> " into val[cap] (the
 * rest of the line, without its newline). 0 on success; else why is set. */
static inline int tile_tune_take_line(const char **p, const char *end, const char *name, char *val, size_t cap,
                                      const char **why)
{
    size_t len = strlen(name);
    const char *nl = (const char *)memchr(*p, '\n', (size_t)(end - *p));
    if (!nl) {
        *why = "truncated";
        return -1;
    }
    if ((size_t)(nl - *p) <= len || memcmp(*p, name, len) != 0 || (*p)[len] != ' ') {
        *why = "a line does not parse";
        return -1;
    }
    size_t n = (size_t)(nl - *p) - len - 1;
    if (n >= cap) {
        *why = "a line is too long";
        return -1;
    }
    memcpy(val, *p + len + 1, n);
    val[n] = '\0';
    *p = nl + 1;
    return 0;
}

/* Parses a decimal int that is the whole of s; 0 on success. */
static inline int tile_tune_parse_int(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (s[0] < '0' || s[0] > '9' || *end || errno || v > 1000000000L)
        return -1;
    *out = (int)v;
    return 0;
}

/* Parses the text of a file into e; 0 on success, else -1 and *why. */
static inline int tile_tune_parse(const char *text, size_t n, tile_tune_entry *e, const char **why)
{
    const char *p = text, *end = text + n;
    char line[64], check[64];
    memset(e, 0, sizeof *e);
    if (n == 0 || memchr(text, '\0', n) || memchr(text, '\r', n)) {
        *why = n == 0 ? "empty file" : "not a tune cache file";
        return -1;
    }
    if (tile_tune_take_line(&p, end, "tilepp-tune-cache", line, sizeof line, why))
        return *why = strncmp(text, "tilepp-tune-cache ", 18) ? "not a tune cache file" : *why, -1;
    if (strcmp(line, "1") != 0)
        return *why = "written by another version of tilepp (format version differs)", -1;
    if (tile_tune_take_line(&p, end, "kernel", e->kernel, sizeof e->kernel, why) ||
        tile_tune_take_line(&p, end, "key", e->key, sizeof e->key, why) ||
        tile_tune_take_line(&p, end, "gpu", e->gpu, sizeof e->gpu, why) ||
        tile_tune_take_line(&p, end, "cc", line, sizeof line, why))
        return -1;
    char *dot = strchr(line, '.');
    if (!dot || (*dot = '\0', tile_tune_parse_int(line, &e->cc_major)) || tile_tune_parse_int(dot + 1, &e->cc_minor))
        return *why = "a line does not parse", -1;
    if (tile_tune_take_line(&p, end, "sms", line, sizeof line, why))
        return -1;
    if (tile_tune_parse_int(line, &e->sms))
        return *why = "a line does not parse", -1;
    if (tile_tune_take_line(&p, end, "shape", e->shape, sizeof e->shape, why) ||
        tile_tune_take_line(&p, end, "variant", e->variant, sizeof e->variant, why) ||
        tile_tune_take_line(&p, end, "ms", line, sizeof line, why))
        return -1;
    char *stop;
    e->ms = strtod(line, &stop);
    if (stop == line || *stop || !(e->ms >= 0))
        return *why = "a line does not parse", -1;
    size_t checked = (size_t)(p - text);
    if (tile_tune_take_line(&p, end, "check", check, sizeof check, why))
        return -1;
    if (p != end)
        return *why = "text after the check line", -1;
    char hex[17];
    tile_tune_hex16(tile_tune_fnv1a(TILE_TUNE_FNV_OFFSET, text, checked), hex);
    if (strcmp(check, hex) != 0)
        return *why = "its check does not match its text (corrupt or edited)", -1;
    return 0;
}

/* The first key field of got that differs from want, or NULL. */
static inline const char *tile_tune_foreign_field(const tile_tune_entry *want, const tile_tune_entry *got)
{
    if (strcmp(want->kernel, got->kernel))
        return "kernel";
    if (strcmp(want->key, got->key))
        return "key";
    if (strcmp(want->gpu, got->gpu))
        return "gpu";
    if (want->cc_major != got->cc_major || want->cc_minor != got->cc_minor)
        return "cc";
    if (want->sms != got->sms)
        return "sms";
    if (strcmp(want->shape, got->shape))
        return "shape";
    return NULL;
}

/* Reads the whole file at path into buf[cap]; the length, -1 when there is
 * no file (ENOENT, or ENOTDIR: no directory), -2 on another error (*err = errno), -3 when it is too
 * large. */
static inline long tile_tune_read_file(const char *path, char *buf, size_t cap, int *err)
{
    int fd = open(path, O_RDONLY);
    *err = errno;
    if (fd < 0)
        return *err == ENOENT || *err == ENOTDIR ? -1 : -2;
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            *err = errno;
            close(fd);
            return -2;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if (n == cap) {
            close(fd);
            return -3;
        }
    }
    close(fd);
    return (long)n;
}

/* Loads the entry at path for the key fields of want into *got. HIT: got
 * is valid and for that key; MISS: no file; BAD: a file that must be
 * ignored, why[whycap] says why. */
static inline tile_tune_cache_result tile_tune_cache_load(const char *path, const tile_tune_entry *want,
                                                          tile_tune_entry *got, char *why, size_t whycap)
{
    char *buf = (char *)malloc(TILE_TUNE_CACHE_MAX_FILE);
    int err = 0;
    long n = buf ? tile_tune_read_file(path, buf, TILE_TUNE_CACHE_MAX_FILE, &err) : -2;
    tile_tune_why(why, whycap, "");
    if (n < 0) {
        if (n != -1)
            tile_tune_why(why, whycap,
                          n == -3 ? "not a tune cache file (too large)"
                          : buf   ? strerror(err)
                                  : "out of memory");
        free(buf);
        return n == -1 ? TILE_TUNE_CACHE_MISS : TILE_TUNE_CACHE_BAD;
    }
    const char *reason = NULL;
    int bad = tile_tune_parse(buf, (size_t)n, got, &reason);
    free(buf);
    if (bad) {
        tile_tune_why(why, whycap, reason);
        return TILE_TUNE_CACHE_BAD;
    }
    const char *field = tile_tune_foreign_field(want, got);
    if (field) {
        if (why && whycap)
            snprintf(why, whycap, "written for another %s (a foreign entry)", field);
        return TILE_TUNE_CACHE_BAD;
    }
    return TILE_TUNE_CACHE_HIT;
}

#endif /* TILEPP_TILE_TUNE_CACHE_H */

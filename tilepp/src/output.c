#define _POSIX_C_SOURCE 200809L
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "util.h"

/* Writes `text` to f (NULL: nothing) and closes it; false if any of it
 * failed. */
static bool write_text(FILE *f, const char *text)
{
    if (!f)
        return false;
    size_t len = strlen(text);
    bool ok = fwrite(text, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

static bool write_temp(const char *path, const char *text, char **temp_out)
{
    char *temp = aprintf("%s.tmpXXXXXX", path);
    int fd = mkstemp(temp);
    if (fd < 0) {
        error_at((SrcLoc){0}, "cannot create '%s': %s", path, strerror(errno));
        return false;
    }
    /* mkstemp makes the file 0600; an output is made as a compiler makes
     * one, 0666 less the umask (a header installed or read by others) */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    FILE *f = fdopen(fd, "wb");
    if (!f)
        close(fd);
    bool ok = write_text(f, text);
    if (!ok) {
        error_at((SrcLoc){0}, "cannot write '%s': %s", path, strerror(errno));
        remove(temp);
        return false;
    }
    *temp_out = temp;
    return true;
}

/* Keeps the current content of `path`, if any, under a backup name (a hard
 * link: no copy), so a failed set of renames can put it back. */
static char *backup(const char *path)
{
    if (access(path, F_OK) != 0)
        return NULL;
    for (int i = 0; i < 100; i++) {
        char *name = aprintf("%s.tmpbak%d", path, i);
        if (link(path, name) == 0)
            return name;
    }
    return NULL;
}

/* Whether `path` holds exactly `text` already. Such a file is left alone:
 * its modification time stays, so a build tool that restats its outputs
 * (Ninja's restat) skips what depends on it, nvcc first of all. */
static bool holds(const char *path, const char *text)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false; /* a directory reads as empty: let the rename report it */
    size_t len = 0;
    char *old = read_file(path, &len);
    bool same = old && len == strlen(text) && memcmp(old, text, len) == 0;
    free(old);
    return same;
}

/* Puts back what the first `n` renames replaced: the backed-up content, or
 * no file where there was none. */
static void roll_back(const OutputFile *files, char **backups, const bool *existed, const bool *renamed, int n)
{
    for (int i = 0; i < n; i++) {
        if (!renamed[i])
            continue;
        if (backups[i])
            rename(backups[i], files[i].path);
        else if (!existed[i])
            remove(files[i].path);
        backups[i] = NULL;
    }
}

/* Renames every temp into place or, if one rename fails, restores every
 * target to what it was. Files without a temp (standard output, unchanged
 * content) are not touched. */
static bool commit(const OutputFile *files, char **temps, int n)
{
    char **backups = anew((size_t)n * sizeof *backups);
    bool *existed = anew((size_t)n * sizeof *existed);
    bool *renamed = anew((size_t)n * sizeof *renamed);
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
        if (!temps[i])
            continue;
        existed[i] = access(files[i].path, F_OK) == 0;
        backups[i] = backup(files[i].path);
        if (existed[i] && !backups[i]) {
            error_at((SrcLoc){0}, "cannot write '%s': cannot keep its current content while replacing it",
                     files[i].path);
            ok = false;
        } else if (rename(temps[i], files[i].path) != 0) {
            error_at((SrcLoc){0}, "cannot write '%s': %s", files[i].path, strerror(errno));
            ok = false;
        } else {
            temps[i] = NULL;
            renamed[i] = true;
        }
    }
    if (!ok)
        roll_back(files, backups, existed, renamed, n);
    for (int i = 0; i < n; i++)
        if (backups[i])
            remove(backups[i]);
    return ok;
}

/* Whether a and b name one file: the same existing file (device and
 * inode), or, where neither exists yet, the same path as written. */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    return !ea && !eb && strcmp(a, b) == 0;
}

/* A device, FIFO or socket (`-o /dev/null`): written in place, as a
 * compiler writes it, never replaced by a renamed regular file. */
static bool special_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

static bool write_in_place(const char *path, const char *text)
{
    bool ok = write_text(fopen(path, "wb"), text);
    if (!ok)
        error_at((SrcLoc){0}, "cannot write '%s': %s", path, strerror(errno));
    return ok;
}

/* No output may be the input, nor two outputs one file (the second would
 * silently replace the first). */
static bool distinct_outputs(const OutputFile *files, int n, const char *input)
{
    for (int i = 0; i < n; i++) {
        if (strcmp(files[i].path, "-") == 0 || special_file(files[i].path))
            continue;
        if (input && same_file(files[i].path, input)) {
            error_at((SrcLoc){0}, "the output '%s' is the input file; name another with -o or --header", files[i].path);
            return false;
        }
        for (int j = 0; j < i; j++)
            if (strcmp(files[j].path, "-") != 0 && same_file(files[i].path, files[j].path)) {
                error_at((SrcLoc){0}, "'%s' is named for two outputs; give each its own file", files[i].path);
                return false;
            }
    }
    return true;
}

bool write_outputs(const OutputFile *files, int n, const char *input)
{
    if (!distinct_outputs(files, n, input))
        return false;
    char **temps = anew((size_t)n * sizeof *temps);
    bool *in_place = anew((size_t)n * sizeof *in_place);
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
        if (strcmp(files[i].path, "-") == 0)
            continue;
        in_place[i] = special_file(files[i].path);
        if (!in_place[i] && !holds(files[i].path, files[i].text))
            ok = write_temp(files[i].path, files[i].text, &temps[i]);
    }
    ok = ok && commit(files, temps, n);
    for (int i = 0; i < n; i++)
        if (temps[i])
            remove(temps[i]);
    for (int i = 0; i < n && ok; i++)
        if (in_place[i])
            ok = write_in_place(files[i].path, files[i].text);
    for (int i = 0; i < n && ok; i++)
        if (strcmp(files[i].path, "-") == 0)
            fputs(files[i].text, stdout);
    return ok;
}

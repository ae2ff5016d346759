#define _POSIX_C_SOURCE 200809L
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "util.h"

static bool write_temp(const char *path, const char *text, char **temp_out)
{
    char *temp = aprintf("%s.tmpXXXXXX", path);
    int fd = mkstemp(temp);
    if (fd < 0) {
        error_at((SrcLoc){0}, "cannot create '%s': %s", path, strerror(errno));
        return false;
    }
    FILE *f = fdopen(fd, "wb");
    size_t len = strlen(text);
    bool ok = f && fwrite(text, 1, len, f) == len;
    ok = (f ? fclose(f) == 0 : (close(fd), false)) && ok;
    if (!ok) {
        error_at((SrcLoc){0}, "cannot write '%s': %s", path, strerror(errno));
        remove(temp);
        return false;
    }
    *temp_out = temp;
    return true;
}

bool write_outputs(const OutputFile *files, int n)
{
    char **temps = anew((size_t)n * sizeof *temps);
    bool ok = true;
    for (int i = 0; i < n && ok; i++)
        if (strcmp(files[i].path, "-") != 0)
            ok = write_temp(files[i].path, files[i].text, &temps[i]);
    for (int i = 0; i < n && ok; i++) {
        if (!temps[i])
            continue;
        if (rename(temps[i], files[i].path) != 0) {
            error_at((SrcLoc){0}, "cannot write '%s': %s", files[i].path, strerror(errno));
            ok = false;
        } else
            temps[i] = NULL;
    }
    for (int i = 0; i < n; i++)
        if (temps[i])
            remove(temps[i]);
    for (int i = 0; i < n && ok; i++)
        if (strcmp(files[i].path, "-") == 0)
            fputs(files[i].text, stdout);
    return ok;
}

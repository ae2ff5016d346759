#include "diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Kept with malloc, not the arena: diagnostics outlive the IR. */
typedef struct SourceText {
    struct SourceText *next;
    char *file;
    char *text;
} SourceText;

static FILE *diag_stream;
static SourceText *sources;
static int error_count;
/* Errors already printed, as "file:line:col: message": two stages that find
 * the same problem report it once. */
static char **printed;
static int nprinted;

void diag_set_stream(FILE *stream) { diag_stream = stream; }

static FILE *out(void) { return diag_stream ? diag_stream : stderr; }

static void forget_printed(const char *file);

void diag_register_source(const char *file, const char *text)
{
    forget_printed(file); /* a new text of the file: what was said of the old one does not hold */
    SourceText *s = xmalloc(sizeof *s);
    s->next = sources;
    s->file = xstrdup(file);
    s->text = xstrdup(text);
    sources = s;
}

void diag_reset(void)
{
    while (sources) {
        SourceText *next = sources->next;
        free(sources->file);
        free(sources->text);
        free(sources);
        sources = next;
    }
    error_count = 0;
    for (int i = 0; i < nprinted; i++)
        free(printed[i]);
    free(printed);
    printed = NULL;
    nprinted = 0;
}

static void forget_printed(const char *file)
{
    size_t n = strlen(file);
    int kept = 0;
    for (int i = 0; i < nprinted; i++) {
        if (strncmp(printed[i], file, n) == 0 && printed[i][n] == ':')
            free(printed[i]);
        else
            printed[kept++] = printed[i];
    }
    nprinted = kept;
}

/* Whether this error was printed before; remembers it if not. */
static bool seen_before(SrcLoc loc, const char *message)
{
    char *key = xasprintf("%s:%d:%d: %s", loc.file ? loc.file : "", loc.line, loc.col, message);
    for (int i = 0; i < nprinted; i++)
        if (strcmp(printed[i], key) == 0) {
            free(key);
            return true;
        }
    printed = xrealloc(printed, (size_t)(nprinted + 1) * sizeof *printed);
    printed[nprinted++] = key;
    return false;
}

static const char *source_of(const char *file)
{
    for (SourceText *s = sources; s; s = s->next)
        if (strcmp(s->file, file) == 0)
            return s->text;
    char *text = read_file(file, NULL);
    if (!text)
        return NULL;
    diag_register_source(file, text);
    free(text);
    return source_of(file);
}

/* Prints the quoted source line and a caret under column col. Tabs in the
 * line are kept in the caret line so the caret lands under the right byte. */
static void quote_line(const char *file, int line, int col)
{
    const char *text = source_of(file);
    if (!text || line < 1)
        return;
    const char *p = text;
    for (int l = 1; l < line && *p; l++) {
        p = strchr(p, '\n');
        if (!p)
            return;
        p++;
    }
    const char *end = strchr(p, '\n');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len && p[len - 1] == '\r')
        len--;
    fprintf(out(), "%5d | %.*s\n      | ", line, (int)len, p);
    for (int c = 1; c < col && (size_t)(c - 1) < len; c++)
        fputc(p[c - 1] == '\t' ? '\t' : ' ', out());
    fputs("^\n", out());
}

void diag_report(DiagLevel level, SrcLoc loc, const char *fmt, ...)
{
    static const char *names[] = {"error", "warning", "note"};
    Str message = {0};
    va_list ap;
    va_start(ap, fmt);
    str_vaddf(&message, fmt, ap);
    va_end(ap);
    if (level == DIAG_ERROR && seen_before(loc, str_cstr(&message))) {
        str_free(&message);
        return;
    }
    if (level == DIAG_ERROR)
        error_count++;
    if (loc.file)
        fprintf(out(), "%s:%d:%d: ", loc.file, loc.line, loc.col);
    else
        fputs("tilepp: ", out());
    fprintf(out(), "%s: %s\n", names[level], str_cstr(&message));
    str_free(&message);
    if (loc.file)
        quote_line(loc.file, loc.line, loc.col);
}

int diag_error_count(void) { return error_count; }

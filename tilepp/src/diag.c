#define _POSIX_C_SOURCE 200809L
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
static int warning_count;
static bool color;
static bool ignore_warnings;
static bool warnings_are_errors;
static bool compiler_warnings;
/* The last error or warning was dropped (-w): so are the notes after it. */
static bool dropped;
/* Errors already printed, as "file:line:col: message": two stages that find
 * the same problem report it once. */
static char **printed;
static int nprinted;

/* The state a capture set aside, and the capture's own. */
static struct {
    bool on;
    FILE *stream, *saved_stream;
    char *buf;
    size_t len;
    int saved_errors, saved_warnings;
    bool saved_color, saved_dropped;
    char **saved_printed;
    int saved_nprinted;
    char *first_error;
} capture;

void diag_set_stream(FILE *stream) { diag_stream = stream; }

void diag_set_color(bool on) { color = on; }

void diag_ignore_warnings(bool on) { ignore_warnings = on; }

void diag_warnings_as_errors(bool on) { warnings_are_errors = on; }

void diag_show_compiler_warnings(bool on) { compiler_warnings = on; }

bool diag_compiler_warnings(void) { return compiler_warnings; }

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
    warning_count = 0;
    color = ignore_warnings = warnings_are_errors = compiler_warnings = dropped = false;
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

/* ANSI escapes as clang writes them (llvm::raw_ostream::changeColor). */
#define BOLD "\033[1m"
#define RESET "\033[0m"
#define CARET_COLOR "\033[0;1;32m"
static const char *const level_colors[] = {"\033[0;1;31m", "\033[0;1;35m", "\033[0;1;36m"};

static void paint(const char *escape)
{
    if (color)
        fputs(escape, out());
}

/* The length of the valid UTF-8 sequence at p (at most n bytes), or 0. */
static int utf8_length(const unsigned char *p, size_t n)
{
    int len = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3 : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (len == 0 || (size_t)len > n || (len == 2 && p[0] < 0xC2))
        return 0;
    for (int i = 1; i < len; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return len;
}

/* Lines longer than this are not quoted (clang's limit, MaxLineLengthToPrint):
 * a 100000-character line would fill the terminal twice over. */
enum { MAX_QUOTED_LINE = 4096 };

/* Prints the quoted source line and a caret under column col, as clang
 * does: bytes that are not UTF-8 as <XX>, a character of several bytes in
 * one column, tabs kept in the caret line so the caret lands under the
 * right byte. */
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
    if (len > MAX_QUOTED_LINE)
        return;
    const unsigned char *u = (const unsigned char *)p;
    Str quoted = {0}, caret = {0};
    for (size_t i = 0; i < len;) {
        int n = utf8_length(u + i, len - i);
        bool before = i + 1 < (size_t)col;
        if (n == 0) {
            str_addf(&quoted, "<%02X>", u[i]);
            if (before)
                str_add(&caret, "    ");
            i++;
            continue;
        }
        str_addn(&quoted, p + i, (size_t)n);
        if (before)
            str_addc(&caret, p[i] == '\t' ? '\t' : ' ');
        i += (size_t)n;
    }
    fprintf(out(), "%5d | %s\n      | ", line, str_cstr(&quoted));
    paint(CARET_COLOR);
    fputs(str_cstr(&caret), out());
    fputc('^', out());
    paint(RESET);
    fputc('\n', out());
    str_free(&quoted);
    str_free(&caret);
}

/* Applies -w and -Werror; returns false if the diagnostic is dropped. */
static bool apply_warning_options(DiagLevel *level, Str *message)
{
    if (*level == DIAG_NOTE)
        return !dropped;
    dropped = *level == DIAG_WARNING && ignore_warnings;
    if (*level == DIAG_WARNING && warnings_are_errors) {
        *level = DIAG_ERROR;
        str_add(message, " [-Werror]");
    }
    return !dropped;
}

/* "file:line:col: level: message", coloured as clang does: the message of
 * an error or a warning in bold, a note's plain. */
static void print_head(DiagLevel level, SrcLoc loc, const char *message)
{
    static const char *names[] = {"error", "warning", "note"};
    if (loc.file && loc.line > 0) {
        paint(BOLD);
        fprintf(out(), "%s:%d:%d: ", loc.file, loc.line, loc.col);
        paint(RESET);
    } else if (loc.file) { /* the file as a whole */
        paint(BOLD);
        fprintf(out(), "%s: ", loc.file);
        paint(RESET);
    } else
        fputs("tilepp: ", out());
    paint(level_colors[level]);
    fprintf(out(), "%s: ", names[level]);
    paint(RESET);
    if (level != DIAG_NOTE)
        paint(BOLD);
    size_t left = strlen(message);
    for (const unsigned char *m = (const unsigned char *)message; left;) { /* source text in it: as quote_line */
        int n = utf8_length(m, left);
        if (n)
            fwrite(m, 1, (size_t)n, out());
        else
            fprintf(out(), "<%02X>", *m);
        m += n ? n : 1;
        left -= n ? (size_t)n : 1;
    }
    paint(RESET);
    fputc('\n', out());
}

void diag_report(DiagLevel level, SrcLoc loc, const char *fmt, ...)
{
    Str message = {0};
    va_list ap;
    va_start(ap, fmt);
    str_vaddf(&message, fmt, ap);
    va_end(ap);
    bool shown = apply_warning_options(&level, &message);
    if (!shown || (level == DIAG_ERROR && seen_before(loc, str_cstr(&message)))) {
        str_free(&message);
        return;
    }
    if (level == DIAG_ERROR && capture.on && !capture.first_error)
        capture.first_error = loc.file && loc.line > 0
                                  ? xasprintf("%s:%d:%d: %s", loc.file, loc.line, loc.col, str_cstr(&message))
                                  : xasprintf("%s", str_cstr(&message));
    if (level == DIAG_ERROR)
        error_count++;
    else if (level == DIAG_WARNING)
        warning_count++;
    print_head(level, loc, str_cstr(&message));
    str_free(&message);
    if (loc.file)
        quote_line(loc.file, loc.line, loc.col);
}

void diag_capture_begin(void)
{
    if (capture.on)
        return;
    capture.stream = open_memstream(&capture.buf, &capture.len);
    if (!capture.stream)
        return;
    capture.on = true;
    capture.saved_stream = diag_stream;
    capture.saved_errors = error_count;
    capture.saved_warnings = warning_count;
    capture.saved_color = color;
    capture.saved_dropped = dropped;
    capture.saved_printed = printed;
    capture.saved_nprinted = nprinted;
    capture.first_error = NULL;
    diag_stream = capture.stream;
    error_count = warning_count = 0;
    color = dropped = false;
    printed = NULL;
    nprinted = 0;
}

DiagCaptured diag_capture_end(void)
{
    DiagCaptured c = {0};
    if (!capture.on)
        return c;
    fclose(capture.stream);
    c.errors = error_count;
    c.warnings = warning_count;
    c.text = capture.buf;
    c.first_error = capture.first_error;
    for (int i = 0; i < nprinted; i++)
        free(printed[i]);
    free(printed);
    diag_stream = capture.saved_stream;
    error_count = capture.saved_errors;
    warning_count = capture.saved_warnings;
    color = capture.saved_color;
    dropped = capture.saved_dropped;
    printed = capture.saved_printed;
    nprinted = capture.saved_nprinted;
    capture.on = false;
    capture.buf = NULL;
    capture.len = 0;
    return c;
}

void diag_replay(const char *text, int errors, int warnings)
{
    if (text)
        fputs(text, out());
    error_count += errors;
    warning_count += warnings;
}

int diag_error_count(void) { return error_count; }

int diag_warning_count(void) { return warning_count; }

/* The wording of clang's printDiagnosticStats. */
char *diag_summary(int warnings, int errors)
{
    Str s = {0};
    if (warnings)
        str_addf(&s, "%d warning%s", warnings, warnings == 1 ? "" : "s");
    if (warnings && errors)
        str_add(&s, " and ");
    if (errors)
        str_addf(&s, "%d error%s", errors, errors == 1 ? "" : "s");
    if (warnings || errors)
        str_add(&s, " generated.\n");
    return str_take(&s);
}

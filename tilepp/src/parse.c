#define _POSIX_C_SOURCE 200809L
#include "parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *cx_take(CXString s)
{
    const char *c = clang_getCString(s);
    char *d = astrdup(c ? c : "");
    clang_disposeString(s);
    return d;
}

/* ---- locations ---- */

/* "./x.h" (as clang names a header found next to the file) -> "x.h" */
static char *tidy_path(char *path)
{
    while (path[0] == '.' && path[1] == '/')
        path += 2;
    return path;
}

SrcLoc fe_loc(const FrontEnd *fe, CXSourceLocation loc)
{
    CXFile file;
    unsigned line, col, offset;
    clang_getExpansionLocation(loc, &file, &line, &col, &offset);
    SrcLoc l = {NULL, (int)line, (int)col};
    if (!file)
        return l;
    if (clang_File_isEqual(file, fe->file))
        l.file = fe->path;
    else
        l.file = tidy_path(cx_take(clang_getFileName(file)));
    return l;
}

SrcLoc fe_cursor_loc(const FrontEnd *fe, CXCursor c) { return fe_loc(fe, clang_getCursorLocation(c)); }

static bool offset_in_main(const FrontEnd *fe, CXSourceLocation loc, unsigned *offset)
{
    CXFile file;
    clang_getExpansionLocation(loc, &file, NULL, NULL, offset);
    return file && clang_File_isEqual(file, fe->file);
}

bool fe_in_main_file(const FrontEnd *fe, CXCursor c)
{
    unsigned off;
    return offset_in_main(fe, clang_getCursorLocation(c), &off);
}

bool fe_cursor_range(const FrontEnd *fe, CXCursor c, unsigned *begin, unsigned *end)
{
    CXSourceRange r = clang_getCursorExtent(c);
    if (!offset_in_main(fe, clang_getRangeStart(r), begin) || !offset_in_main(fe, clang_getRangeEnd(r), end))
        return false;
    return *begin <= *end && *end <= fe->len;
}

char *fe_cursor_text(const FrontEnd *fe, CXCursor c)
{
    unsigned b, e;
    if (!fe_cursor_range(fe, c, &b, &e))
        return astrdup("");
    return astrndup(fe->text + b, e - b);
}

/* Cursors reached along different paths may differ in libclang's private
 * fields; the same construct has the same kind and extent. */
static bool same_construct(CXCursor a, CXCursor b)
{
    return clang_getCursorKind(a) == clang_getCursorKind(b) &&
           clang_equalRanges(clang_getCursorExtent(a), clang_getCursorExtent(b));
}

const Attached *fe_attached_on(const FrontEnd *fe, CXCursor c)
{
    for (int i = 0; i < fe->attached.len; i++) {
        const Attached *a = fe->attached.items[i];
        if (same_construct(a->target, c))
            return a;
    }
    return NULL;
}

const Pragma *fe_pragma_on(const FrontEnd *fe, CXCursor c, PragmaKind kind)
{
    for (int i = 0; i < fe->attached.len; i++) {
        const Attached *a = fe->attached.items[i];
        if (a->pragma->kind == kind && same_construct(a->target, c))
            return a->pragma;
    }
    return NULL;
}

/* ---- parsing ---- */

static bool has_std_flag(const ParseOptions *opt)
{
    for (int i = 0; i < opt->nargs; i++)
        if (str_starts_with(opt->args[i], "-std="))
            return true;
    return false;
}

static const char **clang_args(const ParseOptions *opt, int *count)
{
    const char **args = anew((size_t)(opt->nargs + 16) * sizeof *args);
    int n = 0;
    args[n++] = "-xc";
    if (!has_std_flag(opt))
        args[n++] = "-std=gnu11";
    args[n++] = "-D__TILEPP__=1";
    args[n++] = "-Wunknown-pragmas"; /* never shown: they find pragmas that macros make (macro_pragma) */
    args[n++] = "-ferror-limit=50";
#ifdef TILEPP_CLANG_RESOURCE_DIR
    args[n++] = "-resource-dir";
    args[n++] = TILEPP_CLANG_RESOURCE_DIR;
#endif
    if (opt->include_dir)
        args[n++] = aprintf("-I%s", opt->include_dir);
    for (int i = 0; i < opt->nargs; i++)
        args[n++] = opt->args[i];
    *count = n;
    return args;
}

/* Clang's own diagnostics, through diag.c (so -w, -Werror and the colours
 * apply): errors, and warnings where diag_compiler_warnings() says so, each
 * with its notes. */
static void report_clang_diagnostic(FrontEnd *fe, CXDiagnostic d, DiagLevel level)
{
    char *msg = cx_take(clang_getDiagnosticSpelling(d));
    diag_report(level, fe_loc(fe, clang_getDiagnosticLocation(d)), "%s", msg);
    CXDiagnosticSet notes = clang_getChildDiagnostics(d);
    for (unsigned i = 0; i < clang_getNumDiagnosticsInSet(notes); i++) {
        CXDiagnostic note = clang_getDiagnosticInSet(notes, i);
        report_clang_diagnostic(fe, note, DIAG_NOTE);
        clang_disposeDiagnostic(note);
    }
}

/* The macro whose expansion `at` (a location in a file) lies in, or NULL. */
static CXCursor macro_expanded_at(const FrontEnd *fe, CXSourceLocation at)
{
    CXFile file;
    unsigned line, col;
    clang_getExpansionLocation(at, &file, &line, &col, NULL);
    CXCursor c = clang_getCursor(fe->tu, clang_getLocation(fe->tu, file, line, col));
    if (clang_getCursorKind(c) == CXCursor_MacroExpansion)
        return clang_getCursorReferenced(c);
    return clang_getNullCursor();
}

/* A pragma `tile` that a macro produced (`_Pragma("tile parallel")` in a
 * macro's body, or `_Pragma(#x)` with x = tile kernel): clang reports every
 * pragma it does not know (-Wunknown-pragmas), and one whose spelling is in
 * no file came from a _Pragma operator. Refused at the expansion, with the
 * macro: tilepp finds its pragmas in the file's lines. Other unknown pragmas
 * are left alone, as the compilers leave them. */
static bool is_unknown_pragma(CXDiagnostic d)
{
    return strcmp(cx_take(clang_getDiagnosticOption(d, NULL)), "-Wunknown-pragmas") == 0;
}

static bool refuse_macro_pragma(FrontEnd *fe, CXDiagnostic d)
{
    CXSourceLocation at = clang_getDiagnosticLocation(d);
    CXFile spelled;
    clang_getSpellingLocation(at, &spelled, NULL, NULL, NULL);
    CXToken *tok = clang_getToken(fe->tu, at);
    bool tile = tok && strcmp(cx_take(clang_getTokenSpelling(fe->tu, *tok)), "tile") == 0;
    if (tok)
        clang_disposeTokens(fe->tu, tok, 1);
    if (spelled || !tile)
        return false;
    error_at(fe_loc(fe, at), "_Pragma(\"tile ...\") is not supported: write '#pragma tile' on its own line");
    CXCursor macro = macro_expanded_at(fe, at);
    if (!clang_Cursor_isNull(macro))
        note_at(fe_cursor_loc(fe, macro), "the pragma comes from macro '%s'", cx_take(clang_getCursorSpelling(macro)));
    return true;
}

static bool report_clang_errors(FrontEnd *fe)
{
    bool failed = false;
    unsigned n = clang_getNumDiagnostics(fe->tu);
    for (unsigned i = 0; i < n; i++) {
        CXDiagnostic d = clang_getDiagnostic(fe->tu, i);
        enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
        if (is_unknown_pragma(d)) {
            fe->macro_pragmas += refuse_macro_pragma(fe, d);
            failed |= fe->macro_pragmas > 0;
            clang_disposeDiagnostic(d);
            continue;
        }
        if (sev >= CXDiagnostic_Error)
            report_clang_diagnostic(fe, d, DIAG_ERROR);
        else if (sev == CXDiagnostic_Warning && diag_compiler_warnings())
            report_clang_diagnostic(fe, d, DIAG_WARNING);
        failed = failed || sev >= CXDiagnostic_Error;
        clang_disposeDiagnostic(d);
    }
    return !failed;
}

static void add_inclusion(CXFile included, CXSourceLocation *stack, unsigned depth, CXClientData data)
{
    FrontEnd *fe = data;
    (void)stack;
    if (depth == 0)
        return; /* the main file itself is added first */
    vec_push(&fe->dependencies, tidy_path(cx_take(clang_getFileName(included))));
}

/* ---- finding pragmas ---- */

typedef struct TokenView {
    CXToken *toks;
    unsigned n;
} TokenView;

static char *token_text(const FrontEnd *fe, CXToken t) { return cx_take(clang_getTokenSpelling(fe->tu, t)); }

static unsigned token_offset(const FrontEnd *fe, CXToken t)
{
    unsigned off = 0;
    offset_in_main(fe, clang_getTokenLocation(fe->tu, t), &off);
    return off;
}

static bool first_on_line(const FrontEnd *fe, unsigned off)
{
    while (off > 0 && (fe->text[off - 1] == ' ' || fe->text[off - 1] == '\t'))
        off--;
    return off == 0 || fe->text[off - 1] == '\n';
}

/* True if a line break that is not a continuation lies in [from, to). */
static bool line_ends_between(const FrontEnd *fe, unsigned from, unsigned to)
{
    for (unsigned i = from; i < to && i < fe->len; i++) {
        if (fe->text[i] != '\n')
            continue;
        unsigned j = i;
        if (j > 0 && fe->text[j - 1] == '\r')
            j--;
        if (j == 0 || fe->text[j - 1] != '\\')
            return true;
    }
    return false;
}

static bool in_skipped_range(CXSourceRangeList *skipped, const FrontEnd *fe, unsigned off)
{
    for (unsigned i = 0; skipped && i < skipped->count; i++) {
        unsigned b = 0, e = 0;
        offset_in_main(fe, clang_getRangeStart(skipped->ranges[i]), &b);
        offset_in_main(fe, clang_getRangeEnd(skipped->ranges[i]), &e);
        if (off >= b && off < e)
            return true;
    }
    return false;
}

PTokKind ptok_kind(CXTokenKind k)
{
    switch (k) {
    case CXToken_Identifier:
    case CXToken_Keyword:
        return PTOK_IDENT;
    case CXToken_Literal:
        return PTOK_NUMBER;
    case CXToken_Punctuation:
        return PTOK_PUNCT;
    default:
        return PTOK_OTHER;
    }
}

/* Parses the pragma whose `#` is token i; returns the index after it. */
static unsigned take_pragma(FrontEnd *fe, TokenView tv, unsigned i, Vec *pragmas)
{
    unsigned hash_off = token_offset(fe, tv.toks[i]);
    unsigned last_end = hash_off + 1;
    unsigned j = i + 1;
    unsigned first_arg = i + 3;
    PTok *ptoks = NULL; /* grown by doubling: sized by the pragma, not by the file */
    int n = 0, cap = 0;
    for (j = i + 1; j < tv.n; j++) {
        unsigned off = token_offset(fe, tv.toks[j]);
        if (line_ends_between(fe, last_end, off))
            break;
        char *text = token_text(fe, tv.toks[j]);
        last_end = off + (unsigned)strlen(text);
        if (clang_getTokenKind(tv.toks[j]) == CXToken_Comment)
            continue;
        if (j >= first_arg) {
            CXTokenKind k = clang_getTokenKind(tv.toks[j]);
            PTokKind pk = ptok_kind(k);
            if (k == CXToken_Literal && (text[0] == '"' || text[0] == '\''))
                pk = PTOK_STRING;
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                PTok *grown = anew((size_t)cap * sizeof *grown);
                if (n)
                    memcpy(grown, ptoks, (size_t)n * sizeof *grown);
                ptoks = grown;
            }
            ptoks[n++] = (PTok){pk, text, fe_loc(fe, clang_getTokenLocation(fe->tu, tv.toks[j]))};
        }
    }
    SrcLoc hash_loc = fe_loc(fe, clang_getTokenLocation(fe->tu, tv.toks[i]));
    SrcLoc tile_loc = fe_loc(fe, clang_getTokenLocation(fe->tu, tv.toks[i + 2]));
    Pragma *p = pragma_parse(ptoks, n, hash_loc, tile_loc);
    if (p) {
        p->begin_offset = hash_off;
        p->end_offset = last_end;
        vec_push(pragmas, p);
    }
    return j;
}

static bool is_ident(const FrontEnd *fe, TokenView tv, unsigned i, const char *word)
{
    if (i >= tv.n)
        return false;
    CXTokenKind k = clang_getTokenKind(tv.toks[i]);
    if (k != CXToken_Identifier && k != CXToken_Keyword)
        return false;
    return strcmp(token_text(fe, tv.toks[i]), word) == 0;
}

static void refuse_pragma_operator(FrontEnd *fe, TokenView tv, unsigned i)
{
    if (i + 2 >= tv.n)
        return;
    char *lit = token_text(fe, tv.toks[i + 2]);
    const char *s = lit;
    if (*s == 'L' || *s == 'u' || *s == 'U')
        s++;
    if (*s != '"')
        return;
    s++;
    while (*s == ' ' || *s == '\t')
        s++;
    if (str_starts_with(s, "tile") && (s[4] == ' ' || s[4] == '\t' || s[4] == '"'))
        error_at(fe_loc(fe, clang_getTokenLocation(fe->tu, tv.toks[i])),
                 "_Pragma(\"tile ...\") is not supported: write '#pragma tile' on its own line");
}

static void find_pragmas(FrontEnd *fe, Vec *pragmas)
{
    CXSourceRange whole = clang_getRange(clang_getLocationForOffset(fe->tu, fe->file, 0),
                                         clang_getLocationForOffset(fe->tu, fe->file, (unsigned)fe->len));
    TokenView tv;
    clang_tokenize(fe->tu, whole, &tv.toks, &tv.n);
    CXSourceRangeList *skipped = clang_getSkippedRanges(fe->tu, fe->file);
    for (unsigned i = 0; i < tv.n;) {
        if (is_ident(fe, tv, i, "_Pragma")) {
            refuse_pragma_operator(fe, tv, i);
            i++;
            continue;
        }
        char *text = clang_getTokenKind(tv.toks[i]) == CXToken_Punctuation ? token_text(fe, tv.toks[i]) : NULL;
        unsigned off = token_offset(fe, tv.toks[i]);
        bool is_tile_pragma = text && strcmp(text, "#") == 0 && first_on_line(fe, off) &&
                              is_ident(fe, tv, i + 1, "pragma") && is_ident(fe, tv, i + 2, "tile") &&
                              !line_ends_between(fe, off, token_offset(fe, tv.toks[i + 2]));
        bool is_directive = text && strcmp(text, "#") == 0 && first_on_line(fe, off);
        if (is_tile_pragma && !in_skipped_range(skipped, fe, off))
            i = take_pragma(fe, tv, i, pragmas);
        else if (is_directive && is_ident(fe, tv, i + 1, "undef") && i + 2 < tv.n &&
                 !in_skipped_range(skipped, fe, off)) {
            Undef *u = anew(sizeof *u);
            u->name = token_text(fe, tv.toks[i + 2]);
            u->offset = off;
            vec_push(&fe->undefs, u);
            i += 3;
        } else
            i++;
    }
    clang_disposeSourceRangeList(skipped);
    clang_disposeTokens(fe->tu, tv.toks, tv.n);
}

/* A `#pragma tile` in an included (non-system) header would be ignored:
 * kernels must be in the file tilepp translates. Found by a line scan, which
 * suffices to refuse; regions the preprocessor skipped are left out. */
static void refuse_header_pragmas(FrontEnd *fe)
{
    for (int i = 1; i < fe->dependencies.len; i++) {
        const char *path = fe->dependencies.items[i];
        CXFile file = clang_getFile(fe->tu, path);
        if (!file || clang_Location_isInSystemHeader(clang_getLocationForOffset(fe->tu, file, 0)))
            continue;
        char *text = read_file(path, NULL);
        if (!text)
            continue;
        CXSourceRangeList *skipped = clang_getSkippedRanges(fe->tu, file);
        int line = 1;
        for (const char *p = text; *p; line++) {
            const char *q = p;
            while (*q == ' ' || *q == '\t')
                q++;
            bool hit = *q == '#';
            if (hit) {
                q++;
                while (*q == ' ' || *q == '\t')
                    q++;
                hit = strncmp(q, "pragma", 6) == 0;
                q += hit ? 6 : 0;
                while (hit && (*q == ' ' || *q == '\t'))
                    q++;
                hit = hit && strncmp(q, "tile", 4) == 0 && (q[4] == ' ' || q[4] == '\t' || q[4] == '\n' || !q[4]);
            }
            unsigned line_off = (unsigned)(p - text);
            bool skip = false;
            for (unsigned r = 0; hit && skipped && r < skipped->count; r++) {
                unsigned b, e;
                clang_getExpansionLocation(clang_getRangeStart(skipped->ranges[r]), NULL, NULL, NULL, &b);
                clang_getExpansionLocation(clang_getRangeEnd(skipped->ranges[r]), NULL, NULL, NULL, &e);
                skip |= line_off >= b && line_off < e;
            }
            if (hit && !skip) {
                SrcLoc at = {path, line, (int)(strchr(p, '#') - p) + 1};
                error_at(at, "'#pragma tile' in a header is not supported: kernels must be in the file tilepp "
                             "translates");
            }
            const char *nl = strchr(p, '\n');
            if (!nl)
                break;
            p = nl + 1;
        }
        clang_disposeSourceRangeList(skipped);
        free(text);
    }
}

/* ---- attaching pragmas to what follows ---- */

typedef struct Candidate {
    CXCursor cursor;
    unsigned begin, end;
} Candidate;

typedef struct CandidateList {
    FrontEnd *fe;
    Vec items; /* Candidate* */
} CandidateList;

/* The constructs a pragma may stand before: declarations, statements and
 * expressions that are statements. A part of an expression starts where the
 * expression does, or after its first character, so it is never the
 * construct that follows a pragma: expressions are not descended into
 * (which also keeps a long chain `a + b + ...`, nested one level per
 * operand, from costing time quadratic in its length). */
static enum CXChildVisitResult collect_candidate(CXCursor c, CXCursor parent, CXClientData data)
{
    CandidateList *list = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    bool construct = clang_isStatement(k) || clang_isDeclaration(k) || clang_isExpression(k);
    unsigned b, e;
    if (clang_isExpression(k) && clang_isExpression(clang_getCursorKind(parent)))
        return CXChildVisit_Continue;
    if (!construct || !fe_cursor_range(list->fe, c, &b, &e))
        return CXChildVisit_Continue;
    Candidate *cand = anew(sizeof *cand);
    *cand = (Candidate){c, b, e};
    vec_push(&list->items, cand);
    return CXChildVisit_Recurse;
}

unsigned fe_skip_to_code(const FrontEnd *fe, unsigned off)
{
    const char *t = fe->text;
    size_t n = fe->len;
    while (off < n) {
        if (t[off] == ' ' || t[off] == '\t' || t[off] == '\n' || t[off] == '\r' || t[off] == '\f')
            off++;
        else if (t[off] == '\\' && off + 1 < n && (t[off + 1] == '\n' || t[off + 1] == '\r'))
            off++;
        else if (t[off] == '/' && off + 1 < n && t[off + 1] == '/')
            while (off < n && t[off] != '\n')
                off++;
        else if (t[off] == '/' && off + 1 < n && t[off + 1] == '*') {
            const char *close = strstr(t + off + 2, "*/");
            off = close ? (unsigned)(close - t) + 2 : (unsigned)n;
        } else if (t[off] == '#' && first_on_line(fe, off)) {
            unsigned e = off;
            while (e < n && !line_ends_between(fe, e, e + 1))
                e++;
            off = e;
        } else
            break;
    }
    return off;
}

/* In source order; of constructs that start together, the widest first. */
static int candidate_order(const void *x, const void *y)
{
    const Candidate *a = *(const Candidate *const *)x, *b = *(const Candidate *const *)y;
    if (a->begin != b->begin)
        return a->begin < b->begin ? -1 : 1;
    return a->end == b->end ? 0 : a->end > b->end ? -1 : 1;
}

/* The first construct that starts at or after `at` (the widest of those that
 * start there); the list is sorted by candidate_order. */
static const Candidate *next_construct(const CandidateList *list, unsigned at)
{
    int lo = 0, hi = list->items.len;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (((const Candidate *)list->items.items[mid])->begin < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < list->items.len ? list->items.items[lo] : NULL;
}

static const char *construct_wanted(PragmaKind kind)
{
    switch (kind) {
    case PRAGMA_KERNEL:
    case PRAGMA_TUNE:
        return "a function definition";
    case PRAGMA_GRID:
    case PRAGMA_PARALLEL:
    case PRAGMA_PIPELINED:
        return "a 'for' loop";
    case PRAGMA_SHARED:
    case PRAGMA_FRAGMENT:
    case PRAGMA_LOCAL:
        return "an array declaration";
    case PRAGMA_GEMM:
        return "a tile_gemm call, a call to a matrix-multiply function or a matrix-multiply loop nest";
    default:
        return "a statement";
    }
}

static bool fits_construct(PragmaKind kind, CXCursor c)
{
    enum CXCursorKind k = clang_getCursorKind(c);
    switch (kind) {
    case PRAGMA_KERNEL:
    case PRAGMA_TUNE:
        return k == CXCursor_FunctionDecl && clang_isCursorDefinition(c);
    case PRAGMA_GRID:
    case PRAGMA_PARALLEL:
    case PRAGMA_PIPELINED:
        return k == CXCursor_ForStmt;
    case PRAGMA_SHARED:
    case PRAGMA_FRAGMENT:
    case PRAGMA_LOCAL:
        return k == CXCursor_DeclStmt || k == CXCursor_VarDecl;
    case PRAGMA_GEMM:
        return k == CXCursor_CallExpr || k == CXCursor_ForStmt;
    default:
        return false;
    }
}

static void attach_pragmas(FrontEnd *fe, Vec *pragmas)
{
    CandidateList list = {fe, {0}};
    clang_visitChildren(clang_getTranslationUnitCursor(fe->tu), collect_candidate, &list);
    if (list.items.len > 1)
        qsort(list.items.items, (size_t)list.items.len, sizeof *list.items.items, candidate_order);
    for (int i = 0; i < pragmas->len; i++) {
        Pragma *p = pragmas->items[i];
        unsigned code = fe_skip_to_code(fe, p->end_offset);
        const Candidate *next = next_construct(&list, p->end_offset);
        if (!next || next->begin != code) {
            error_at(p->loc, "'#pragma tile %s' must be followed by %s", pragma_kind_name(p->kind),
                     construct_wanted(p->kind));
            pragma_free(p);
            continue;
        }
        if (!fits_construct(p->kind, next->cursor)) {
            error_at(p->loc, "'#pragma tile %s' applies to %s, not to what follows it", pragma_kind_name(p->kind),
                     construct_wanted(p->kind));
            note_at(fe_cursor_loc(fe, next->cursor), "this is what follows the pragma");
            pragma_free(p);
            continue;
        }
        if (fe_pragma_on(fe, next->cursor, p->kind)) {
            error_at(p->loc, "duplicate '#pragma tile %s' on the same %s", pragma_kind_name(p->kind),
                     p->kind == PRAGMA_KERNEL || p->kind == PRAGMA_TUNE ? "function" : "statement");
            pragma_free(p);
            continue;
        }
        Attached *a = anew(sizeof *a);
        a->pragma = p;
        a->target = next->cursor;
        vec_push(&fe->attached, a);
    }
}

static bool open_translation_unit(FrontEnd *fe, const ParseOptions *opt)
{
    int nargs;
    const char **args = clang_args(opt, &nargs);
    /* libclang hands the file name to clang's driver with the flags: "-x.c"
     * would be read as an option. Diagnostics keep the user's name. */
    const char *path = opt->path[0] == '-' ? aprintf("./%s", opt->path) : opt->path;
    struct CXUnsavedFile unsaved = {path, fe->text, (unsigned long)fe->len};
    unsigned flags = CXTranslationUnit_DetailedPreprocessingRecord;
    enum CXErrorCode err = clang_parseTranslationUnit2(
        fe->index, path, args, nargs, opt->unsaved_text ? &unsaved : NULL, opt->unsaved_text ? 1 : 0, flags, &fe->tu);
    if (err != CXError_Success || !fe->tu) {
        error_at((SrcLoc){0}, "could not parse '%s' (libclang error %d)", opt->path, (int)err);
        return false;
    }
    fe->file = clang_getFile(fe->tu, path);
    if (!fe->file) {
        error_at((SrcLoc){0}, "could not open '%s'", opt->path);
        return false;
    }
    return true;
}

/* The input's bytes. A directory is refused, and so is anything else that
 * is not a regular file (a pipe, a device): libclang reads the file again by
 * its name, and would find a pipe empty or never finish /dev/zero. */
static bool read_input(FrontEnd *fe, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        error_at((SrcLoc){0}, "cannot read '%s': %s", path, strerror(errno));
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        error_at((SrcLoc){0}, "'%s' is a directory, not a C file", path);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        error_at((SrcLoc){0},
                 "'%s' is not a regular file (a pipe or a device): tilepp and libclang each read the "
                 "input by its name, so it must be a file",
                 path);
        return false;
    }
    errno = 0;
    char *text = read_file(path, &fe->len);
    if (!text) {
        error_at((SrcLoc){0}, "cannot read '%s': %s", path, strerror(errno ? errno : EIO));
        return false;
    }
    fe->text = astrndup(text, fe->len);
    free(text);
    return true;
}

/* Clang skips a null character with a warning; tilepp copies the source's
 * text into the CUDA it writes, as C strings, and would lose what follows
 * one on its line: refused where it stands. */
static bool refuse_null_character(const FrontEnd *fe)
{
    const char *nul = memchr(fe->text, '\0', fe->len);
    if (!nul)
        return true;
    SrcLoc at = {fe->path, 1, 1};
    for (const char *p = fe->text; p < nul; p++) {
        at.col = *p == '\n' ? 1 : at.col + 1;
        at.line += *p == '\n';
    }
    error_at(at, "a null character in the source: tilepp copies the source's text into the CUDA it writes and "
                 "cannot carry one; remove it");
    return false;
}

FrontEnd *frontend_parse(const ParseOptions *opt)
{
    FrontEnd *fe = anew(sizeof *fe);
    fe->path = astrdup(opt->path);
    if (opt->unsaved_text) {
        fe->len = strlen(opt->unsaved_text);
        fe->text = astrndup(opt->unsaved_text, fe->len);
    } else if (!read_input(fe, opt->path))
        return NULL;
    diag_register_source(fe->path, fe->text);
    if (!refuse_null_character(fe))
        return NULL;
    fe->index = clang_createIndex(0, 0);
    if (!open_translation_unit(fe, opt) || !report_clang_errors(fe)) {
        frontend_free(fe);
        return NULL;
    }
    vec_push(&fe->dependencies, (void *)fe->path);
    clang_getInclusions(fe->tu, add_inclusion, fe);
    Vec pragmas = {0};
    int errors_before = diag_error_count();
    find_pragmas(fe, &pragmas);
    refuse_header_pragmas(fe);
    attach_pragmas(fe, &pragmas);
    if (diag_error_count() > errors_before) {
        frontend_free(fe);
        return NULL;
    }
    return fe;
}

void frontend_free(FrontEnd *fe)
{
    if (!fe)
        return;
    for (int i = 0; i < fe->attached.len; i++)
        pragma_free(((Attached *)fe->attached.items[i])->pragma);
    fe->attached.len = 0;
    if (fe->tu)
        clang_disposeTranslationUnit(fe->tu);
    if (fe->index)
        clang_disposeIndex(fe->index);
    fe->tu = NULL;
    fe->index = NULL;
}

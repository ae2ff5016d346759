/* build_body.c — code inside kernels: the text of a parallel loop's body or
 * of a statement of a grid block, cut at each buffer access, and what each
 * access reads and writes; refuses what cannot run as independent
 * iterations (parallel bodies) or alike on every thread of a block (block
 * statements), and checks the updates of reduction variables. */
#include "build_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Code text with buffer accesses cut out                                    */
/* ------------------------------------------------------------------------ */

typedef enum { USE_READ, USE_WRITE, USE_READ_WRITE, USE_ADDRESS } Use;

/* A call of tile_min or tile_max, the language's own macros, being walked.
 * Its expansion ((a) < (b) ? (a) : (b)) holds each argument twice; the text
 * written in the file holds it once, and that is where accesses are cut. */
typedef struct MacroCall {
    unsigned begin, end; /* `tile_min(...)` in the file */
    unsigned args[4];    /* where the arguments walked so far start */
    int nargs;
} MacroCall;

/* Where in a MacroCall the walk is: in the macro's own text, in an argument
 * written out in the file, or in an argument's part that another macro
 * makes (nothing there can be cut). */
typedef enum { ARG_NONE, ARG_WRITTEN, ARG_HIDDEN } ArgState;

typedef struct Walk {
    Builder *b;
    CodeMode mode;
    Vec *accesses; /* IrAccess*: where the accesses go */
    IrCode *code;  /* NULL while walking text that cannot be spliced */
    unsigned pos;  /* next byte of the main file to copy into code */
    unsigned end;
    bool conditional;
    bool skippable;  /* a `continue` of the iteration came before: what follows runs in some iterations only */
    bool nested;     /* inside a subscript of an access */
    int loop_depth;  /* loops and switches inside the body, for break */
    bool stmt_child; /* the cursor walked next is a statement of its own */
    CodeEffects fx;
    bool failed;
    MacroCall *call;     /* the tile_min/tile_max call being walked, or NULL */
    ArgState arg;        /* where in it */
    CXCursor update_var; /* the reduction variable whose update is walked whole */
    bool in_update;
    bool casts_only;      /* build_plain_code: no accesses, no checks */
    Vec pointer_accesses; /* PointerAccess*: through local pointers into buffers (parallel bodies) */
} Walk;

/* An element reached through a local pointer that points into a buffer
 * parameter (`float *p = x + 1; ... p[i]`): not an access tilepp can
 * analyse, but one of `root`'s elements all the same. */
typedef struct PointerAccess {
    CXCursor pointer; /* the pointer's declaration */
    IrBuffer *root;
    char *text, *subs; /* the access, and its subscripts, as written */
    bool is_write;
    SrcLoc loc;
} PointerAccess;

static void walk(Walk *w, CXCursor c, Use use);
static void walk_node(Walk *w, CXCursor c, Use use);

/* The file's text [begin, end) into code, with each `#pragma tile` line in
 * it (a `local` the body honours as it stands) turned into a comment: CUDA
 * would warn about a pragma it does not know. Line breaks stay where they
 * are, so #line directives still count right. */
static void add_source_text(Walk *w, unsigned begin, unsigned end)
{
    const FrontEnd *fe = w->b->fe;
    for (int i = 0; i < fe->attached.len; i++) {
        const Pragma *p = ((const Attached *)fe->attached.items[i])->pragma;
        if (p->begin_offset < begin || p->begin_offset >= end)
            continue;
        ir_code_add_text(w->code, fe->text + begin, p->begin_offset - begin);
        ir_code_add_text(w->code, "// ", 3);
        begin = p->begin_offset;
    }
    ir_code_add_text(w->code, fe->text + begin, end - begin);
}

static void flush_text(Walk *w, unsigned upto)
{
    if (w->code && upto > w->pos) {
        add_source_text(w, w->pos, upto);
        w->pos = upto;
    }
}

/* ---- where code is written ---- */

typedef void (*LocFn)(CXSourceLocation, CXFile *, unsigned *, unsigned *, unsigned *);

/* Where `get` (libclang's expansion, spelling or file location) puts l, as an
 * offset into the main file. */
static bool main_offset(const FrontEnd *fe, CXSourceLocation l, LocFn get, unsigned *off)
{
    CXFile file;
    get(l, &file, NULL, NULL, off);
    return file && clang_File_isEqual(file, fe->file);
}

/* Is the token at l written at its place in the main file, rather than made
 * by a macro's body? (The file location of a macro argument's token is where
 * the argument is written; of a body's token, the macro call.) */
static bool spelled_at(const FrontEnd *fe, CXSourceLocation l, unsigned *off)
{
    unsigned spelled;
    return main_offset(fe, l, clang_getFileLocation, off) && main_offset(fe, l, clang_getSpellingLocation, &spelled) &&
           spelled == *off;
}

/* The characters of c in the main file, [begin, end), when every one of its
 * ends is written there: also a macro argument's, unlike fe_cursor_range. */
static bool spelled_span(const FrontEnd *fe, CXCursor c, unsigned *begin, unsigned *end)
{
    CXSourceRange r = clang_getCursorExtent(c);
    return spelled_at(fe, clang_getRangeStart(r), begin) && spelled_at(fe, clang_getRangeEnd(r), end) &&
           *begin < *end && *end <= fe->len;
}

/* The text of c that the walk may cut and splice, [begin, end): code written
 * out in the file, or (inside a tile_min/tile_max call) written out in one of
 * its arguments. */
static bool code_span(const Walk *w, CXCursor c, unsigned *begin, unsigned *end)
{
    const FrontEnd *fe = w->b->fe;
    if (w->call)
        return w->arg == ARG_WRITTEN && spelled_span(fe, c, begin, end) && *begin > w->call->begin &&
               *end < w->call->end;
    unsigned b, e;
    return spelled_span(fe, c, begin, end) && fe_cursor_range(fe, c, &b, &e) && b == *begin && e == *end;
}

/* c's text for the IR: as written in a tile_min/tile_max argument, where
 * libclang's own range would be the whole call. */
static char *code_text(const Walk *w, CXCursor c)
{
    unsigned begin, end;
    if (w->call && code_span(w, c, &begin, &end))
        return astrndup(w->b->fe->text + begin, end - begin);
    return fe_cursor_text(w->b->fe, c);
}

/* The end of the call whose '(' is at `open` in the file: after its ')'. */
bool call_end(const FrontEnd *fe, unsigned open, unsigned *end)
{
    int depth = 0;
    for (unsigned i = open; i < fe->len; i++) {
        char ch = fe->text[i];
        if (ch == '"' || ch == '\'') { /* a literal: to its closing quote */
            while (++i < fe->len && fe->text[i] != ch)
                i += fe->text[i] == '\\';
        } else if (ch == '/' && i + 1 < fe->len && fe->text[i + 1] == '*') {
            for (i += 2; i + 1 < fe->len && !(fe->text[i] == '*' && fe->text[i + 1] == '/'); i++)
                ;
            i++; /* at the comment's '/' */
        } else if (ch == '/' && i + 1 < fe->len && fe->text[i + 1] == '/') {
            while (i < fe->len && fe->text[i] != '\n')
                i++;
        } else if (ch == '(')
            depth++;
        else if (ch == ')' && --depth == 0) {
            *end = i + 1;
            return true;
        }
    }
    return false;
}

static unsigned start_offset(CXCursor c, LocFn get, CXFile *file)
{
    unsigned off;
    get(clang_getRangeStart(clang_getCursorExtent(c)), file, NULL, NULL, &off);
    return off;
}

/* Is conditional c (children ch) the body of tile.h's tile_min or tile_max,
 * ((a) < (b) ? (a) : (b)), wherever the macro is called? The conditional
 * and its two operands start from one call (one file location) at three
 * places of one line, `#define tile_min(` or `#define tile_max(`. (A
 * conditional written around calls, `tile_max(a, b) > 0 ? ...`, starts
 * where a call's body starts too, but its operands come from elsewhere.) */
static bool tile_minmax_body(const FrontEnd *fe, CXCursor c, Children ch)
{
    CXFile file, f;
    CXCursor parts[3] = {c, ch.items[1], ch.items[2]};
    unsigned off[3], at = start_offset(c, clang_getFileLocation, &f);
    off[0] = start_offset(c, clang_getSpellingLocation, &file);
    for (int i = 1; i < 3; i++) {
        off[i] = start_offset(parts[i], clang_getSpellingLocation, &f);
        if (!file || !f || !clang_File_isEqual(file, f) || off[i] <= off[i - 1])
            return false;
        if (start_offset(parts[i], clang_getFileLocation, &f) != at)
            return false;
    }
    size_t size;
    const char *text = clang_getFileContents(fe->tu, file, &size);
    if (!text || off[2] >= size || memchr(text + off[0], '\n', off[2] - off[0]))
        return false;
    unsigned line = off[0];
    while (line > 0 && text[line - 1] != '\n')
        line--;
    while (line < off[0] && (text[line] == ' ' || text[line] == '\t'))
        line++;
    static const char *const defs[] = {"#define tile_min(", "#define tile_max("};
    for (int i = 0; i < 2; i++)
        if (strncmp(text + line, defs[i], strlen(defs[i])) == 0)
            return true;
    return false;
}

/* Is c a whole tile_min/tile_max call: its expansion, from the macro's outer
 * parenthesis? Then *cond is the call's conditional. */
static bool tile_minmax_expansion(const FrontEnd *fe, CXCursor c, CXCursor *cond)
{
    CXFile f;
    *cond = strip(c);
    Children ch = children_of(*cond);
    return kind_of(*cond) == CXCursor_ConditionalOperator && ch.n == 3 && tile_minmax_body(fe, *cond, ch) &&
           start_offset(c, clang_getFileLocation, &f) == start_offset(*cond, clang_getFileLocation, &f);
}

/* The call of tile_min/tile_max whose body is conditional c, when the call
 * is written in the file, or written out in an argument of the call being
 * walked: its name starts the file text c is expanded from. (Another macro
 * around the call hides where its arguments are written.) */
static bool tile_minmax_call(const Walk *w, CXCursor c, MacroCall *call)
{
    const FrontEnd *fe = w->b->fe;
    CXSourceLocation l = clang_getRangeStart(clang_getCursorExtent(c));
    unsigned at, expanded;
    if (!main_offset(fe, l, clang_getFileLocation, &at) || at + 8 >= fe->len)
        return false;
    const char *name = fe->text + at;
    if (strncmp(name, "tile_min", 8) != 0 && strncmp(name, "tile_max", 8) != 0)
        return false;
    unsigned open = at + 8;
    while (open < fe->len && isspace((unsigned char)fe->text[open]))
        open++;
    bool outermost = main_offset(fe, l, clang_getExpansionLocation, &expanded) && expanded == at;
    bool in_argument = w->call && w->arg == ARG_WRITTEN && at > w->call->begin && at < w->call->end;
    if (open >= fe->len || fe->text[open] != '(' || !(outermost || in_argument))
        return false;
    *call = (MacroCall){.begin = at};
    return call_end(fe, open, &call->end);
}

/* Does c start with a token written in the file (or with a tile_min/
 * tile_max call written there), not one another macro's body makes? */
static bool starts_written(const FrontEnd *fe, CXCursor c)
{
    unsigned off;
    CXCursor cond;
    return spelled_at(fe, clang_getRangeStart(clang_getCursorExtent(c)), &off) || tile_minmax_expansion(fe, c, &cond);
}

/* Before walking c inside a tile_min/tile_max call: notes where c is, and
 * says whether to walk it; not a second copy of an argument, walked already
 * with the first (the arguments come in the file's order, each twice). */
static bool enter_call_text(Walk *w, CXCursor c)
{
    const FrontEnd *fe = w->b->fe;
    if (w->arg == ARG_NONE) {
        unsigned begin;
        CXSourceLocation l = clang_getRangeStart(clang_getCursorExtent(c));
        if (!main_offset(fe, l, clang_getFileLocation, &begin) || begin <= w->call->begin || begin >= w->call->end)
            return true; /* the macro's own text */
        for (int i = 0; i < w->call->nargs; i++)
            if (w->call->args[i] == begin)
                return false;
        if (w->call->nargs < 4)
            w->call->args[w->call->nargs++] = begin;
        w->arg = starts_written(fe, c) ? ARG_WRITTEN : ARG_HIDDEN;
    } else if (w->arg == ARG_WRITTEN && !starts_written(fe, c))
        w->arg = ARG_HIDDEN; /* another macro inside the argument */
    return true;
}

/* A tile of the grid block being built, named by `ref`, or NULL. */
static IrBuffer *block_tile(Builder *b, CXCursor ref)
{
    if (!b->grid || kind_of(ref) != CXCursor_DeclRefExpr)
        return NULL;
    CXCursor d = clang_getCursorReferenced(ref);
    if (kind_of(d) != CXCursor_VarDecl)
        return NULL;
    for (int i = 0; i < b->grid->tiles.len; i++) {
        IrBuffer *t = b->grid->tiles.items[i];
        if (strcmp(t->name, spelling(d)) == 0 && t->loc.line == loc_of(b, d).line && t->loc.col == loc_of(b, d).col)
            return t;
    }
    return NULL;
}

/* The buffer at the root of a subscript chain (a buffer parameter, or a
 * tile of the block), and its indices in source order. */
static IrBuffer *subscript_root(Walk *w, CXCursor c, CXCursor *indices, int *n)
{
    CXCursor chain[IR_MAX_RANK + 1];
    int depth = 0;
    CXCursor cur = c;
    while (kind_of(cur) == CXCursor_ArraySubscriptExpr && depth <= IR_MAX_RANK) {
        Children ch = children_of(cur);
        if (ch.n != 2)
            return NULL;
        chain[depth++] = ch.items[1];
        cur = strip(ch.items[0]);
    }
    if (kind_of(cur) != CXCursor_DeclRefExpr || depth > IR_MAX_RANK)
        return NULL;
    const IrParam *p = param_of(w->b, clang_getCursorReferenced(cur));
    IrBuffer *buf = p && p->kind == PARAM_BUFFER ? p->buf : block_tile(w->b, cur);
    if (!buf)
        return NULL;
    for (int i = 0; i < depth; i++)
        indices[i] = chain[depth - 1 - i];
    *n = depth;
    return buf;
}

/* Tiles are used element by element in code: shared ones anywhere in a
 * block; a fragment's elements live in registers spread over the threads,
 * so only a parallel loop may use them (lowering maps it onto the
 * fragment's layout, or refuses). */
static bool tile_access_ok(Walk *w, const IrBuffer *buf, int n, SrcLoc loc)
{
    if (buf->space == SPACE_GLOBAL)
        return true;
    if (buf->space == SPACE_FRAGMENT && (w->mode != CODE_PARALLEL || n != buf->rank)) {
        error_at(loc,
                 "fragment '%s' is used element by element here: its elements live in the registers of the block's "
                 "threads, so only a parallel loop over its indices (%s) may use them",
                 buf->name, buf->rank == 1 ? "f[i]" : "f[i][j]");
        return false;
    }
    if (buf->space == SPACE_FRAGMENT)
        return true;
    if (n != buf->rank) {
        error_at(loc, "shared tile '%s' has %d dimensions; use it element by element, as %s", buf->name, buf->rank,
                 buf->rank == 1 ? "t[i]" : "t[i][j]");
        return false;
    }
    return true;
}

/* `name[...]...]` as the text of an access: the buffer's own name first. */
static bool written_as_access(const char *text, const char *name)
{
    size_t tlen = strlen(text), nlen = strlen(name);
    char next = text[nlen < tlen ? nlen : tlen];
    return str_starts_with(text, name) && !(isalnum((unsigned char)next) || next == '_') && tlen &&
           text[tlen - 1] == ']';
}

/* Inside a tile_min/tile_max call, the subscripts must be written out too:
 * their text (the IR keeps it) cannot be read from the call's expansion. */
static bool subscripts_written(const Walk *w, CXCursor *indices, int n)
{
    unsigned begin, end;
    for (int d = 0; w->call && d < n; d++)
        if (!spelled_span(w->b->fe, indices[d], &begin, &end))
            return false;
    return true;
}

/* The buffer parameter a local pointer was set to point into, from its
 * initialiser: `x`, `x + e`, `e + x`, `x - e`, `&x[e]...`; or NULL. */
static IrBuffer *pointer_target(Builder *b, CXCursor decl)
{
    if (kind_of(decl) != CXCursor_VarDecl || clang_getCanonicalType(clang_getCursorType(decl)).kind != CXType_Pointer ||
        kind_of(clang_getCursorSemanticParent(decl)) == CXCursor_TranslationUnit)
        return NULL;
    Children ch = children_of(decl);
    if (ch.n == 0 || !clang_isExpression(kind_of(ch.items[ch.n - 1])))
        return NULL;
    CXCursor e = strip(ch.items[ch.n - 1]);
    Children ech = children_of(e);
    if (kind_of(e) == CXCursor_BinaryOperator && ech.n == 2) {
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
        if (op != CXBinaryOperator_Add && op != CXBinaryOperator_Sub)
            return NULL;
        CXCursor l = strip(ech.items[0]), r = strip(ech.items[1]);
        e = kind_of(l) == CXCursor_DeclRefExpr && clang_getCanonicalType(clang_getCursorType(l)).kind == CXType_Pointer
                ? l
                : r;
    } else if (kind_of(e) == CXCursor_UnaryOperator && ech.n == 1 &&
               clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_AddrOf) {
        e = strip(ech.items[0]);
        while (kind_of(e) == CXCursor_ArraySubscriptExpr && children_of(e).n == 2)
            e = strip(children_of(e).items[0]);
    }
    if (kind_of(e) != CXCursor_DeclRefExpr)
        return NULL;
    const IrParam *p = param_of(b, clang_getCursorReferenced(e));
    return p && p->kind == PARAM_BUFFER ? p->buf : NULL;
}

/* `p[e]` with p such a pointer (parallel bodies): kept for
 * warn_pointer_accesses. The access itself stays as written. */
static void note_pointer_access(Walk *w, CXCursor c, Use use)
{
    if (w->mode != CODE_PARALLEL || w->casts_only)
        return;
    Children ch = children_of(c);
    CXCursor base = ch.n == 2 ? strip(ch.items[0]) : clang_getNullCursor();
    if (kind_of(base) != CXCursor_DeclRefExpr)
        return;
    CXCursor decl = clang_getCursorReferenced(base);
    IrBuffer *root = pointer_target(w->b, decl);
    if (!root)
        return;
    PointerAccess *a = anew(sizeof *a);
    a->pointer = decl;
    a->root = root;
    a->text = code_text(w, c);
    a->subs = code_text(w, ch.items[1]);
    a->is_write = use == USE_WRITE || use == USE_READ_WRITE || use == USE_ADDRESS;
    a->loc = loc_of(w->b, c);
    vec_push(&w->pointer_accesses, a);
}

/* Iterations of a parallel loop that may touch one element, one of them
 * through a local pointer into a buffer: `float *p = x + 1; p[i] = x[i]` is
 * `x[i + 1] = x[i]`, a dependence the check of buffer accesses would refuse.
 * tilepp does not follow pointers, so it warns where a pointer's write meets
 * another access of its buffer (direct, or through a pointer at another
 * subscript), or a write of the buffer meets a pointer's access. */
static void warn_pointer_accesses(Walk *w)
{
    for (int i = 0; i < w->pointer_accesses.len; i++) {
        const PointerAccess *p = w->pointer_accesses.items[i];
        const char *other = NULL;
        SrcLoc at = p->loc;
        for (int j = 0; j < w->accesses->len && !other; j++) {
            const IrAccess *a = w->accesses->items[j];
            bool address_only = a->escapes && a->is_read && a->is_write; /* `&x[i]`, as a pointer is set */
            if (a->buf == p->root && !address_only && (a->is_write || p->is_write)) {
                other = a->text;
                at = a->loc;
            }
        }
        for (int j = 0; j < w->pointer_accesses.len && !other && p->is_write; j++) {
            const PointerAccess *q = w->pointer_accesses.items[j];
            if (q != p && q->root == p->root &&
                (!clang_equalCursors(q->pointer, p->pointer) || strcmp(q->subs, p->subs) != 0)) {
                other = q->text;
                at = q->loc;
            }
        }
        if (!other)
            continue;
        warning_at(p->loc,
                   "'%s' reaches an element of '%s' through pointer '%s', and '%s' is another access of '%s' in "
                   "this loop: tilepp cannot check through a pointer whether iterations touch each other's elements "
                   "(which C's order decides and the GPU's does not); index '%s' directly, so that the dependence "
                   "check sees both",
                   p->text, p->root->name, spelling(p->pointer), other, p->root->name, p->root->name);
        note_at(at, "the other access is here");
        return; /* once a loop */
    }
}

static void record_access(Walk *w, CXCursor c, IrBuffer *buf, CXCursor *indices, int n, Use use)
{
    IrAccess *a = anew(sizeof *a);
    a->buf = buf;
    a->text = code_text(w, c);
    a->ndims = n;
    a->loc = loc_of(w->b, c);
    a->conditional = w->conditional || w->skippable;
    a->nested = w->nested;
    a->is_read = use != USE_WRITE;
    a->is_write = use == USE_WRITE || use == USE_READ_WRITE || use == USE_ADDRESS;
    a->escapes = use == USE_ADDRESS || n != buf->rank;
    for (int d = 0; d < n; d++) {
        a->index[d] = affine_of(w->b, indices[d]);
        a->subs[d] = code_text(w, indices[d]);
    }
    vec_push(w->accesses, a);
    w->fx.writes_memory |= a->is_write;

    unsigned begin, end;
    /* Only an access written out in the file is cut out (also in an argument
     * of tile_min/tile_max): one that a macro produces (`BODY(i)`) spans the
     * macro call's text instead. */
    bool spliceable = w->code && code_span(w, c, &begin, &end) && begin >= w->pos && end <= w->end && !a->nested &&
                      written_as_access(a->text, buf->name) && subscripts_written(w, indices, n);
    if (spliceable) {
        flush_text(w, begin);
        ir_code_add_access(w->code, a);
        w->pos = end;
    } else if (buf->space != SPACE_GLOBAL) {
        error_at(a->loc, "%s '%s' is used inside %s here; write the access out in the code",
                 buf->space == SPACE_FRAGMENT ? "fragment" : "shared tile", buf->name,
                 a->nested ? "another subscript" : "a macro");
        w->failed = true;
    } else
        a->escapes = true; /* inside a macro or another access: keep it in memory */

    /* The subscripts are reads, and may hold accesses of their own. */
    IrCode *saved = w->code;
    bool was_nested = w->nested;
    w->code = NULL;
    w->nested = true;
    for (int d = 0; d < n; d++)
        walk(w, indices[d], USE_READ);
    w->code = saved;
    w->nested = was_nested;
}

/* ---- reductions ---- */

int reduce_index(const Builder *b, CXCursor decl)
{
    for (int i = 0; i < b->nreduce; i++)
        if (clang_equalCursors(b->reduce_decls[i], decl))
            return i;
    return -1;
}

/* The reduction variable `ref` names, as an index into b->par->reduces, or -1. */
static int reduce_var(const Walk *w, CXCursor ref)
{
    ref = strip(ref);
    if (w->mode != CODE_PARALLEL || kind_of(ref) != CXCursor_DeclRefExpr)
        return -1;
    return reduce_index(w->b, clang_getCursorReferenced(ref));
}

/* Which reduction `v = a OP b` (one of a, b being v) is, or -1. */
static int binary_form(enum CXBinaryOperatorKind op, bool var_on_left)
{
    switch (op) {
    case CXBinaryOperator_Add:
        return RED_SUM;
    case CXBinaryOperator_Sub:
        return var_on_left ? RED_SUM : -1; /* v = v - e */
    case CXBinaryOperator_Mul:
        return RED_PROD;
    case CXBinaryOperator_And:
        return RED_AND;
    case CXBinaryOperator_Or:
        return RED_OR;
    case CXBinaryOperator_Xor:
        return RED_XOR;
    case CXBinaryOperator_LAnd:
        return RED_LAND;
    case CXBinaryOperator_LOr:
        return RED_LOR;
    default:
        return -1;
    }
}

static int compound_form(enum CXBinaryOperatorKind op)
{
    switch (op) {
    case CXBinaryOperator_AddAssign:
    case CXBinaryOperator_SubAssign:
        return RED_SUM;
    case CXBinaryOperator_MulAssign:
        return RED_PROD;
    case CXBinaryOperator_AndAssign:
        return RED_AND;
    case CXBinaryOperator_OrAssign:
        return RED_OR;
    case CXBinaryOperator_XorAssign:
        return RED_XOR;
    default:
        return -1;
    }
}

static bool same_text(Walk *w, CXCursor a, CXCursor b)
{
    return strcmp(fe_cursor_text(w->b->fe, a), fe_cursor_text(w->b->fe, b)) == 0;
}

/* `v = v > e ? v : e` and the other spellings of max and min (tile_max's
 * expansion among them): the reduction, and e. */
static int ternary_form(Walk *w, CXCursor cond_op, CXCursor var, CXCursor *e)
{
    Children ch = children_of(cond_op);
    if (ch.n != 3)
        return -1;
    CXCursor cmp = strip(ch.items[0]);
    Children cc = children_of(cmp);
    if (kind_of(cmp) != CXCursor_BinaryOperator || cc.n != 2)
        return -1;
    enum CXBinaryOperatorKind k = clang_getCursorBinaryOperatorKind(cmp);
    bool greater = k == CXBinaryOperator_GT || k == CXBinaryOperator_GE;
    if (!greater && k != CXBinaryOperator_LT && k != CXBinaryOperator_LE)
        return -1;
    bool var_first = refers_to(cc.items[0], var);
    CXCursor other = var_first ? cc.items[1] : cc.items[0];
    if (!var_first && !refers_to(cc.items[1], var))
        return -1;
    bool picks_var = refers_to(ch.items[1], var);
    CXCursor picked_other = picks_var ? ch.items[2] : ch.items[1];
    if (!picks_var && !refers_to(ch.items[2], var))
        return -1;
    if (!same_text(w, other, picked_other))
        return -1;
    /* v > e ? v : e is max; every swap of the comparison or the arms flips it */
    bool max = greater == var_first ? picks_var : !picks_var;
    *e = other;
    return max ? RED_MAX : RED_MIN;
}

/* `v = fmaxf(v, e)`, fminf, fmax, fmin (either argument order): the
 * reduction, and e. */
static int call_form(CXCursor call, CXCursor var, CXCursor *e)
{
    const char *name = spelling(call);
    bool max = strcmp(name, "fmaxf") == 0 || strcmp(name, "fmax") == 0;
    bool min = strcmp(name, "fminf") == 0 || strcmp(name, "fmin") == 0;
    if ((!max && !min) || clang_Cursor_getNumArguments(call) != 2)
        return -1;
    CXCursor a0 = clang_Cursor_getArgument(call, 0), a1 = clang_Cursor_getArgument(call, 1);
    if (refers_to(a0, var))
        *e = a1;
    else if (refers_to(a1, var))
        *e = a0;
    else
        return -1;
    return max ? RED_MAX : RED_MIN;
}

/* The right side of `v = v > e ? v : e` (or tile_max(v, e)), where v is read
 * as the update's own operand. */
static void walk_update_whole(Walk *w, CXCursor rhs, CXCursor var)
{
    w->update_var = var;
    w->in_update = true;
    walk(w, rhs, USE_READ);
    w->in_update = false;
}

/* An assignment to reduction variable r: checks it is an update by the
 * clause's operator and walks the operands other than r itself. */
static void walk_reduce_update(Walk *w, CXCursor assign, int r, bool is_stmt)
{
    const IrReduce *red = w->b->par->reduces.items[r];
    Children ch = children_of(assign);
    CXCursor var = clang_getCursorReferenced(strip(ch.items[0])); /* the variable's declaration */
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(assign);
    CXCursor operands[1], whole = clang_getNullCursor();
    int nops = 0, form = -1;
    if (op == CXBinaryOperator_Assign) {
        CXCursor rhs = strip(ch.items[1]);
        Children rc = children_of(rhs);
        if (kind_of(rhs) == CXCursor_BinaryOperator && rc.n == 2) {
            bool left = refers_to(rc.items[0], var), right = refers_to(rc.items[1], var);
            if (left != right) {
                form = binary_form(clang_getCursorBinaryOperatorKind(rhs), left);
                operands[nops++] = left ? rc.items[1] : rc.items[0];
            }
        } else if (kind_of(rhs) == CXCursor_ConditionalOperator) {
            form = ternary_form(w, rhs, var, &operands[0]);
            nops = 1;
            whole = rhs; /* e is in the test and in an arm: both are cut, and an arm may need a cast */
        } else if (kind_of(rhs) == CXCursor_CallExpr) {
            form = call_form(rhs, var, &operands[0]);
            nops = 1;
        }
    } else {
        form = compound_form(op);
        operands[nops++] = ch.items[1];
    }
    for (int i = 0; i < nops && form >= 0; i++)
        if (mentions(operands[i], var))
            form = -1;
    SrcLoc loc = loc_of(w->b, assign);
    if (form < 0)
        error_at(loc, "reduce(%s: %s): '%s' must be updated as '%s = %s %s e' (or '%s %s= e')%s, with e not reading it",
                 red->op_text, red->var, red->var, red->var, red->var, ir_reduce_op_name(red->op), red->var,
                 ir_reduce_op_name(red->op),
                 red->op == RED_MAX || red->op == RED_MIN ? ", as 'v = fmaxf(v, e)' or 'v = v > e ? v : e'" : "");
    else if (form != (int)red->op)
        error_at(loc, "'%s' is updated with '%s' here, but the loop says reduce(%s: %s)", red->var,
                 ir_reduce_op_name((IrReduceOp)form), red->op_text, red->var);
    else if (!is_stmt)
        error_at(loc,
                 "the update of reduction variable '%s' must be a statement of its own: its value inside the "
                 "loop is a thread's partial result",
                 red->var);
    else {
        if (!clang_Cursor_isNull(whole))
            walk_update_whole(w, whole, var);
        for (int i = 0; i < nops && clang_Cursor_isNull(whole); i++)
            walk(w, operands[i], USE_READ);
        return;
    }
    w->failed = true;
}

/* ---- scalars ---- */

static void check_scalar_write(Walk *w, CXCursor ref, Use use)
{
    Builder *b = w->b;
    CXCursor d = clang_getCursorReferenced(ref);
    SrcLoc loc = loc_of(b, ref);
    char *name = spelling(d);
    if (use == USE_READ && w->in_update && clang_equalCursors(d, w->update_var))
        return; /* `v` in `v = v > e ? v : e`: the update's own operand */
    if (w->mode == CODE_PARALLEL && reduce_index(b, d) >= 0) {
        error_at(loc,
                 use == USE_READ ? "reduction variable '%s' is read inside its own loop, where each thread holds "
                                   "only its part: read it after the loop"
                                 : "reduction variable '%s' may only be updated by its operator inside its loop",
                 name);
        w->failed = true;
        return;
    }
    if (use == USE_READ)
        return;
    if (w->mode == CODE_UNIFORM && is_block_local(b, d)) {
        w->fx.writes_locals = true;
        vec_push(&w->fx.assigns, name);
    }
    bool param_scalar = param_of(b, d) && param_of(b, d)->kind == PARAM_SCALAR;
    if (loop_var_index(b, d) >= 0) {
        error_at(loc, "the loop variable '%s' of a parallel loop must not be changed in its body", name);
        w->failed = true;
    } else if (is_block_var(b, d)) {
        error_at(loc, "the grid's loop variable '%s' must not be changed in its block", name);
        w->failed = true;
    } else if (w->mode == CODE_UNIFORM && (is_kernel_local(b, d) || param_scalar)) {
        error_at(loc,
                 "'%s' is %s of the kernel, outside the grid: each block would change its own copy; declare it "
                 "inside the grid block",
                 name, param_scalar ? "a parameter" : "a variable");
        w->failed = true;
    } else if (w->mode == CODE_PARALLEL && (is_kernel_local(b, d) || is_block_local(b, d) || param_scalar)) {
        if (use == USE_ADDRESS)
            error_at(loc, "the address of '%s' is taken inside a parallel loop; iterations run on different threads",
                     name);
        else
            error_at(loc,
                     "'%s' is assigned in every iteration of a parallel loop, but declared outside it: the iterations "
                     "would race: declare it inside the loop, or combine the iterations' values with "
                     "reduce(op: %s)",
                     name, name);
        w->failed = true;
    }
}

static void record_escape(Walk *w, CXCursor ref)
{
    const IrParam *p = param_of(w->b, clang_getCursorReferenced(ref));
    IrBuffer *tile = block_tile(w->b, ref);
    if (tile && tile->space == SPACE_GLOBAL) { /* a tile refused at its declaration: said there */
        w->failed = true;
        return;
    }
    if (tile) {
        error_at(loc_of(w->b, ref), "tile '%s' is used whole here; in code, use it element by element", tile->name);
        w->failed = true;
        return;
    }
    if (!p || p->kind != PARAM_BUFFER)
        return;
    IrAccess *a = anew(sizeof *a);
    a->buf = p->buf;
    a->text = fe_cursor_text(w->b->fe, ref);
    a->loc = loc_of(w->b, ref);
    a->is_read = a->is_write = a->escapes = true;
    vec_push(w->accesses, a);
    w->fx.writes_memory = true;
}

/* Is child i of a cursor of kind k a statement of its own (rather than a
 * condition or the parts of a for header)? */
static bool statement_child(enum CXCursorKind k, int i, int n)
{
    switch (k) {
    case CXCursor_CompoundStmt:
        return true;
    case CXCursor_IfStmt:
        return i >= 1;
    case CXCursor_ForStmt:
    case CXCursor_WhileStmt:
        return i == n - 1;
    case CXCursor_DoStmt:
        return i == 0;
    default:
        return false;
    }
}

static void walk_children(Walk *w, CXCursor c, int first_conditional, Use use_for_all)
{
    Children ch = children_of(c);
    bool saved = w->conditional;
    enum CXCursorKind k = kind_of(c);
    for (int i = 0; i < ch.n; i++) {
        if (i >= first_conditional)
            w->conditional = true;
        w->stmt_child = statement_child(k, i, ch.n);
        walk(w, ch.items[i], use_for_all);
    }
    w->conditional = saved;
}

static void walk_binary(Walk *w, CXCursor c, bool is_stmt)
{
    Children ch = children_of(c);
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    if (ch.n != 2) {
        walk_children(w, c, 99, USE_READ);
        return;
    }
    bool saved = w->conditional;
    bool assigns =
        op == CXBinaryOperator_Assign || (op >= CXBinaryOperator_MulAssign && op <= CXBinaryOperator_OrAssign);
    int r = assigns ? reduce_var(w, ch.items[0]) : -1;
    if (r >= 0)
        walk_reduce_update(w, c, r, is_stmt);
    else if (op == CXBinaryOperator_Assign) {
        walk(w, ch.items[0], USE_WRITE);
        walk(w, ch.items[1], USE_READ);
    } else if (assigns) {
        walk(w, ch.items[0], USE_READ_WRITE);
        walk(w, ch.items[1], USE_READ);
    } else if (op == CXBinaryOperator_LAnd || op == CXBinaryOperator_LOr) {
        walk(w, ch.items[0], USE_READ);
        w->conditional = true;
        walk(w, ch.items[1], USE_READ);
    } else {
        walk(w, ch.items[0], USE_READ);
        walk(w, ch.items[1], USE_READ);
    }
    w->conditional = saved;
}

static void walk_unary(Walk *w, CXCursor c, bool is_stmt)
{
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
    Use use = USE_READ;
    bool step = op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec || op == CXUnaryOperator_PreInc ||
                op == CXUnaryOperator_PreDec;
    if (step)
        use = USE_READ_WRITE;
    else if (op == CXUnaryOperator_AddrOf)
        use = USE_ADDRESS;
    Children ch = children_of(c);
    int r = step && ch.n == 1 ? reduce_var(w, ch.items[0]) : -1;
    if (r >= 0) { /* s++ and s-- are sums */
        const IrReduce *red = w->b->par->reduces.items[r];
        if (red->op == RED_SUM && is_stmt)
            return;
        error_at(loc_of(w->b, c), "'%s' is %s here, but the loop says reduce(%s: %s)%s", red->var,
                 op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PreInc ? "incremented" : "decremented",
                 red->op_text, red->var, red->op == RED_SUM ? " (and the update must be a statement of its own)" : "");
        w->failed = true;
        return;
    }
    walk_children(w, c, 99, use);
}

/* ---- conditionals ---- */

static CXType plain_type(CXType t) { return clang_getUnqualifiedType(clang_getCanonicalType(t)); }

/* The type an operand of conditional `cond` converts to, when it must be
 * written out for CUDA, or NULL. C converts both operands to one type by the
 * usual arithmetic conversions (`c ? h : 0.0f` is a float); in CUDA half and
 * bfloat16 are classes that convert from and to float, and nvcc finds
 * `c ? h : 0.0f` ambiguous: such an operand gets a cast to the C type. */
static const char *operand_cast(CXCursor cond, CXCursor operand, CXType *from)
{
    CXType to = plain_type(clang_getCursorType(cond));
    *from = plain_type(clang_getCursorType(strip(operand)));
    if (clang_equalTypes(to, *from) || !(is_16bit_float(to) || is_16bit_float(*from)))
        return NULL;
    return ir_type(to).spelling; /* as the generated code spells it: half, bfloat16 */
}

/* The text of a conditional's operand that a cast can go around: written in
 * the file, or a tile_min/tile_max call written there. */
static bool operand_span(const Walk *w, CXCursor operand, unsigned *begin, unsigned *end)
{
    CXCursor cond;
    MacroCall call;
    if (code_span(w, operand, begin, end))
        return true;
    if (!tile_minmax_expansion(w->b->fe, operand, &cond) || !tile_minmax_call(w, cond, &call))
        return false;
    *begin = call.begin;
    *end = call.end;
    return true;
}

/* An operand of a conditional, with the cast operand_cast asks for spliced
 * around its text. Where its text cannot be cut (inside a macro other than
 * tile_min/tile_max, or a subscript), the conversion is refused. */
static void walk_operand(Walk *w, CXCursor cond, CXCursor operand)
{
    CXType from;
    const char *to = operand_cast(cond, operand, &from);
    unsigned begin, end;
    if (!to) {
        walk(w, operand, USE_READ);
        return;
    }
    if (!w->code || !operand_span(w, operand, &begin, &end) || begin < w->pos || end > w->end) {
        error_at(loc_of(w->b, operand),
                 "this operand of '?:' converts from '%s' to '%s' inside %s, where tilepp cannot write the "
                 "conversion out for CUDA (it finds the mix ambiguous); cast it in the code: '(%s)(...)'",
                 ir_type(from).spelling, to, w->code ? "a macro" : "a subscript", to);
        w->failed = true;
        return;
    }
    flush_text(w, begin);
    char *cast = aprintf("(%s)(", to);
    ir_code_add_text(w->code, cast, strlen(cast));
    walk(w, operand, USE_READ);
    flush_text(w, end);
    ir_code_add_text(w->code, ")", 1);
}

/* `c ? a : b`: a and b are evaluated only under the condition. A call of
 * tile_min/tile_max (a conditional in its expansion) is walked as its text in
 * the file: each argument once, where it is written; the CUDA side of tile.h
 * gives the call C's type. */
static void walk_conditional(Walk *w, CXCursor c)
{
    Children ch = children_of(c);
    if (ch.n == 3 && tile_minmax_body(w->b->fe, c, ch)) { /* no casts: the CUDA side types the call */
        MacroCall call, *outer = w->call;
        ArgState outer_arg = w->arg;
        if (tile_minmax_call(w, c, &call)) {
            w->call = &call;
            w->arg = ARG_NONE;
        }
        walk_children(w, c, 1, USE_READ);
        w->call = outer;
        w->arg = outer_arg;
        return;
    }
    if (ch.n != 3) {
        walk_children(w, c, 1, USE_READ);
        return;
    }
    bool saved = w->conditional;
    walk(w, ch.items[0], USE_READ);
    w->conditional = true;
    walk_operand(w, c, ch.items[1]);
    walk_operand(w, c, ch.items[2]);
    w->conditional = saved;
}

static void refuse_in_body(Walk *w, CXCursor c, const char *what)
{
    if (w->mode == CODE_PARALLEL)
        error_at(loc_of(w->b, c), "%s inside a parallel loop: its iterations run independently on different threads",
                 what);
    else
        error_at(loc_of(w->b, c), "%s in a grid block is not supported: every thread of the block runs its statements",
                 what);
    w->failed = true;
}

/* In a parallel loop each iteration runs on its own thread, so an array
 * declared in the body already lives in that thread's registers (or local
 * memory): `#pragma tile local` there is honoured as it stands. Shared and
 * fragment tiles belong to blocks, which only grids have. */
static void take_local_pragma(Walk *w, CXCursor decl)
{
    const Attached *a = fe_attached_on(w->b->fe, decl);
    if (!a)
        return;
    use_pragma(w->b, a->pragma);
    if (a->pragma->kind == PRAGMA_LOCAL && w->mode == CODE_PARALLEL)
        vec_push(&w->b->par->inner_pragmas, (void *)a->pragma);
    else {
        error_at(a->pragma->loc,
                 "'#pragma tile %s' inside a parallel loop: %s tiles belong to the thread blocks of a "
                 "'#pragma tile grid'",
                 pragma_kind_name(a->pragma->kind), pragma_kind_name(a->pragma->kind));
        w->failed = true;
    }
}

/* ---- sizeof, where C and C++ differ ---- */

/* Whether UnaryExpr c is a `sizeof` (not `_Alignof`): its first token. */
static bool is_sizeof(const Walk *w, CXCursor c)
{
    CXToken *toks;
    unsigned n;
    CXTranslationUnit tu = w->b->fe->tu;
    clang_tokenize(tu, clang_getCursorExtent(c), &toks, &n);
    bool yes = n > 0 && strcmp(cx_take(clang_getTokenSpelling(tu, toks[0])), "sizeof") == 0;
    clang_disposeTokens(tu, toks, n);
    return yes;
}

/* Whether expression e (parentheses and conversions stripped) has another
 * type in C++ than C's int: a character constant (C++: char), a comparison
 * or a logical operator (C++: bool). */
static bool cxx_type_differs(CXCursor e)
{
    e = strip(e);
    switch (kind_of(e)) {
    case CXCursor_CharacterLiteral:
        return true;
    case CXCursor_UnaryOperator:
        return clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_LNot;
    case CXCursor_BinaryOperator: {
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
        return (op >= CXBinaryOperator_LT && op <= CXBinaryOperator_NE) || op == CXBinaryOperator_LAnd ||
               op == CXBinaryOperator_LOr;
    }
    case CXCursor_ConditionalOperator: {
        Children ch = children_of(e);
        return ch.n == 3 && cxx_type_differs(ch.items[1]) && cxx_type_differs(ch.items[2]);
    }
    default:
        return false;
    }
}

/* `sizeof e` where e is an int in C: written `((void)sizeof e, sizeof(int))`,
 * the value C gives it. The generated code is C++, where `sizeof('a')` is 1
 * and `sizeof(a < b)` is sizeof(bool). Returns false where c is no such
 * sizeof (walked as usual). */
static bool walk_sizeof(Walk *w, CXCursor c)
{
    Children ch = children_of(c);
    if (ch.n != 1 || !clang_isExpression(kind_of(ch.items[0])) || !is_sizeof(w, c))
        return false;
    CXType t = clang_getCanonicalType(clang_getCursorType(ch.items[0]));
    if (t.kind != CXType_Int)
        return false;
    unsigned begin, end;
    if (!w->code || !code_span(w, c, &begin, &end) || begin < w->pos || end > w->end) {
        if (!cxx_type_differs(ch.items[0]))
            return false;
        error_at(loc_of(w->b, c),
                 "'sizeof' of a character constant or a comparison inside %s: C gives it sizeof(int), the "
                 "C++ of the generated CUDA sizeof(char) or sizeof(bool), and tilepp cannot rewrite the text "
                 "there; write 'sizeof(int)'",
                 w->code ? "a macro" : "a subscript");
        w->failed = true;
        return true;
    }
    flush_text(w, begin); /* the sizeof as written stays, discarded, so that its operand's names are still used */
    ir_code_add_text(w->code, "((void)", strlen("((void)"));
    walk_children(w, c, 99, USE_READ);
    flush_text(w, end);
    ir_code_add_text(w->code, ", sizeof(int))", strlen(", sizeof(int))"));
    return true;
}

/* Walks c; inside a tile_min/tile_max call, where in the call it is, and
 * each argument once. */
static void walk(Walk *w, CXCursor c, Use use)
{
    ArgState saved = w->arg;
    if (w->call && !enter_call_text(w, c))
        return;
    walk_node(w, c, use);
    w->arg = saved;
}

static void walk_node(Walk *w, CXCursor c, Use use)
{
    enum CXCursorKind k = kind_of(c);
    Builder *b = w->b;
    bool is_stmt = w->stmt_child;
    w->stmt_child = false;
    if (k == CXCursor_UnaryExpr && walk_sizeof(w, c))
        return;
    if (w->casts_only && k != CXCursor_ConditionalOperator) {
        walk_children(w, c, 99, USE_READ);
        return;
    }
    switch (k) {
    case CXCursor_ArraySubscriptExpr: {
        CXCursor idx[IR_MAX_RANK];
        int n = 0;
        IrBuffer *buf = subscript_root(w, c, idx, &n);
        if (buf && !tile_access_ok(w, buf, n, loc_of(b, c))) {
            w->failed = true;
            return;
        }
        if (buf) {
            record_access(w, c, buf, idx, n, use);
            return;
        }
        note_pointer_access(w, c, use);
        walk_children(w, c, 99, USE_READ);
        return;
    }
    case CXCursor_DeclRefExpr:
        check_scalar_write(w, c, use);
        record_escape(w, c);
        return;
    case CXCursor_ParenExpr:
        w->stmt_child = is_stmt;
        walk_children(w, c, 99, use);
        return;
    case CXCursor_UnexposedExpr:
        /* Implicit casts: an lvalue-to-rvalue cast makes what is below a read,
         * an array decay keeps the use (a decayed buffer escapes anyway). */
        walk_children(w, c, 99, use == USE_WRITE ? USE_READ_WRITE : use);
        return;
    case CXCursor_BinaryOperator:
    case CXCursor_CompoundAssignOperator:
        walk_binary(w, c, is_stmt);
        return;
    case CXCursor_UnaryOperator:
        walk_unary(w, c, is_stmt);
        return;
    case CXCursor_ConditionalOperator:
        walk_conditional(w, c);
        return;
    case CXCursor_IfStmt:
        walk_children(w, c, 1, USE_READ);
        return;
    case CXCursor_ForStmt:
    case CXCursor_WhileStmt:
    case CXCursor_DoStmt:
    case CXCursor_SwitchStmt:
        if (k == CXCursor_ForStmt && fe_attached_on(b->fe, c)) {
            const Attached *a = fe_attached_on(b->fe, c);
            error_at(a->pragma->loc, "'#pragma tile %s' inside %s is not supported", pragma_kind_name(a->pragma->kind),
                     w->mode == CODE_PARALLEL ? "a parallel loop" : "this statement");
            use_pragma(b, a->pragma);
            w->failed = true;
        }
        w->loop_depth++;
        walk_children(w, c, 0, USE_READ);
        w->loop_depth--;
        return;
    case CXCursor_ReturnStmt:
        refuse_in_body(w, c, "'return'");
        return;
    case CXCursor_GotoStmt:
    case CXCursor_IndirectGotoStmt:
        refuse_in_body(w, c, "'goto'");
        return;
    case CXCursor_BreakStmt:
        if (w->loop_depth == 0)
            refuse_in_body(w, c, "'break' out of the loop");
        return;
    case CXCursor_ContinueStmt:
        if (w->loop_depth == 0 && w->mode == CODE_UNIFORM)
            refuse_in_body(w, c, "'continue'");
        else if (w->loop_depth == 0)
            w->skippable = true; /* the accesses after it run in some iterations only */
        return;
    case CXCursor_VarDecl:
        if (clang_Cursor_getStorageClass(c) == CX_SC_Static) {
            refuse_in_body(w, c, "a static variable");
            return;
        }
        if (device_array_refusal(c)) { /* each iteration's own array, on its thread */
            error_at(loc_of(b, c), "%s", device_array_refusal(c));
            w->failed = true;
            return;
        }
        walk_children(w, c, 99, USE_READ);
        return;
    case CXCursor_DeclStmt:
        take_local_pragma(w, c);
        walk_children(w, c, 99, USE_READ);
        return;
    case CXCursor_CallExpr:
        if (strcmp(spelling(c), "tile_print") == 0) {
            if (w->mode == CODE_PARALLEL)
                error_at(loc_of(b, c),
                         "tile_print inside a parallel loop would print once per iteration, each on its own "
                         "thread: print the tile or value in the grid block, between its statements, where one "
                         "thread prints it for the block");
            else
                error_at(loc_of(b, c), "tile_print in a grid block must be a statement of its own, between the "
                                       "block's statements (not under if, in a loop or in an expression)");
            w->failed = true;
            return;
        }
        /* printing is an effect the C has once: a statement of a block that
         * prints runs on one thread of the team, as one that writes memory */
        if (w->mode == CODE_UNIFORM && strcmp(spelling(c), "printf") == 0)
            w->fx.writes_memory = true;
        walk_children(w, c, 99, USE_READ);
        return;
    default:
        if (k == CXCursor_NullStmt || clang_isStatement(k) || clang_isExpression(k) || k == CXCursor_InitListExpr)
            walk_children(w, c, 99, USE_READ);
        return;
    }
}

/* The code of cursor c over the text [begin, end). */
static IrCode *walk_code(Builder *b, CXCursor c, CodeMode mode, unsigned begin, unsigned end, bool stmt_child,
                         Vec *accesses, CodeEffects *fx, bool *failed)
{
    IrCode *code = ir_code_new(loc_of(b, c));
    Walk w = {
        .b = b, .mode = mode, .accesses = accesses, .code = code, .pos = begin, .end = end, .stmt_child = stmt_child};
    walk(&w, c, USE_READ);
    flush_text(&w, end);
    warn_pointer_accesses(&w);
    *failed = w.failed;
    if (fx)
        *fx = w.fx;
    return code;
}

IrCode *build_code(Builder *b, CXCursor c, CodeMode mode, Vec *accesses, CodeEffects *fx, bool *failed)
{
    unsigned begin, end;
    if (!fe_cursor_range(b->fe, c, &begin, &end)) {
        error_at(loc_of(b, c), "%s must be written in the file itself, not in a macro",
                 mode == CODE_PARALLEL ? "the body of a parallel loop" : "a statement of a grid block");
        *failed = true;
        return NULL;
    }
    if (mode == CODE_UNIFORM)
        end = statement_end(b->fe, end);
    return walk_code(b, c, mode, begin, end, true, accesses, fx, failed);
}

IrCode *build_condition_code(Builder *b, CXCursor c, Vec *accesses, CodeEffects *fx, bool *failed)
{
    unsigned begin, end;
    if (!fe_cursor_range(b->fe, c, &begin, &end)) {
        error_at(loc_of(b, c), "the condition of an 'if' in a grid block must be written in the file itself, not "
                               "in a macro");
        *failed = true;
        return NULL;
    }
    return walk_code(b, c, CODE_UNIFORM, begin, end, false, accesses, fx, failed);
}

IrCode *build_plain_code(Builder *b, CXCursor c, unsigned begin, unsigned end)
{
    IrCode *code = ir_code_new(loc_of(b, c));
    Walk w = {.b = b, .code = code, .pos = begin, .end = end, .casts_only = true};
    walk(&w, c, USE_READ);
    flush_text(&w, end);
    return w.failed ? NULL : code;
}

char *build_plain_text(Builder *b, CXCursor c)
{
    unsigned begin, end;
    IrCode *code = fe_cursor_range(b->fe, c, &begin, &end) ? build_plain_code(b, c, begin, end) : NULL;
    if (!code) /* not in the file (or refused, and said) */
        return fe_cursor_text(b->fe, c);
    Str text = {0};
    for (int i = 0; i < code->nsegs; i++)
        str_add(&text, code->segs[i].text);
    return atake(&text);
}

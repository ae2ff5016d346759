/* complete.c — the translation is complete: nothing of a kernel is dropped.
 *
 * The builder turns each statement and pragma of a kernel into IR or reports
 * why it cannot. This file checks that promise independently of how the
 * builder keeps it, from the two ends: it walks the source statements of
 * every kernel body (and of every grid block and pipelined loop inside it)
 * and finds the IR statement made from each, and it finds every `#pragma
 * tile` of the file in exactly one IR node. A kernel must also launch
 * something. A failure here is a bug in tilepp, reported as an internal
 * error, so that a translation never exits 0 without all of its input. */
#include "build_ir.h"

#include <limits.h>
#include <string.h>

#include "build_internal.h"

typedef struct Completeness {
    FrontEnd *fe;
    Vec claims; /* Claim*: which IR statement honours which pragma */
    bool ok;
} Completeness;

typedef struct Claim {
    const Pragma *pragma;
    unsigned src_begin; /* of the statement that honours it */
} Claim;

static void internal_error(Completeness *c, SrcLoc loc, const char *what)
{
    error_at(loc, "internal error: %s; tilepp would have dropped it silently (please report this bug)", what);
    c->ok = false;
}

static void claim(Completeness *c, const Pragma *p, unsigned src_begin)
{
    if (!p)
        return;
    for (int i = 0; i < c->claims.len; i++) {
        const Claim *old = c->claims.items[i];
        if (old->pragma == p && old->src_begin == src_begin)
            return; /* one declaration, several tiles: one statement */
    }
    Claim *cl = anew(sizeof *cl);
    *cl = (Claim){p, src_begin};
    vec_push(&c->claims, cl);
}

static unsigned begin_of(const Completeness *c, CXCursor cur)
{
    unsigned begin, end;
    return fe_cursor_range(c->fe, cur, &begin, &end) ? begin : UINT_MAX;
}

/* The statements a body consists of: a compound statement's children, or
 * the one statement. */
static Children statements_of(CXCursor body)
{
    if (kind_of(body) == CXCursor_CompoundStmt)
        return children_of(body);
    Children one = {anew(sizeof(CXCursor)), 1, 1};
    one.items[0] = body;
    return one;
}

/* The body of a for statement (its last child), or a null cursor. */
static CXCursor loop_body(CXCursor loop)
{
    Children ch = children_of(loop);
    return kind_of(loop) == CXCursor_ForStmt && ch.n >= 1 ? ch.items[ch.n - 1] : clang_getNullCursor();
}

static void check_list(Completeness *c, Children src, const Vec *ir);

/* The block of a grid nest: the body under its `depth` loops. */
static void check_grid(Completeness *c, CXCursor loop, const IrGrid *g)
{
    CXCursor body = loop_body(loop);
    for (int d = 1; d < g->depth && !clang_Cursor_isNull(body); d++) {
        Children inner = statements_of(body);
        body = inner.n == 1 ? loop_body(inner.items[0]) : clang_getNullCursor();
    }
    if (clang_Cursor_isNull(body)) {
        internal_error(c, g->loc, "the block of this grid was not found under its loops");
        return;
    }
    check_list(c, statements_of(body), &g->body);
}

static void check_stmt(Completeness *c, CXCursor cur, const IrStmt *s)
{
    claim(c, s->pragma, s->src_begin);
    switch (s->kind) {
    case STMT_GRID:
        check_grid(c, cur, s->grid);
        break;
    case STMT_PIPELINED:
        check_list(c, statements_of(loop_body(cur)), &s->pipe->body);
        break;
    case STMT_PARALLEL:
        /* the body is the loop's text, whole; the pragmas it honours as they stand */
        for (int i = 0; i < s->par->inner_pragmas.len; i++)
            claim(c, s->par->inner_pragmas.items[i], s->src_begin);
        break;
    case STMT_SEQ:
        check_list(c, statements_of(loop_body(cur)), &s->seq->body);
        break;
    case STMT_DECL:
    case STMT_SCALAR:
    case STMT_TILE_DECL:
    case STMT_TILE_OP:
        break;
    }
}

/* Every source statement in `src` is the origin of an IR statement of `ir`. */
static void check_list(Completeness *c, Children src, const Vec *ir)
{
    for (int i = 0; i < src.n; i++) {
        CXCursor cur = src.items[i];
        if (kind_of(cur) == CXCursor_NullStmt)
            continue;
        unsigned begin = begin_of(c, cur);
        bool found = false;
        for (int j = 0; j < ir->len; j++) {
            const IrStmt *s = ir->items[j];
            if (s->src_begin != begin || begin == UINT_MAX)
                continue;
            if (!found)
                check_stmt(c, cur, s);
            else
                claim(c, s->pragma, s->src_begin);
            found = true;
        }
        /* an `if` around parallel loops of a block: its branches' loops stand in the list, guarded */
        if (!found && kind_of(cur) == CXCursor_IfStmt) {
            Children branches = children_of(cur);
            for (int b = 1; b < branches.n; b++)
                check_list(c, statements_of(branches.items[b]), ir);
            continue;
        }
        if (!found)
            internal_error(c, fe_cursor_loc(c->fe, cur), "this statement reached no part of the translation");
    }
}

static bool launches_something(const IrKernel *k)
{
    for (int i = 0; i < k->stmts.len; i++) {
        IrStmtKind kind = ((const IrStmt *)k->stmts.items[i])->kind;
        if (kind == STMT_PARALLEL || kind == STMT_GRID)
            return true;
    }
    return false;
}

/* The definition of kernel k in the main file. */
static CXCursor kernel_body(Completeness *c, const IrKernel *k)
{
    Children top = children_of(clang_getTranslationUnitCursor(c->fe->tu));
    for (int i = 0; i < top.n; i++) {
        CXCursor fn = top.items[i];
        if (kind_of(fn) != CXCursor_FunctionDecl || !clang_isCursorDefinition(fn) || !fe_in_main_file(c->fe, fn) ||
            strcmp(spelling(fn), k->name) != 0)
            continue;
        Children ch = children_of(fn);
        for (int j = 0; j < ch.n; j++)
            if (kind_of(ch.items[j]) == CXCursor_CompoundStmt)
                return ch.items[j];
    }
    return clang_getNullCursor();
}

static bool claimed_once(const Completeness *c, const Pragma *p, int *times)
{
    *times = 0;
    for (int i = 0; i < c->claims.len; i++)
        *times += ((const Claim *)c->claims.items[i])->pragma == p;
    return *times == 1;
}

bool check_complete(FrontEnd *fe, const IrModule *m)
{
    Completeness c = {fe, {0}, true};
    for (int i = 0; i < m->kernels.len; i++) {
        const IrKernel *k = m->kernels.items[i];
        claim(&c, k->pragma, UINT_MAX - 1);
        if (k->tune) /* the kernel's space: each point is a translation of its own (tune.c) */
            claim(&c, k->tune->pragma, UINT_MAX - 1);
        CXCursor body = kernel_body(&c, k);
        if (clang_Cursor_isNull(body))
            internal_error(&c, k->loc, "the body of this kernel was not found");
        else
            check_list(&c, statements_of(body), &k->stmts);
        if (!launches_something(k))
            internal_error(&c, k->loc, "this kernel launches nothing");
    }
    for (int i = 0; i < fe->attached.len; i++) {
        const Pragma *p = ((const Attached *)fe->attached.items[i])->pragma;
        int times;
        if (!claimed_once(&c, p, &times))
            internal_error(&c, p->loc,
                           times ? "this pragma was honoured twice" : "this pragma reached no part of the translation");
    }
    return c.ok;
}

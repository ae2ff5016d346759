/* build_body.c — loop bodies: their text, cut at each buffer access, and what
 * each access reads and writes; refuses what cannot run as independent iterations. */
#include "build_internal.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Loop bodies: code text with buffer accesses cut out                       */
/* ------------------------------------------------------------------------ */

typedef enum { USE_READ, USE_WRITE, USE_READ_WRITE, USE_ADDRESS } Use;

typedef struct Walk {
    Builder *b;
    IrCode *code; /* NULL while walking text that cannot be spliced */
    unsigned pos; /* next byte of the main file to copy into code */
    unsigned end;
    bool conditional;
    bool nested;    /* inside a subscript of an access */
    int loop_depth; /* loops and switches inside the body, for break */
    bool failed;
} Walk;

static void walk(Walk *w, CXCursor c, Use use);

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

/* The buffer parameter at the root of a subscript chain, and its indices in
 * source order. */
static const IrParam *subscript_root(Walk *w, CXCursor c, CXCursor *indices, int *n)
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
    if (!p || p->kind != PARAM_BUFFER)
        return NULL;
    for (int i = 0; i < depth; i++)
        indices[i] = chain[depth - 1 - i];
    *n = depth;
    return p;
}

static void record_access(Walk *w, CXCursor c, const IrParam *p, CXCursor *indices, int n, Use use)
{
    IrAccess *a = anew(sizeof *a);
    a->buf = p->buf;
    a->text = fe_cursor_text(w->b->fe, c);
    a->ndims = n;
    a->loc = loc_of(w->b, c);
    a->conditional = w->conditional;
    a->nested = w->nested;
    a->is_read = use != USE_WRITE;
    a->is_write = use == USE_WRITE || use == USE_READ_WRITE || use == USE_ADDRESS;
    a->escapes = use == USE_ADDRESS || n != p->buf->rank;
    for (int d = 0; d < n; d++)
        a->index[d] = affine_of(w->b, indices[d]);
    vec_push(&w->b->par->accesses, a);

    unsigned begin, end;
    /* Only an access written out in the file is cut out: one that a macro
     * produces (`BODY(i)`) spans the macro call's text instead. */
    size_t tlen = strlen(a->text);
    bool as_written = str_starts_with(a->text, p->name) && tlen && a->text[tlen - 1] == ']';
    bool spliceable = w->code && fe_cursor_range(w->b->fe, c, &begin, &end) && begin >= w->pos && end <= w->end &&
                      begin < end && !a->nested && as_written;
    if (spliceable) {
        flush_text(w, begin);
        ir_code_add_access(w->code, a);
        w->pos = end;
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

static void check_scalar_write(Walk *w, CXCursor ref, Use use)
{
    if (use == USE_READ)
        return;
    CXCursor d = clang_getCursorReferenced(ref);
    Builder *b = w->b;
    SrcLoc loc = loc_of(b, ref);
    char *name = spelling(d);
    if (loop_var_index(b, d) >= 0) {
        error_at(loc, "the loop variable '%s' of a parallel loop must not be changed in its body", name);
        w->failed = true;
    } else if (is_kernel_local(b, d) || (param_of(b, d) && param_of(b, d)->kind == PARAM_SCALAR)) {
        if (use == USE_ADDRESS)
            error_at(loc, "the address of '%s' is taken inside a parallel loop; iterations run on different threads",
                     name);
        else
            error_at(loc,
                     "'%s' is assigned in every iteration of a parallel loop, but declared outside it: the iterations "
                     "would race: declare it inside the loop (reductions, reduce(...), are not implemented yet)",
                     name);
        w->failed = true;
    }
}

static void record_escape(Walk *w, CXCursor ref)
{
    const IrParam *p = param_of(w->b, clang_getCursorReferenced(ref));
    if (!p || p->kind != PARAM_BUFFER)
        return;
    IrAccess *a = anew(sizeof *a);
    a->buf = p->buf;
    a->text = fe_cursor_text(w->b->fe, ref);
    a->loc = loc_of(w->b, ref);
    a->is_read = a->is_write = a->escapes = true;
    vec_push(&w->b->par->accesses, a);
}

static void walk_children(Walk *w, CXCursor c, int first_conditional, Use use_for_all)
{
    Children ch = children_of(c);
    bool saved = w->conditional;
    for (int i = 0; i < ch.n; i++) {
        if (i >= first_conditional)
            w->conditional = true;
        walk(w, ch.items[i], use_for_all);
    }
    w->conditional = saved;
}

static void walk_binary(Walk *w, CXCursor c)
{
    Children ch = children_of(c);
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    if (ch.n != 2) {
        walk_children(w, c, 99, USE_READ);
        return;
    }
    bool saved = w->conditional;
    if (op == CXBinaryOperator_Assign) {
        walk(w, ch.items[0], USE_WRITE);
        walk(w, ch.items[1], USE_READ);
    } else if (op >= CXBinaryOperator_MulAssign && op <= CXBinaryOperator_OrAssign) {
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

static void walk_unary(Walk *w, CXCursor c)
{
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
    Use use = USE_READ;
    if (op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec || op == CXUnaryOperator_PreInc ||
        op == CXUnaryOperator_PreDec)
        use = USE_READ_WRITE;
    else if (op == CXUnaryOperator_AddrOf)
        use = USE_ADDRESS;
    walk_children(w, c, 99, use);
}

static void refuse_in_body(Walk *w, CXCursor c, const char *what)
{
    error_at(loc_of(w->b, c), "%s inside a parallel loop: its iterations run independently on different threads", what);
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
    if (a->pragma->kind == PRAGMA_LOCAL)
        vec_push(&w->b->par->inner_pragmas, (void *)a->pragma);
    else {
        error_at(a->pragma->loc,
                 "'#pragma tile %s' inside a parallel loop: %s tiles belong to the thread blocks of a "
                 "'#pragma tile grid'",
                 pragma_kind_name(a->pragma->kind), pragma_kind_name(a->pragma->kind));
        w->failed = true;
    }
}

static void walk(Walk *w, CXCursor c, Use use)
{
    enum CXCursorKind k = kind_of(c);
    Builder *b = w->b;
    switch (k) {
    case CXCursor_ArraySubscriptExpr: {
        CXCursor idx[IR_MAX_RANK];
        int n = 0;
        const IrParam *p = subscript_root(w, c, idx, &n);
        if (p) {
            record_access(w, c, p, idx, n, use);
            return;
        }
        walk_children(w, c, 99, USE_READ);
        return;
    }
    case CXCursor_DeclRefExpr:
        check_scalar_write(w, c, use);
        record_escape(w, c);
        return;
    case CXCursor_ParenExpr:
        walk_children(w, c, 99, use);
        return;
    case CXCursor_UnexposedExpr:
        /* Implicit casts: an lvalue-to-rvalue cast makes what is below a read,
         * an array decay keeps the use (a decayed buffer escapes anyway). */
        walk_children(w, c, 99, use == USE_WRITE ? USE_READ_WRITE : use);
        return;
    case CXCursor_BinaryOperator:
    case CXCursor_CompoundAssignOperator:
        walk_binary(w, c);
        return;
    case CXCursor_UnaryOperator:
        walk_unary(w, c);
        return;
    case CXCursor_ConditionalOperator:
        walk_children(w, c, 1, USE_READ);
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
            error_at(a->pragma->loc, "'#pragma tile %s' inside a parallel loop is not supported",
                     pragma_kind_name(a->pragma->kind));
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
    case CXCursor_VarDecl:
        if (clang_Cursor_getStorageClass(c) == CX_SC_Static) {
            refuse_in_body(w, c, "a static variable");
            return;
        }
        walk_children(w, c, 99, USE_READ);
        return;
    case CXCursor_DeclStmt:
        take_local_pragma(w, c);
        walk_children(w, c, 99, USE_READ);
        return;
    default:
        if (k == CXCursor_NullStmt || clang_isStatement(k) || clang_isExpression(k) || k == CXCursor_InitListExpr)
            walk_children(w, c, 99, USE_READ);
        return;
    }
}

IrCode *build_body(Builder *b, CXCursor body, bool *failed)
{
    unsigned begin, end;
    if (!fe_cursor_range(b->fe, body, &begin, &end)) {
        error_at(loc_of(b, body), "the body of a parallel loop must be written in the file itself, not in a macro");
        *failed = true;
        return NULL;
    }
    IrCode *code = ir_code_new(loc_of(b, body));
    Walk w = {b, code, begin, end, false, false, 0, false};
    walk(&w, body, USE_READ);
    flush_text(&w, end);
    *failed = w.failed;
    return code;
}

/* build_body.c — code inside kernels: the text of a parallel loop's body or
 * of a statement of a grid block, cut at each buffer access, and what each
 * access reads and writes; refuses what cannot run as independent
 * iterations (parallel bodies) or alike on every thread of a block (block
 * statements), and checks the updates of reduction variables. */
#include "build_internal.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Code text with buffer accesses cut out                                    */
/* ------------------------------------------------------------------------ */

typedef enum { USE_READ, USE_WRITE, USE_READ_WRITE, USE_ADDRESS } Use;

typedef struct Walk {
    Builder *b;
    CodeMode mode;
    Vec *accesses; /* IrAccess*: where the accesses go */
    IrCode *code;  /* NULL while walking text that cannot be spliced */
    unsigned pos;  /* next byte of the main file to copy into code */
    unsigned end;
    bool conditional;
    bool nested;     /* inside a subscript of an access */
    int loop_depth;  /* loops and switches inside the body, for break */
    bool stmt_child; /* the cursor walked next is a statement of its own */
    CodeEffects fx;
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

static void record_access(Walk *w, CXCursor c, IrBuffer *buf, CXCursor *indices, int n, Use use)
{
    IrAccess *a = anew(sizeof *a);
    a->buf = buf;
    a->text = fe_cursor_text(w->b->fe, c);
    a->ndims = n;
    a->loc = loc_of(w->b, c);
    a->conditional = w->conditional;
    a->nested = w->nested;
    a->is_read = use != USE_WRITE;
    a->is_write = use == USE_WRITE || use == USE_READ_WRITE || use == USE_ADDRESS;
    a->escapes = use == USE_ADDRESS || n != buf->rank;
    for (int d = 0; d < n; d++) {
        a->index[d] = affine_of(w->b, indices[d]);
        a->subs[d] = fe_cursor_text(w->b->fe, indices[d]);
    }
    vec_push(w->accesses, a);
    w->fx.writes_memory |= a->is_write;

    unsigned begin, end;
    /* Only an access written out in the file is cut out: one that a macro
     * produces (`BODY(i)`) spans the macro call's text instead. */
    size_t tlen = strlen(a->text);
    bool as_written = str_starts_with(a->text, buf->name) && tlen && a->text[tlen - 1] == ']';
    bool spliceable = w->code && fe_cursor_range(w->b->fe, c, &begin, &end) && begin >= w->pos && end <= w->end &&
                      begin < end && !a->nested && as_written;
    if (spliceable) {
        flush_text(w, begin);
        ir_code_add_access(w->code, a);
        w->pos = end;
    } else if (buf->space != SPACE_GLOBAL) {
        error_at(a->loc, "shared tile '%s' is used inside %s here; write the access out in the code", buf->name,
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

/* An assignment to reduction variable r: checks it is an update by the
 * clause's operator and walks the operands other than r itself. */
static void walk_reduce_update(Walk *w, CXCursor assign, int r, bool is_stmt)
{
    const IrReduce *red = w->b->par->reduces.items[r];
    Children ch = children_of(assign);
    CXCursor var = clang_getCursorReferenced(strip(ch.items[0])); /* the variable's declaration */
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(assign);
    CXCursor operands[2];
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
            nops = 2; /* e is evaluated in the test and in an arm */
            operands[1] = operands[0];
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
        for (int i = 0; i < nops; i++)
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

static void walk(Walk *w, CXCursor c, Use use)
{
    enum CXCursorKind k = kind_of(c);
    Builder *b = w->b;
    bool is_stmt = w->stmt_child;
    w->stmt_child = false;
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
    default:
        if (k == CXCursor_NullStmt || clang_isStatement(k) || clang_isExpression(k) || k == CXCursor_InitListExpr)
            walk_children(w, c, 99, USE_READ);
        return;
    }
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
    IrCode *code = ir_code_new(loc_of(b, c));
    Walk w = {.b = b, .mode = mode, .accesses = accesses, .code = code, .pos = begin, .end = end, .stmt_child = true};
    walk(&w, c, USE_READ);
    flush_text(&w, end);
    *failed = w.failed;
    if (fx)
        *fx = w.fx;
    return code;
}

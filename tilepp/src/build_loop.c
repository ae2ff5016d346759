/* build_loop.c — canonical for loops and `#pragma tile parallel` nests. */
#include "build_internal.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Canonical loops                                                           */
/* ------------------------------------------------------------------------ */

bool refers_to(CXCursor ref, CXCursor decl)
{
    ref = strip(ref);
    return kind_of(ref) == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(ref), decl);
}

typedef struct RefScan {
    CXCursor decl;
    bool found;
} RefScan;

static enum CXChildVisitResult scan_ref(CXCursor c, CXCursor parent, CXClientData data)
{
    RefScan *s = data;
    (void)parent;
    if (kind_of(c) == CXCursor_DeclRefExpr && clang_equalCursors(clang_getCursorReferenced(c), s->decl)) {
        s->found = true;
        return CXChildVisit_Break;
    }
    return CXChildVisit_Recurse;
}

bool mentions(CXCursor tree, CXCursor decl)
{
    if (refers_to(tree, decl))
        return true;
    RefScan s = {decl, false};
    clang_visitChildren(tree, scan_ref, &s);
    return s.found;
}

static bool loop_condition(Builder *b, IrLoop *l, CXCursor var, CXCursor cond)
{
    cond = strip(cond);
    Children ch = children_of(cond);
    if (kind_of(cond) != CXCursor_BinaryOperator || ch.n != 2)
        return false;
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(cond);
    CXCursor bound;
    if (refers_to(ch.items[0], var))
        bound = ch.items[1];
    else if (refers_to(ch.items[1], var)) {
        bound = ch.items[0];
        /* `n > i` is `i < n` */
        if (op == CXBinaryOperator_LT)
            op = CXBinaryOperator_GT;
        else if (op == CXBinaryOperator_GT)
            op = CXBinaryOperator_LT;
        else if (op == CXBinaryOperator_LE)
            op = CXBinaryOperator_GE;
        else if (op == CXBinaryOperator_GE)
            op = CXBinaryOperator_LE;
    } else
        return false;
    if (op != CXBinaryOperator_LT && op != CXBinaryOperator_LE && op != CXBinaryOperator_GT &&
        op != CXBinaryOperator_GE)
        return false;
    l->inclusive = op == CXBinaryOperator_LE || op == CXBinaryOperator_GE;
    l->descending = op == CXBinaryOperator_GT || op == CXBinaryOperator_GE;
    l->hi = fe_cursor_text(b->fe, bound);
    return *l->hi != '\0';
}

/* The bound of `var < bound` (or `bound > var`, and the other comparisons)
 * when it is an integer constant expression. */
static bool loop_bound_const(CXCursor cond, CXCursor var, long long *v)
{
    cond = strip(cond);
    Children ch = children_of(cond);
    if (kind_of(cond) != CXCursor_BinaryOperator || ch.n != 2)
        return false;
    return refers_to(ch.items[0], var) ? const_int(ch.items[1], v) : const_int(ch.items[0], v);
}

static bool loop_increment(Builder *b, IrLoop *l, CXCursor var, CXCursor inc)
{
    inc = strip(inc);
    enum CXCursorKind k = kind_of(inc);
    Children ch = children_of(inc);
    if (k == CXCursor_UnaryOperator && ch.n == 1 && refers_to(ch.items[0], var)) {
        enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(inc);
        bool up = op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PreInc;
        bool down = op == CXUnaryOperator_PostDec || op == CXUnaryOperator_PreDec;
        if (!up && !down)
            return false;
        l->step = up ? "1" : "-1";
        l->step_is_const = true;
        l->step_const = up ? 1 : -1;
        return true;
    }
    if ((k == CXCursor_CompoundAssignOperator || k == CXCursor_BinaryOperator) && ch.n == 2 &&
        refers_to(ch.items[0], var)) {
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(inc);
        CXCursor step = ch.items[1];
        int sign = 1;
        if (op == CXBinaryOperator_Assign) {
            CXCursor rhs = strip(step);
            Children rc = children_of(rhs);
            if (kind_of(rhs) != CXCursor_BinaryOperator || rc.n != 2)
                return false;
            enum CXBinaryOperatorKind rop = clang_getCursorBinaryOperatorKind(rhs);
            if (rop == CXBinaryOperator_Add && refers_to(rc.items[0], var))
                step = rc.items[1];
            else if (rop == CXBinaryOperator_Add && refers_to(rc.items[1], var))
                step = rc.items[0];
            else if (rop == CXBinaryOperator_Sub && refers_to(rc.items[0], var)) {
                step = rc.items[1];
                sign = -1;
            } else
                return false;
        } else if (op == CXBinaryOperator_SubAssign)
            sign = -1;
        else if (op != CXBinaryOperator_AddAssign)
            return false;
        if (mentions(step, var))
            return false;
        char *text = fe_cursor_text(b->fe, step);
        l->step = sign > 0 ? aprintf("(%s)", text) : aprintf("(-(%s))", text);
        l->step_is_const = const_int(step, &l->step_const);
        l->step_const *= sign;
        return true;
    }
    return false;
}

static enum CXChildVisitResult scan_memory_read(CXCursor c, CXCursor parent, CXClientData data)
{
    CXCursor *found = data;
    (void)parent;
    if (is_memory_read(c)) {
        *found = c;
        return CXChildVisit_Break;
    }
    return CXChildVisit_Recurse;
}

/* The first read of memory through a pointer in an expression or a
 * declaration, or a null cursor. */
static CXCursor memory_read_in(CXCursor c)
{
    CXCursor found = clang_getNullCursor();
    scan_memory_read(c, c, &found);
    if (clang_Cursor_isNull(found))
        clang_visitChildren(c, scan_memory_read, &found);
    return found;
}

/* Whether the `for` of a loop is spelled inside a macro (`FOR(i, n)`): its
 * header's text is then the macro's use, not C the launcher can evaluate. */
static bool written_by_macro(CXCursor loop)
{
    CXSourceLocation at = clang_getCursorLocation(loop);
    CXFile spelled, expanded;
    unsigned spelled_offset, expanded_offset;
    clang_getSpellingLocation(at, &spelled, NULL, NULL, &spelled_offset);
    clang_getExpansionLocation(at, &expanded, NULL, NULL, &expanded_offset);
    return !clang_File_isEqual(spelled, expanded) || spelled_offset != expanded_offset;
}

/* The type loop condition `cond` compares in, after C's usual arithmetic
 * conversions: the type of its (converted) operands. */
static CXType comparison_type(CXCursor cond)
{
    Children ch = children_of(strip(cond));
    return ch.n == 2 ? clang_getCanonicalType(clang_getCursorType(ch.items[0]))
                     : clang_getCanonicalType(clang_getCursorType(cond));
}

static bool is_unsigned_kind(enum CXTypeKind k)
{
    return k == CXType_UInt || k == CXType_ULong || k == CXType_ULongLong || k == CXType_UShort || k == CXType_UChar ||
           k == CXType_Char_U;
}

/* A loop whose condition compares unsigned values (an unsigned variable, or
 * an int against an unsigned bound): C converts both sides, so -1 is the
 * largest value and the variable wraps below 0. lo and hi are taken in that
 * type (the launcher counts iterations in long long); `v >= 0` never ends
 * (refused); `for (unsigned v = n - 1; v < n; v--)`, which ends when v wraps,
 * counts down to 0. False (said) where the loop cannot be taken. */
static bool unsigned_comparison(Builder *b, IrLoop *l, CXCursor var, CXCursor cond)
{
    CXType t = comparison_type(cond);
    if (!is_unsigned_kind(t.kind))
        return true;
    char *type = cx_take(clang_getTypeSpelling(t));
    long long hi_const;
    if (l->descending && l->inclusive && loop_bound_const(cond, var, &hi_const) && hi_const == 0) {
        error_at(l->loc, "'%s >= 0' compares unsigned values (%s): it is always true, and the C loop never ends",
                 l->var, type);
        return false;
    }
    char *lo = aprintf("(%s)(%s)", type, l->lo), *hi = aprintf("(%s)(%s)", type, l->hi);
    bool wraps_down = !l->descending && l->step_is_const && l->step_const < 0; /* v < hi; v-- */
    if (wraps_down && l->step_const != -1) {
        error_at(l->loc,
                 "an unsigned loop that counts down by %lld until it wraps below 0: only a step of -1 ('%s--') "
                 "is supported there; count with a signed variable",
                 -l->step_const, l->var);
        return false;
    }
    if (wraps_down) { /* lo, lo - 1, ..., 0 while lo < hi; then v wraps to the type's largest value, not below hi */
        l->hi = aprintf("(%s < %s ? 0 : (long long)%s + 1)", lo, hi, lo);
        l->inclusive = l->descending = true;
        l->bounds_const = false;
    } else if (!l->bounds_const || l->lo_const < 0 || l->hi_const < 0) { /* constants >= 0 read alike */
        l->hi = hi;
        l->bounds_const = false;
    }
    if (wraps_down || !l->bounds_const)
        l->lo = lo;
    return true;
}

/* Parses `for (T v = lo; v REL hi; v += step)`. */
bool canonical_loop(Builder *b, CXCursor loop, IrLoop *l, CXCursor *var_out, CXCursor *body_out)
{
    Children ch = children_of(loop);
    l->loc = loc_of(b, loop);
    if (written_by_macro(loop)) {
        error_at(l->loc, "this loop is written by a macro: tilepp reads a pragma's loop as written; write the 'for' "
                         "statement out (a macro in its bounds or body is fine)");
        return false;
    }
    if (ch.n != 4)
        goto fail;
    CXCursor init = ch.items[0];
    Children decls = children_of(init);
    if (kind_of(init) != CXCursor_DeclStmt || decls.n != 1 || kind_of(decls.items[0]) != CXCursor_VarDecl)
        goto fail;
    CXCursor var = decls.items[0];
    Children vch = children_of(var);
    if (vch.n < 1)
        goto fail;
    l->var = spelling(var);
    l->var_type = ir_type(clang_getCursorType(var));
    if (l->var_type.kind != SCALAR_INT) {
        error_at(loc_of(b, var), "the variable of a parallel loop must have an integer type");
        return false;
    }
    l->lo = fe_cursor_text(b->fe, vch.items[vch.n - 1]);
    if (!loop_condition(b, l, var, ch.items[1]) || !loop_increment(b, l, var, ch.items[2]))
        goto fail;
    l->bounds_const = const_int(vch.items[vch.n - 1], &l->lo_const) && loop_bound_const(ch.items[1], var, &l->hi_const);
    if (!unsigned_comparison(b, l, var, ch.items[1]))
        return false;
    for (int i = 0; i < 3; i++)
        if (!clang_Cursor_isNull(memory_read_in(ch.items[i]))) {
            error_at(loc_of(b, memory_read_in(ch.items[i])),
                     "the bounds of a parallel loop may not read memory: the launcher evaluates them on the host, "
                     "before the kernel runs (pass the value as a parameter)");
            return false;
        }
    if (l->step_is_const && (l->step_const == 0 || (l->step_const > 0) == l->descending)) {
        error_at(l->loc, "the loop's step goes away from its bound: it would never end");
        return false;
    }
    *var_out = var;
    *body_out = ch.items[3];
    return true;
fail:
    error_at(l->loc, "a loop under '#pragma tile' must have the form 'for (int v = lo; v < hi; v += step)' "
                     "(also <=, >, >=, ++, --, -=)");
    return false;
}

/* The single for loop a body consists of, if it does. */
bool only_loop_in(CXCursor body, CXCursor *inner)
{
    if (kind_of(body) == CXCursor_ForStmt) {
        *inner = body;
        return true;
    }
    if (kind_of(body) != CXCursor_CompoundStmt)
        return false;
    Children ch = children_of(body);
    if (ch.n != 1 || kind_of(ch.items[0]) != CXCursor_ForStmt)
        return false;
    *inner = ch.items[0];
    return true;
}

bool bounds_mention_outer(Builder *b, CXCursor loop, int depth)
{
    Children ch = children_of(loop);
    for (int i = 0; i < 3 && i < ch.n; i++)
        for (int d = 0; d < depth; d++)
            if (mentions(ch.items[i], b->loop_vars[d]))
                return true;
    return false;
}

static bool reduce_op_of(const char *text, IrReduceOp *op)
{
    for (int i = 0; i <= RED_LOR; i++)
        if (strcmp(ir_reduce_op_name((IrReduceOp)i), text) == 0) {
            *op = (IrReduceOp)i;
            return true;
        }
    return false;
}

/* The latest declaration named `name` among `locals` (CXCursor*). */
static bool find_local(const Vec *locals, const char *name, CXCursor *decl)
{
    for (int i = locals->len - 1; i >= 0; i--)
        if (strcmp(spelling(*(CXCursor *)locals->items[i]), name) == 0) {
            *decl = *(CXCursor *)locals->items[i];
            return true;
        }
    return false;
}

/* The reduce(op: var, ...) clauses: each variable a scalar declared before
 * the loop, at the loop's level (the kernel's, or the grid block's). */
static bool build_reduces(Builder *b, IrParallel *par, const Pragma *pragma)
{
    bool ok = true;
    for (int c = 0; c < pragma->nclauses; c++) {
        const PClause *cl = &pragma->clauses[c];
        if (strcmp(cl->name, "reduce") != 0)
            continue;
        IrReduceOp op;
        if (!reduce_op_of(cl->reduce_op, &op)) {
            error_at(cl->loc, "unknown reduction operator '%s'", cl->reduce_op);
            return false;
        }
        for (int a = 0; a < cl->nargs; a++) {
            const PArg *arg = &cl->args[a];
            char *name = parg_text(arg);
            CXCursor decl;
            bool found = find_local(b->grid ? &b->block_locals : &b->kernel_locals, name, &decl);
            IrType type = found ? ir_type(clang_getCursorType(decl)) : (IrType){0};
            if (!found)
                error_at(arg->loc, "reduce(%s: %s): '%s' is not a variable declared before the loop %s", cl->reduce_op,
                         name, name, b->grid ? "in its grid block" : "at the top level of the kernel");
            else if (type.kind == SCALAR_OTHER || clang_isConstQualifiedType(clang_getCursorType(decl)))
                error_at(arg->loc, "reduce(%s: %s): '%s' must be a variable of arithmetic type, not '%s'",
                         cl->reduce_op, name, name, type.spelling);
            else if ((op == RED_MAX || op == RED_MIN) && type.kind == SCALAR_BOOL)
                error_at(arg->loc, "reduce(%s: %s): max and min take numbers, not bool", cl->reduce_op, name);
            else if (op >= RED_AND && op <= RED_XOR && type.kind != SCALAR_INT && type.kind != SCALAR_BOOL)
                error_at(arg->loc, "reduce(%s: %s): bitwise reductions take integers, not '%s'", cl->reduce_op, name,
                         type.spelling);
            else if (reduce_index(b, decl) >= 0)
                error_at(arg->loc, "'%s' appears twice in the loop's reduce clauses", name);
            else if (b->nreduce == IR_MAX_REDUCE)
                error_at(arg->loc, "a loop reduces at most %d variables", IR_MAX_REDUCE);
            else {
                IrReduce *r = anew(sizeof *r);
                *r = (IrReduce){op, astrdup(cl->reduce_op), astrdup(name), type, b->grid == NULL, arg->loc};
                vec_push(&par->reduces, r);
                b->reduce_decls[b->nreduce++] = decl;
                free(name);
                continue;
            }
            free(name);
            ok = false;
        }
    }
    return ok;
}

IrParallel *build_parallel(Builder *b, CXCursor loop, const Pragma *pragma)
{
    IrParallel *par = anew(sizeof *par);
    par->loc = pragma->loc;
    par->vector = 1;
    b->par = par;
    bool ok = true;
    const PClause *vec = pragma_clause(pragma, "vector");
    if (vec) {
        long long v;
        par->vector_loc = vec->args[0].loc;
        if (!eval_pragma_int(b->fe, &vec->args[0], pragma->begin_offset, &v))
            ok = false;
        else if (v < 1 || v > 16 || (v & (v - 1))) {
            error_at(vec->args[0].loc, "vector(%lld): the width must be 1, 2, 4, 8 or 16", v);
            ok = false;
        } else
            par->vector = (int)v;
    }
    b->nreduce = 0;
    if (!build_reduces(b, par, pragma)) {
        b->par = NULL;
        return NULL; /* its body would only add errors about the reduction variable */
    }
    CXCursor body = loop;
    for (;;) {
        CXCursor var;
        if (!canonical_loop(b, loop, &par->loops[par->depth], &var, &body)) {
            b->par = NULL;
            return NULL;
        }
        b->loop_vars[par->depth++] = var;
        CXCursor inner;
        if (par->depth == IR_MAX_NEST || !only_loop_in(body, &inner) || fe_attached_on(b->fe, inner) ||
            written_by_macro(inner)) /* a macro's loop stays in the body, each thread running it */
            break;
        /* Collapse only rectangular, canonical inner loops. */
        Children ch = children_of(inner);
        if (ch.n != 4 || bounds_mention_outer(b, inner, par->depth))
            break;
        loop = inner;
    }
    /* Bounds are evaluated once, before the loop: the body walk refuses writes
     * to the parameters and kernel-level variables they can read. */
    bool failed = false;
    par->body = build_code(b, body, CODE_PARALLEL, &par->accesses, NULL, &failed);
    b->par = NULL;
    b->nreduce = 0;
    return ok && !failed ? par : NULL;
}

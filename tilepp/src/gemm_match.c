/* gemm_match.c — `#pragma tile gemm` on code the user wrote: a canonical loop
 * nest, or a call to the user's own micro-kernel whose body is one. tilepp
 * checks that the code really is C[i][j] += A[i][k] * B[k][j] (or one of its
 * transpositions) over whole tiles before it puts a tensor-core gemm in its
 * place; anything else is refused with the reason. */
#include "build_internal.h"

#include <string.h>

/* One loop of the nest: its variable and constant trip count. */
typedef struct NestLoop {
    CXCursor var;
    long long extent;
} NestLoop;

/* The operands, as cursors of the arrays named in the body. */
typedef struct Product {
    CXCursor c, a, b;               /* the array declarations (tiles or parameters) */
    CXCursor a_expr, b_expr;        /* the operands as written, for diagnostics */
    int ci, cj, ai0, ai1, bi0, bi1; /* loop index (0..2) in each subscript */
    NestLoop loops[3];
} Product;

static bool fail(Builder *b, CXCursor at, const char *why)
{
    error_at(loc_of(b, at),
             "'#pragma tile gemm': this is not a matrix product C[i][j] += A[i][k] * B[k][j] over "
             "whole tiles: %s",
             why);
    return false;
}

/* for (int v = 0; v < EXTENT; v++) with a constant extent */
static bool nest_loop(Builder *b, CXCursor loop, NestLoop *nl, CXCursor *body)
{
    IrLoop l = {0};
    CXCursor var;
    long long lo;
    Children ch = children_of(loop);
    if (kind_of(loop) != CXCursor_ForStmt || !canonical_loop(b, loop, &l, &var, body) || ch.n != 4)
        return false;
    Children decl = children_of(ch.items[0]);
    Children init = children_of(decl.items[0]);
    CXCursor cond = strip(ch.items[1]);
    Children cc = children_of(cond);
    if (!l.step_is_const || l.step_const != 1 || l.inclusive || !const_int(init.items[init.n - 1], &lo) || lo != 0 ||
        cc.n != 2 || !const_int(cc.items[1], &nl->extent))
        return false;
    nl->var = var;
    return true;
}

/* Which loop variable a subscript is; -1 if it is not exactly one of them. */
static int loop_index(const Product *p, CXCursor e)
{
    e = strip(e);
    if (kind_of(e) != CXCursor_DeclRefExpr)
        return -1;
    CXCursor d = clang_getCursorReferenced(e);
    for (int i = 0; i < 3; i++)
        if (clang_equalCursors(d, p->loops[i].var))
            return i;
    return -1;
}

/* X[s0][s1] with both subscripts loop variables: the array and the indices. */
static bool element(const Product *p, CXCursor e, CXCursor *array, int *i0, int *i1)
{
    e = strip(e);
    if (kind_of(e) == CXCursor_CStyleCastExpr) {
        Children ch = children_of(e);
        e = strip(ch.items[ch.n - 1]);
    }
    Children outer = children_of(e);
    if (kind_of(e) != CXCursor_ArraySubscriptExpr || outer.n != 2)
        return false;
    CXCursor inner = strip(outer.items[0]);
    Children in = children_of(inner);
    if (kind_of(inner) != CXCursor_ArraySubscriptExpr || in.n != 2)
        return false;
    CXCursor base = strip(in.items[0]);
    if (kind_of(base) != CXCursor_DeclRefExpr)
        return false;
    *array = clang_getCursorReferenced(base);
    *i0 = loop_index(p, in.items[1]);
    *i1 = loop_index(p, outer.items[1]);
    return *i0 >= 0 && *i1 >= 0;
}

/* The body: C[i][j] += A[..][..] * B[..][..], or C[i][j] = C[i][j] + A * B. */
static bool product_body(Builder *b, CXCursor body, Product *p)
{
    if (kind_of(body) == CXCursor_CompoundStmt) {
        Children ch = children_of(body);
        if (ch.n != 1)
            return fail(b, body, "the innermost body must be the single statement C[i][j] += A[i][k] * B[k][j]");
        body = ch.items[0];
    }
    Children ch = children_of(body);
    enum CXBinaryOperatorKind op =
        kind_of(body) == CXCursor_CompoundAssignOperator || kind_of(body) == CXCursor_BinaryOperator
            ? clang_getCursorBinaryOperatorKind(body)
            : CXBinaryOperator_Invalid;
    if (ch.n != 2 || (op != CXBinaryOperator_AddAssign && op != CXBinaryOperator_Assign))
        return fail(b, body, "the statement must accumulate into C[i][j] with += (or C[i][j] = C[i][j] + ...)");
    if (!element(p, ch.items[0], &p->c, &p->ci, &p->cj))
        return fail(b, ch.items[0], "the left side must be C[i][j], subscripted by two of the loop variables");
    CXCursor rhs = strip(ch.items[1]);
    if (op == CXBinaryOperator_Assign) { /* C[i][j] = C[i][j] + product */
        Children sum = children_of(rhs);
        CXCursor again;
        int i0, i1;
        if (kind_of(rhs) != CXCursor_BinaryOperator || clang_getCursorBinaryOperatorKind(rhs) != CXBinaryOperator_Add ||
            sum.n != 2 || !element(p, sum.items[0], &again, &i0, &i1) || !clang_equalCursors(again, p->c) ||
            i0 != p->ci || i1 != p->cj)
            return fail(b, rhs, "the right side must be C[i][j] + A[i][k] * B[k][j]");
        rhs = strip(sum.items[1]);
    }
    Children prod = children_of(rhs);
    if (kind_of(rhs) != CXCursor_BinaryOperator || clang_getCursorBinaryOperatorKind(rhs) != CXBinaryOperator_Mul ||
        prod.n != 2 || !element(p, (p->a_expr = prod.items[0]), &p->a, &p->ai0, &p->ai1) ||
        !element(p, (p->b_expr = prod.items[1]), &p->b, &p->bi0, &p->bi1))
        return fail(b, rhs, "the product must be A[..][..] * B[..][..], each subscripted by loop variables");
    return true;
}

/* The three loops play the roles i, j and k; the subscripts decide. */
static bool roles(Builder *b, CXCursor at, Product *p, bool *a_trans, bool *b_trans)
{
    int i = p->ci, j = p->cj, k = 3 - i - j;
    if (i == j)
        return fail(b, at, "C must be subscripted by two different loop variables");
    if (p->ai0 == i && p->ai1 == k)
        *a_trans = false;
    else if (p->ai0 == k && p->ai1 == i)
        *a_trans = true;
    else
        return fail(b, p->a_expr, "A must be A[i][k] (or A[k][i]) with i the row of C and k the third loop");
    if (p->bi0 == k && p->bi1 == j)
        *b_trans = false;
    else if (p->bi0 == j && p->bi1 == k)
        *b_trans = true;
    else
        return fail(b, p->b_expr, "B must be B[k][j] (or B[j][k]) with j the column of C and k the third loop");
    return true;
}

/* The loop nest rooted at `loop`; fills p->loops and the operands. */
static bool match_nest(Builder *b, CXCursor loop, Product *p, bool *a_trans, bool *b_trans)
{
    CXCursor body = loop;
    for (int d = 0; d < 3; d++) {
        CXCursor inner;
        if (d > 0 && !only_loop_in(body, &inner))
            return fail(b, body, "it must be a perfect nest of three for loops");
        CXCursor l = d == 0 ? loop : inner;
        int errors = diag_error_count();
        if (!nest_loop(b, l, &p->loops[d], &body))
            return diag_error_count() > errors /* a non-canonical loop, reported as such */
                       ? false
                       : fail(b, l, "each loop must be 'for (int v = 0; v < N; v++)' with a constant N");
    }
    return product_body(b, body, p) && roles(b, loop, p, a_trans, b_trans);
}

/* The extents a matched nest runs over must be the arrays' whole shapes. */
static bool covers_tiles(Builder *b, CXCursor at, const Product *p, const IrTileOp *op)
{
    long long m = p->loops[p->ci].extent, n = p->loops[p->cj].extent, k = p->loops[3 - p->ci - p->cj].extent;
    long long am = op->a_trans ? op->a->dims[1] : op->a->dims[0];
    long long ak = op->a_trans ? op->a->dims[0] : op->a->dims[1];
    long long bn = op->b_trans ? op->b->dims[0] : op->b->dims[1];
    if (op->c->dims[0] != m || op->c->dims[1] != n || am != m || ak != k || bn != n)
        return fail(b, at, "its loops must run over the whole tiles (their extents differ from the arrays')");
    return true;
}

/* `#pragma tile gemm` on a loop nest over tiles of the block. */
IrTileOp *match_gemm_loop(Builder *b, const Vec *tiles, CXCursor loop)
{
    Product p = {0};
    IrTileOp *op = anew(sizeof *op);
    op->kind = TILE_GEMM;
    op->loc = loc_of(b, loop);
    if (!match_nest(b, loop, &p, &op->a_trans, &op->b_trans))
        return NULL;
    CXCursor arrays[3] = {p.a, p.b, p.c};
    IrBuffer **slots[3] = {&op->a, &op->b, &op->c};
    for (int i = 0; i < 3; i++)
        for (int t = 0; t < tiles->len; t++) {
            IrBuffer *buf = tiles->items[t];
            if (strcmp(buf->name, spelling(arrays[i])) == 0)
                *slots[i] = buf;
        }
    if (!op->a || !op->b || !op->c) {
        fail(b, loop, "A, B and C must be '#pragma tile shared' or 'fragment' arrays of this block");
        return NULL;
    }
    return covers_tiles(b, loop, &p, op) && gemm_operands_ok(b, op, "#pragma tile gemm") ? op : NULL;
}

/* `#pragma tile gemm` on a call of the user's micro-kernel: its definition
 * must be a matching nest over three of its array parameters, which the
 * call binds to tiles. */
IrTileOp *match_gemm_call(Builder *b, const Vec *tiles, CXCursor call)
{
    if (!defined_here(b, clang_getCursorReferenced(call), call))
        return NULL;
    CXCursor fn = clang_getCursorDefinition(clang_getCursorReferenced(call));
    Children parts = children_of(fn);
    CXCursor body = parts.items[parts.n - 1];
    Children stmts = children_of(body);
    if (kind_of(body) != CXCursor_CompoundStmt || stmts.n != 1 || kind_of(stmts.items[0]) != CXCursor_ForStmt) {
        fail(b, fn, "the function's body must be the single loop nest of a matrix product");
        return NULL;
    }
    Product p = {0};
    IrTileOp *op = anew(sizeof *op);
    op->kind = TILE_GEMM;
    op->loc = loc_of(b, call);
    if (!match_nest(b, stmts.items[0], &p, &op->a_trans, &op->b_trans))
        return NULL;
    CXCursor arrays[3] = {p.a, p.b, p.c};
    IrBuffer **slots[3] = {&op->a, &op->b, &op->c};
    int nparams = clang_Cursor_getNumArguments(fn);
    for (int i = 0; i < 3; i++)
        for (int q = 0; q < nparams; q++) {
            if (!clang_equalCursors(clang_Cursor_getArgument(fn, (unsigned)q), arrays[i]))
                continue;
            CXCursor arg = strip(clang_Cursor_getArgument(call, (unsigned)q));
            for (int t = 0; kind_of(arg) == CXCursor_DeclRefExpr && t < tiles->len; t++) {
                IrBuffer *buf = tiles->items[t];
                if (strcmp(buf->name, spelling(arg)) == 0)
                    *slots[i] = buf;
            }
        }
    if (!op->a || !op->b || !op->c) {
        fail(b, call, "the call must pass '#pragma tile shared' or 'fragment' arrays of this block as A, B and C");
        return NULL;
    }
    return covers_tiles(b, call, &p, op) && gemm_operands_ok(b, op, "#pragma tile gemm") ? op : NULL;
}

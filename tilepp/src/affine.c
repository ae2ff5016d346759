/* affine.c — subscripts as affine functions of the loop variables. */
#include "build_internal.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Affine index analysis                                                     */
/* ------------------------------------------------------------------------ */

static Affine affine_none(void) { return (Affine){.ok = false, .rest = ""}; }

static char *token_text_of(Builder *b, CXCursor c)
{
    CXToken *toks;
    unsigned n;
    clang_tokenize(b->fe->tu, clang_getCursorExtent(c), &toks, &n);
    Str s = {0};
    for (unsigned i = 0; i < n; i++)
        str_addf(&s, "%s%s", i ? " " : "", cx_take(clang_getTokenSpelling(b->fe->tu, toks[i])));
    clang_disposeTokens(b->fe->tu, toks, n);
    return atake(&s);
}

typedef struct InvariantScan {
    Builder *b;
    bool invariant;
} InvariantScan;

bool invariant_decl(Builder *b, CXCursor decl)
{
    if (param_of(b, decl) && param_of(b, decl)->kind == PARAM_SCALAR)
        return true;
    if (is_kernel_local(b, decl) || is_block_local(b, decl) || is_block_var(b, decl))
        return true;
    enum CXCursorKind k = kind_of(decl);
    if (k == CXCursor_EnumConstantDecl)
        return true;
    if (k == CXCursor_VarDecl && kind_of(clang_getCursorSemanticParent(decl)) == CXCursor_TranslationUnit)
        return clang_isConstQualifiedType(clang_getCursorType(decl)); /* a const scalar, not a table */
    return false;
}

static enum CXChildVisitResult scan_invariant(CXCursor c, CXCursor parent, CXClientData data)
{
    InvariantScan *s = data;
    (void)parent;
    enum CXCursorKind k = kind_of(c);
    if (k == CXCursor_DeclRefExpr) {
        CXCursor d = clang_getCursorReferenced(c);
        if (kind_of(d) == CXCursor_FunctionDecl)
            return CXChildVisit_Continue; /* math functions are pure; their arguments decide */
        if (!invariant_decl(s->b, d))
            s->invariant = false;
    } else if (is_memory_read(c))
        s->invariant = false;
    return s->invariant ? CXChildVisit_Recurse : CXChildVisit_Break;
}

static bool is_invariant(Builder *b, CXCursor e)
{
    InvariantScan s = {b, true};
    if (kind_of(e) == CXCursor_DeclRefExpr)
        scan_invariant(e, e, &s);
    else
        clang_visitChildren(e, scan_invariant, &s);
    return s.invariant;
}

bool const_int(CXCursor e, long long *v)
{
    CXEvalResult r = clang_Cursor_Evaluate(e);
    bool ok = r && clang_EvalResult_getKind(r) == CXEval_Int;
    if (ok)
        *v = clang_EvalResult_getAsLongLong(r);
    if (r)
        clang_EvalResult_dispose(r);
    return ok;
}

static Affine affine_scale(Affine a, long long s)
{
    for (int d = 0; d < IR_MAX_NEST; d++)
        a.coef[d] *= s;
    a.offset *= s;
    if (*a.rest)
        a.rest = s == 1 ? a.rest : aprintf("%lld * (%s)", s, a.rest);
    return a;
}

static Affine affine_add(Affine x, Affine y, int sign)
{
    if (!x.ok || !y.ok)
        return affine_none();
    for (int d = 0; d < IR_MAX_NEST; d++)
        x.coef[d] += sign * y.coef[d];
    x.offset += sign * y.offset;
    if (*y.rest)
        x.rest = *x.rest ? aprintf("%s %s %s", x.rest, sign > 0 ? "+" : "-", y.rest)
                         : (sign > 0 ? y.rest : aprintf("- %s", y.rest));
    return x;
}

Affine affine_of(Builder *b, CXCursor e)
{
    e = strip(e);
    enum CXCursorKind k = kind_of(e);
    long long v;
    if (k == CXCursor_CStyleCastExpr) {
        Children ch = children_of(e);
        return ch.n ? affine_of(b, ch.items[ch.n - 1]) : affine_none();
    }
    if (const_int(e, &v) && k != CXCursor_DeclRefExpr)
        return (Affine){.ok = true, .offset = v, .rest = ""};
    if (k == CXCursor_DeclRefExpr) {
        CXCursor d = clang_getCursorReferenced(e);
        int lv = loop_var_index(b, d);
        if (lv >= 0) {
            Affine a = {.ok = true, .rest = ""};
            a.coef[lv] = 1;
            return a;
        }
        if (kind_of(d) == CXCursor_EnumConstantDecl)
            return (Affine){.ok = true, .offset = clang_getEnumConstantDeclValue(d), .rest = ""};
        if (invariant_decl(b, d))
            return (Affine){.ok = true, .rest = spelling(d)};
        return affine_none();
    }
    if (k == CXCursor_BinaryOperator) {
        Children ch = children_of(e);
        if (ch.n != 2)
            return affine_none();
        enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(e);
        if (op == CXBinaryOperator_Add || op == CXBinaryOperator_Sub)
            return affine_add(affine_of(b, ch.items[0]), affine_of(b, ch.items[1]),
                              op == CXBinaryOperator_Add ? 1 : -1);
        if (op == CXBinaryOperator_Mul) {
            if (const_int(ch.items[0], &v))
                return affine_scale(affine_of(b, ch.items[1]), v);
            if (const_int(ch.items[1], &v))
                return affine_scale(affine_of(b, ch.items[0]), v);
        }
    }
    if (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_Minus) {
        Children ch = children_of(e);
        return ch.n == 1 ? affine_scale(affine_of(b, ch.items[0]), -1) : affine_none();
    }
    if (is_invariant(b, e))
        return (Affine){.ok = true, .rest = aprintf("(%s)", token_text_of(b, e))};
    return affine_none();
}

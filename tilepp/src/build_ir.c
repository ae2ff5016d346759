#include "build_ir.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Helpers over libclang cursors                                             */
/* ------------------------------------------------------------------------ */

typedef struct Children {
    CXCursor items[64];
    int n;
} Children;

static enum CXChildVisitResult push_child(CXCursor c, CXCursor parent, CXClientData data)
{
    Children *ch = data;
    (void)parent;
    if (ch->n < (int)(sizeof ch->items / sizeof ch->items[0]))
        ch->items[ch->n++] = c;
    return CXChildVisit_Continue;
}

static Children children_of(CXCursor c)
{
    Children ch = {.n = 0};
    clang_visitChildren(c, push_child, &ch);
    return ch;
}

static enum CXCursorKind kind_of(CXCursor c) { return clang_getCursorKind(c); }

/* Strips parentheses and implicit casts (libclang shows those as unexposed). */
static CXCursor strip(CXCursor c)
{
    for (;;) {
        enum CXCursorKind k = kind_of(c);
        if (k != CXCursor_ParenExpr && k != CXCursor_UnexposedExpr)
            return c;
        Children ch = children_of(c);
        if (ch.n != 1)
            return c;
        c = ch.items[0];
    }
}

static char *spelling(CXCursor c) { return cx_take(clang_getCursorSpelling(c)); }

static ScalarKind scalar_kind(CXType t, int *size, bool *is_signed)
{
    CXType canon = clang_getCanonicalType(t);
    *size = (int)clang_Type_getSizeOf(canon);
    *is_signed = false;
    switch (canon.kind) {
    case CXType_Bool:
        return SCALAR_BOOL;
    case CXType_Char_S:
    case CXType_SChar:
    case CXType_Short:
    case CXType_Int:
    case CXType_Long:
    case CXType_LongLong:
        *is_signed = true;
        return SCALAR_INT;
    case CXType_Char_U:
    case CXType_UChar:
    case CXType_UShort:
    case CXType_UInt:
    case CXType_ULong:
    case CXType_ULongLong:
        return SCALAR_INT;
    case CXType_Float16:
    case CXType_Half:
        return SCALAR_HALF;
    case CXType_BFloat16:
        return SCALAR_BF16;
    case CXType_Float:
        return SCALAR_FLOAT;
    case CXType_Double:
        return SCALAR_DOUBLE;
    default:
        /* libclang 19 shows __bf16 as an unexposed type */
        return strstr(cx_take(clang_getTypeSpelling(canon)), "__bf16") ? SCALAR_BF16 : SCALAR_OTHER;
    }
}

static IrType ir_type(CXType t)
{
    IrType r;
    r.kind = scalar_kind(t, &r.size, &r.is_signed);
    r.spelling = cx_take(clang_getTypeSpelling(t));
    return r;
}

/* ------------------------------------------------------------------------ */
/* The builder                                                               */
/* ------------------------------------------------------------------------ */

typedef struct Builder {
    FrontEnd *fe;
    IrModule *m;
    IrKernel *k;
    CXCursor kernel_cursor;
    Vec kernel_locals; /* CXCursor*: VarDecls at kernel level */
    IrParallel *par;
    CXCursor loop_vars[IR_MAX_NEST];
    Vec used_pragmas; /* const Pragma* the builder has honoured */
} Builder;

static void use_pragma(Builder *b, const Pragma *p) { vec_push(&b->used_pragmas, (void *)p); }

static bool pragma_used(const Builder *b, const Pragma *p)
{
    for (int i = 0; i < b->used_pragmas.len; i++)
        if (b->used_pragmas.items[i] == p)
            return true;
    return false;
}

static SrcLoc loc_of(Builder *b, CXCursor c) { return fe_cursor_loc(b->fe, c); }

static const IrParam *param_of(Builder *b, CXCursor decl)
{
    if (!b->k || kind_of(decl) != CXCursor_ParmDecl)
        return NULL;
    CXCursor parent = clang_getCursorSemanticParent(decl);
    if (!clang_equalCursors(parent, b->kernel_cursor))
        return NULL;
    return ir_kernel_param(b->k, spelling(decl));
}

static int loop_var_index(Builder *b, CXCursor decl)
{
    if (!b->par)
        return -1;
    for (int d = 0; d < b->par->depth; d++)
        if (clang_equalCursors(b->loop_vars[d], decl))
            return d;
    return -1;
}

static bool is_kernel_local(Builder *b, CXCursor decl)
{
    for (int i = 0; i < b->kernel_locals.len; i++)
        if (clang_equalCursors(*(CXCursor *)b->kernel_locals.items[i], decl))
            return true;
    return false;
}

/* ------------------------------------------------------------------------ */
/* Integer constants in pragma clauses                                       */
/* ------------------------------------------------------------------------ */

typedef struct Eval {
    FrontEnd *fe;
    const PTok *toks;
    int n, pos;
    bool ok;
    SrcLoc loc;
} Eval;

static long long eval_expr(Eval *e);

typedef struct FindName {
    const char *name;
    CXCursor found;
    bool ok;
} FindName;

static enum CXChildVisitResult find_named(CXCursor c, CXCursor parent, CXClientData data)
{
    FindName *f = data;
    (void)parent;
    enum CXCursorKind k = kind_of(c);
    if (k == CXCursor_EnumDecl)
        return CXChildVisit_Recurse;
    if ((k == CXCursor_EnumConstantDecl || k == CXCursor_MacroDefinition || k == CXCursor_VarDecl) &&
        strcmp(spelling(c), f->name) == 0) {
        f->found = c;
        f->ok = true; /* keep the last: later definitions win, like the preprocessor */
    }
    return CXChildVisit_Continue;
}

static FindName find_definition(FrontEnd *fe, const char *name)
{
    FindName f = {name, clang_getNullCursor(), false};
    clang_visitChildren(clang_getTranslationUnitCursor(fe->tu), find_named, &f);
    return f;
}

/* Appends the tokens of `toks`, replacing object-like macros by their
 * bodies, as the preprocessor would (no parentheses added). */
static bool expand_tokens(FrontEnd *fe, const PTok *toks, int n, Vec *out, Vec *active)
{
    for (int i = 0; i < n; i++) {
        const PTok *t = &toks[i];
        FindName f = t->kind == PTOK_IDENT ? find_definition(fe, t->text) : (FindName){0};
        bool expanding = false;
        for (int a = 0; active && a < active->len; a++)
            expanding |= strcmp(active->items[a], t->text) == 0;
        if (!f.ok || kind_of(f.found) != CXCursor_MacroDefinition || expanding) {
            vec_push(out, (void *)t);
            continue;
        }
        if (clang_Cursor_isMacroFunctionLike(f.found) || active->len > 32)
            return false;
        CXToken *body;
        unsigned nbody;
        clang_tokenize(fe->tu, clang_getCursorExtent(f.found), &body, &nbody);
        PTok *ptoks = anew((size_t)(nbody + 1) * sizeof *ptoks);
        int count = 0;
        for (unsigned j = 1; j < nbody; j++) { /* token 0 is the macro's name */
            CXTokenKind k = clang_getTokenKind(body[j]);
            ptoks[count++] = (PTok){k == CXToken_Literal       ? PTOK_NUMBER
                                    : k == CXToken_Punctuation ? PTOK_PUNCT
                                                               : PTOK_IDENT,
                                    cx_take(clang_getTokenSpelling(fe->tu, body[j])), t->loc};
        }
        clang_disposeTokens(fe->tu, body, nbody);
        vec_push(active, t->text);
        bool ok = expand_tokens(fe, ptoks, count, out, active);
        active->len--;
        if (!ok)
            return false;
    }
    return true;
}

static bool resolve_identifier(Eval *e, const char *name, long long *value)
{
    FindName f = find_definition(e->fe, name);
    if (!f.ok)
        return false;
    switch (kind_of(f.found)) {
    case CXCursor_EnumConstantDecl:
        *value = clang_getEnumConstantDeclValue(f.found);
        return true;
    case CXCursor_VarDecl: {
        if (!clang_isConstQualifiedType(clang_getCursorType(f.found)))
            return false;
        CXEvalResult r = clang_Cursor_Evaluate(f.found);
        bool ok = r && clang_EvalResult_getKind(r) == CXEval_Int;
        if (ok)
            *value = clang_EvalResult_getAsLongLong(r);
        if (r)
            clang_EvalResult_dispose(r);
        return ok;
    }
    default:
        return false;
    }
}

static const PTok *eval_peek(Eval *e) { return e->pos < e->n ? &e->toks[e->pos] : NULL; }

static bool eval_accept(Eval *e, const char *punct)
{
    const PTok *t = eval_peek(e);
    if (t && t->kind == PTOK_PUNCT && strcmp(t->text, punct) == 0) {
        e->pos++;
        return true;
    }
    return false;
}

static long long eval_primary(Eval *e)
{
    const PTok *t = eval_peek(e);
    if (!t) {
        e->ok = false;
        return 0;
    }
    if (eval_accept(e, "(")) {
        long long v = eval_expr(e);
        if (!eval_accept(e, ")"))
            e->ok = false;
        return v;
    }
    if (eval_accept(e, "-"))
        return -eval_primary(e);
    if (eval_accept(e, "+"))
        return eval_primary(e);
    e->pos++;
    if (t->kind == PTOK_NUMBER) {
        char *end;
        long long v = strtoll(t->text, &end, 0);
        while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
            end++;
        if (*end)
            e->ok = false;
        return v;
    }
    long long v = 0;
    if (t->kind != PTOK_IDENT || !resolve_identifier(e, t->text, &v))
        e->ok = false;
    return v;
}

static long long eval_term(Eval *e)
{
    long long v = eval_primary(e);
    for (;;) {
        if (eval_accept(e, "*"))
            v *= eval_primary(e);
        else if (eval_accept(e, "/") || eval_accept(e, "%")) {
            bool div = strcmp(e->toks[e->pos - 1].text, "/") == 0;
            long long r = eval_primary(e);
            if (r == 0) {
                e->ok = false;
                return 0;
            }
            v = div ? v / r : v % r;
        } else
            return v;
    }
}

static long long eval_sum(Eval *e)
{
    long long v = eval_term(e);
    for (;;) {
        if (eval_accept(e, "+"))
            v += eval_term(e);
        else if (eval_accept(e, "-"))
            v -= eval_term(e);
        else
            return v;
    }
}

static long long eval_expr(Eval *e)
{
    long long v = eval_sum(e);
    for (;;) {
        if (eval_accept(e, "<<"))
            v <<= eval_sum(e);
        else if (eval_accept(e, ">>"))
            v >>= eval_sum(e);
        else
            return v;
    }
}

bool eval_pragma_int(FrontEnd *fe, const PArg *arg, long long *value)
{
    Vec expanded = {0}, active = {0};
    bool ok = expand_tokens(fe, arg->toks, arg->ntoks, &expanded, &active);
    PTok *toks = anew((size_t)(expanded.len + 1) * sizeof *toks);
    for (int i = 0; i < expanded.len; i++)
        toks[i] = *(const PTok *)expanded.items[i];
    Eval e = {fe, toks, expanded.len, 0, ok, arg->loc};
    *value = eval_expr(&e);
    if (e.ok && e.pos == e.n && e.n > 0)
        return true;
    char *text = parg_text(arg);
    error_at(arg->loc, "'%s' is not an integer constant (expected a number, an enum constant or a macro)", text);
    free(text);
    return false;
}

/* Evaluates a clause with one integer argument; false after reporting. */
static bool clause_int(Builder *b, const PClause *cl, long long lo, long long hi, long long *value)
{
    if (!eval_pragma_int(b->fe, &cl->args[0], value))
        return false;
    if (*value < lo || *value > hi) {
        error_at(cl->args[0].loc, "%s(%lld) is out of range: expected %lld to %lld", cl->name, *value, lo, hi);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Parameters                                                                */
/* ------------------------------------------------------------------------ */

/* The bracketed extents after a parameter's name: `x[rows][cols]` or
 * `(*x)[cols]` (whose first extent is unknown). */
static int declarator_extents(Builder *b, CXCursor parm, const char *name, char **extents)
{
    CXToken *toks;
    unsigned n;
    clang_tokenize(b->fe->tu, clang_getCursorExtent(parm), &toks, &n);
    int rank = 0, depth = 0;
    bool after_name = false, pointer_form = false;
    Str cur = {0};
    for (unsigned i = 0; i < n; i++) {
        char *t = cx_take(clang_getTokenSpelling(b->fe->tu, toks[i]));
        if (!after_name) {
            if (strcmp(t, "*") == 0 && i + 1 < n)
                pointer_form = true;
            if (strcmp(t, name) == 0)
                after_name = true;
            continue;
        }
        if (strcmp(t, "[") == 0 && depth++ == 0)
            continue;
        if (strcmp(t, "]") == 0 && --depth == 0) {
            if (rank < IR_MAX_RANK)
                extents[rank++] = cur.len ? atake(&cur) : NULL;
            str_free(&cur);
            continue;
        }
        if (depth > 0)
            str_addf(&cur, "%s%s", cur.len ? " " : "", t);
    }
    str_free(&cur);
    clang_disposeTokens(b->fe->tu, toks, n);
    if (pointer_form && rank > 0) {
        memmove(extents + 1, extents, (size_t)(IR_MAX_RANK - 1) * sizeof *extents);
        extents[0] = NULL;
        rank++;
    }
    return rank;
}

static bool build_buffer_param(Builder *b, CXCursor parm, IrParam *p, CXType t)
{
    IrBuffer *buf = anew(sizeof *buf);
    buf->name = p->name;
    buf->space = SPACE_GLOBAL;
    buf->loc = p->loc;
    /* The outermost level is a pointer (or an array, which decays to one);
     * every level below it must be an array. */
    CXType elem = t;
    int levels = 0;
    for (;;) {
        CXType canon = clang_getCanonicalType(elem);
        bool is_array = canon.kind == CXType_ConstantArray || canon.kind == CXType_VariableArray ||
                        canon.kind == CXType_IncompleteArray || canon.kind == CXType_DependentSizedArray;
        if (canon.kind == CXType_Pointer && levels > 0) {
            error_at(p->loc, "parameter '%s': pointers to pointers are not supported in kernels", p->name);
            return false;
        }
        if (canon.kind == CXType_Pointer)
            elem = clang_getPointeeType(elem);
        else if (is_array)
            elem = clang_getArrayElementType(elem);
        else
            break;
        levels++;
    }
    if (levels > IR_MAX_RANK) {
        error_at(p->loc, "parameter '%s': arrays of more than %d dimensions are not supported", p->name, IR_MAX_RANK);
        return false;
    }
    buf->elem = ir_type(elem);
    buf->is_const = clang_isConstQualifiedType(elem);
    if (buf->elem.kind == SCALAR_OTHER) {
        error_at(p->loc, "parameter '%s': elements of type '%s' are not supported; use arithmetic types, half or bfloat16",
                 p->name, buf->elem.spelling);
        return false;
    }
    char *extents[IR_MAX_RANK] = {0};
    int rank = declarator_extents(b, parm, p->name, extents);
    buf->rank = levels;
    for (int d = 0; d < rank && d < levels; d++)
        buf->extents[levels - rank + d] = extents[d];
    for (int d = 1; d < buf->rank; d++)
        if (!buf->extents[d]) {
            error_at(p->loc, "parameter '%s': cannot find the extent of dimension %d", p->name, d + 1);
            return false;
        }
    p->kind = PARAM_BUFFER;
    p->buf = buf;
    return true;
}

static bool build_param(Builder *b, CXCursor parm)
{
    IrParam *p = anew(sizeof *p);
    p->name = spelling(parm);
    p->loc = loc_of(b, parm);
    if (!*p->name) {
        error_at(p->loc, "kernel parameters need names");
        return false;
    }
    CXType t = clang_getCursorType(parm);
    CXType canon = clang_getCanonicalType(t);
    bool ok = true;
    if (canon.kind == CXType_Pointer || canon.kind == CXType_ConstantArray || canon.kind == CXType_VariableArray ||
        canon.kind == CXType_IncompleteArray)
        ok = build_buffer_param(b, parm, p, t);
    else {
        p->kind = PARAM_SCALAR;
        p->type = ir_type(t);
        if (p->type.kind == SCALAR_OTHER || p->type.kind == SCALAR_HALF || p->type.kind == SCALAR_BF16) {
            error_at(p->loc,
                     "scalar parameter '%s' of type '%s' is not supported in kernels; use an integer, float or double "
                     "(half and bfloat16 scalars are passed differently by C and CUDA)",
                     p->name, p->type.spelling);
            ok = false;
        }
    }
    vec_push(&b->k->params, p);
    return ok;
}

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

static bool invariant_decl(Builder *b, CXCursor decl)
{
    if (param_of(b, decl) && param_of(b, decl)->kind == PARAM_SCALAR)
        return true;
    if (is_kernel_local(b, decl))
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
    } else if (k == CXCursor_ArraySubscriptExpr || k == CXCursor_MemberRefExpr ||
               (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_Deref))
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

static bool const_int(CXCursor e, long long *v)
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

static Affine affine_of(Builder *b, CXCursor e)
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

/* ------------------------------------------------------------------------ */
/* Loop bodies: code text with buffer accesses cut out                       */
/* ------------------------------------------------------------------------ */

typedef enum { USE_READ, USE_WRITE, USE_READ_WRITE, USE_ADDRESS } Use;

typedef struct Walk {
    Builder *b;
    IrCode *code;    /* NULL while walking text that cannot be spliced */
    unsigned pos;    /* next byte of the main file to copy into code */
    unsigned end;
    bool conditional;
    bool nested;     /* inside a subscript of an access */
    int loop_depth;  /* loops and switches inside the body, for break */
    bool failed;
} Walk;

static void walk(Walk *w, CXCursor c, Use use);

static void flush_text(Walk *w, unsigned upto)
{
    if (w->code && upto > w->pos) {
        ir_code_add_text(w->code, w->b->fe->text + w->pos, upto - w->pos);
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
    bool spliceable = w->code && fe_cursor_range(w->b->fe, c, &begin, &end) && begin >= w->pos && end <= w->end &&
                      begin < end && !a->nested;
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
                     "would race (declare it inside the loop; a reduction needs reduce(op: %s))",
                     name, name);
        w->failed = true;
    } else if (kind_of(d) == CXCursor_VarDecl && kind_of(clang_getCursorSemanticParent(d)) == CXCursor_TranslationUnit) {
        error_at(loc, "global variable '%s' is written inside a parallel loop; device code cannot write the CPU's globals",
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
    error_at(loc_of(w->b, c), "%s inside a parallel loop: its iterations run independently on different threads",
             what);
    w->failed = true;
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
    default:
        if (k == CXCursor_DeclStmt || k == CXCursor_NullStmt || clang_isStatement(k) || clang_isExpression(k) ||
            k == CXCursor_InitListExpr)
            walk_children(w, c, 99, USE_READ);
        return;
    }
}

static IrCode *build_body(Builder *b, CXCursor body, bool *failed)
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

/* ------------------------------------------------------------------------ */
/* Canonical loops                                                           */
/* ------------------------------------------------------------------------ */

static bool refers_to(CXCursor ref, CXCursor decl)
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

static bool mentions(CXCursor tree, CXCursor decl)
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

/* Parses `for (T v = lo; v REL hi; v += step)`. */
static bool canonical_loop(Builder *b, CXCursor loop, IrLoop *l, CXCursor *var_out, CXCursor *body_out)
{
    Children ch = children_of(loop);
    l->loc = loc_of(b, loop);
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
    if (l->step_is_const && (l->step_const == 0 || (l->step_const > 0) == l->descending)) {
        error_at(l->loc, "the loop's step goes away from its bound: it would never end");
        return false;
    }
    *var_out = var;
    *body_out = ch.items[3];
    return true;
fail:
    error_at(l->loc, "a parallel loop must have the form 'for (int v = lo; v < hi; v += step)' "
                     "(also <=, >, >=, ++, --, -=)");
    return false;
}

/* The single for loop a body consists of, if it does. */
static bool only_loop_in(CXCursor body, CXCursor *inner)
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

static bool bounds_mention_outer(Builder *b, CXCursor loop, int depth)
{
    Children ch = children_of(loop);
    for (int i = 0; i < 3 && i < ch.n; i++)
        for (int d = 0; d < depth; d++)
            if (mentions(ch.items[i], b->loop_vars[d]))
                return true;
    return false;
}

static IrParallel *build_parallel(Builder *b, CXCursor loop, const Pragma *pragma)
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
        if (!eval_pragma_int(b->fe, &vec->args[0], &v))
            ok = false;
        else if (v < 1 || v > 16 || (v & (v - 1))) {
            error_at(vec->args[0].loc, "vector(%lld): the width must be 1, 2, 4, 8 or 16", v);
            ok = false;
        } else
            par->vector = (int)v;
    }
    const PClause *red = pragma_clause(pragma, "reduce");
    if (red) {
        error_at(red->loc, "reduce(...) is not implemented yet in this version of tilepp");
        ok = false;
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
        if (par->depth == IR_MAX_NEST || !only_loop_in(body, &inner) || fe_attached_on(b->fe, inner))
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
    par->body = build_body(b, body, &failed);
    b->par = NULL;
    return ok && !failed ? par : NULL;
}

/* ------------------------------------------------------------------------ */
/* Kernels                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct UseScan {
    Builder *b;
    Vec *names;
    bool reads_memory;
} UseScan;

static enum CXChildVisitResult scan_uses(CXCursor c, CXCursor parent, CXClientData data)
{
    UseScan *s = data;
    (void)parent;
    enum CXCursorKind k = kind_of(c);
    if (k == CXCursor_DeclRefExpr) {
        CXCursor d = clang_getCursorReferenced(c);
        const IrParam *p = param_of(s->b, d);
        if (p || is_kernel_local(s->b, d))
            vec_push(s->names, spelling(d));
    } else if (k == CXCursor_ArraySubscriptExpr || k == CXCursor_MemberRefExpr ||
               (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_Deref))
        s->reads_memory = true;
    return CXChildVisit_Recurse;
}

static bool build_decl_stmt(Builder *b, CXCursor stmt)
{
    IrStmt *s = anew(sizeof *s);
    s->kind = STMT_DECL;
    s->loc = loc_of(b, stmt);
    Children ch = children_of(stmt);
    for (int i = 0; i < ch.n; i++) {
        CXCursor var = ch.items[i];
        if (kind_of(var) != CXCursor_VarDecl)
            continue;
        CXType t = clang_getCanonicalType(clang_getCursorType(var));
        if (t.kind == CXType_ConstantArray || t.kind == CXType_VariableArray || t.kind == CXType_IncompleteArray) {
            const Attached *a = fe_attached_on(b->fe, stmt);
            if (!a)
                error_at(loc_of(b, var),
                         "array '%s' at kernel level: arrays in kernels need '#pragma tile shared', 'fragment' or "
                         "'local' (not implemented yet in this version)",
                         spelling(var));
            return false;
        }
        if (clang_Cursor_getStorageClass(var) == CX_SC_Static) {
            error_at(loc_of(b, var), "static variables are not supported in kernels");
            return false;
        }
        vec_push(&s->decl_names, spelling(var));
        CXCursor *saved = anew(sizeof *saved);
        *saved = var;
        UseScan scan = {b, &s->decl_uses, false};
        clang_visitChildren(var, scan_uses, &scan);
        s->reads_memory |= scan.reads_memory;
        vec_push(&b->kernel_locals, saved);
    }
    unsigned begin, end;
    if (!fe_cursor_range(b->fe, stmt, &begin, &end)) {
        error_at(s->loc, "declarations produced by macros are not supported at kernel level");
        return false;
    }
    s->code = ir_code_new(s->loc);
    ir_code_add_text(s->code, b->fe->text + begin, end - begin);
    vec_push(&b->k->stmts, s);
    return true;
}

static bool build_kernel_stmt(Builder *b, CXCursor stmt)
{
    enum CXCursorKind k = kind_of(stmt);
    const Attached *a = fe_attached_on(b->fe, stmt);
    if (a && a->pragma->kind == PRAGMA_PARALLEL) {
        use_pragma(b, a->pragma);
        IrParallel *par = build_parallel(b, stmt, a->pragma);
        if (!par)
            return false;
        IrStmt *s = anew(sizeof *s);
        s->kind = STMT_PARALLEL;
        s->loc = par->loc;
        s->par = par;
        vec_push(&b->k->stmts, s);
        return true;
    }
    if (a)
        return false; /* reported as an unimplemented pragma */
    if (k == CXCursor_DeclStmt)
        return build_decl_stmt(b, stmt);
    if (k == CXCursor_NullStmt)
        return true;
    error_at(loc_of(b, stmt),
             "this statement is not inside a '#pragma tile parallel' loop: at the top level of a kernel, this "
             "version of tilepp accepts scalar declarations and parallel loops");
    return false;
}

static void use_pragmas_inside(Builder *b, CXCursor fn)
{
    unsigned begin, end;
    if (!fe_cursor_range(b->fe, fn, &begin, &end))
        return;
    for (int i = 0; i < b->fe->attached.len; i++) {
        const Attached *a = b->fe->attached.items[i];
        if (a->pragma->begin_offset > begin && a->pragma->begin_offset < end)
            use_pragma(b, a->pragma);
    }
}

static bool build_kernel(Builder *b, CXCursor fn, const Pragma *pragma)
{
    IrKernel *k = anew(sizeof *k);
    k->name = spelling(fn);
    k->loc = loc_of(b, fn);
    k->threads = 256;
    b->k = k;
    b->kernel_cursor = fn;
    b->kernel_locals = (Vec){0};
    bool ok = true;
    const PClause *threads = pragma_clause(pragma, "threads");
    long long t = 256;
    if (threads && clause_int(b, threads, 32, 1024, &t)) {
        if (t % 32) {
            error_at(threads->args[0].loc, "threads(%lld) must be a multiple of 32 (the warp size)", t);
            ok = false;
        }
        k->threads = (int)t;
    } else if (threads)
        ok = false;
    CXType ret = clang_getCursorResultType(fn);
    if (ret.kind != CXType_Void) {
        error_at(k->loc, "a kernel returns nothing: '%s' returns '%s'", k->name, cx_take(clang_getTypeSpelling(ret)));
        ok = false;
    }
    if (clang_Cursor_isVariadic(fn)) {
        error_at(k->loc, "a kernel cannot be variadic");
        ok = false;
    }
    int nparams = clang_Cursor_getNumArguments(fn);
    for (int i = 0; i < nparams; i++)
        ok &= build_param(b, clang_Cursor_getArgument(fn, (unsigned)i));
    if (!ok) {
        use_pragmas_inside(b, fn); /* the body was not looked at: no follow-on errors */
        return false;
    }
    Children ch = children_of(fn);
    CXCursor body = clang_getNullCursor();
    for (int i = 0; i < ch.n; i++)
        if (kind_of(ch.items[i]) == CXCursor_CompoundStmt)
            body = ch.items[i];
    Children stmts = children_of(body);
    for (int i = 0; i < stmts.n; i++)
        ok &= build_kernel_stmt(b, stmts.items[i]);
    if (stmts.n >= (int)(sizeof stmts.items / sizeof stmts.items[0])) {
        error_at(k->loc, "kernel '%s' has too many top-level statements", k->name);
        ok = false;
    }
    bool any_parallel = false;
    for (int i = 0; i < k->stmts.len; i++)
        any_parallel |= ((IrStmt *)k->stmts.items[i])->kind == STMT_PARALLEL;
    if (ok && !any_parallel) {
        error_at(k->loc, "kernel '%s' has no '#pragma tile parallel' loop: nothing to spread over the GPU", k->name);
        ok = false;
    }
    vec_push(&b->m->kernels, k);
    b->k = NULL;
    return ok;
}

/* ------------------------------------------------------------------------ */
/* The prelude: what device code needs from the rest of the file             */
/* ------------------------------------------------------------------------ */

typedef struct PreludeItem {
    CXCursor cursor;
    unsigned begin;
} PreludeItem;

typedef struct Closure {
    Builder *b;
    Vec items; /* PreludeItem*: top-level declarations the kernels use */
    bool failed;
} Closure;

/* A const object: for an array, its elements are const. */
static bool is_const_object(CXType t)
{
    while (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray || t.kind == CXType_VariableArray)
        t = clang_getArrayElementType(t);
    return clang_isConstQualifiedType(t);
}

static bool is_kernel_function(Builder *b, CXCursor fn) { return fe_pragma_on(b->fe, fn, PRAGMA_KERNEL) != NULL; }

static CXCursor top_level_of(CXCursor d)
{
    for (int guard = 0; guard < 64; guard++) {
        CXCursor parent = clang_getCursorSemanticParent(d);
        if (clang_Cursor_isNull(parent) || kind_of(parent) == CXCursor_TranslationUnit)
            return d;
        d = parent;
    }
    return d;
}

static void close_over(Closure *cl, CXCursor root);

static void add_to_prelude(Closure *cl, CXCursor d, CXCursor user)
{
    Builder *b = cl->b;
    if (kind_of(d) == CXCursor_FunctionDecl) {
        CXCursor def = clang_getCursorDefinition(d);
        if (clang_Location_isInSystemHeader(clang_getCursorLocation(d)))
            return; /* the C library: CUDA has device versions of the math functions */
        if (clang_Cursor_isNull(def)) {
            if (!fe_in_main_file(b->fe, d))
                return; /* declared in a user header: its definition must come from there */
            error_at(loc_of(b, user), "kernels can call only functions defined in this file; '%s' has no definition here",
                     spelling(d));
            cl->failed = true;
            return;
        }
        d = def;
        if (is_kernel_function(b, d)) {
            error_at(loc_of(b, user), "a kernel cannot call another kernel ('%s')", spelling(d));
            cl->failed = true;
            return;
        }
    }
    if (!fe_in_main_file(b->fe, d))
        return; /* comes with the #include that declared it */
    CXCursor top = top_level_of(d);
    if (kind_of(top) == CXCursor_FunctionDecl && is_kernel_function(b, top))
        return; /* a parameter or local of a kernel */
    if (kind_of(top) == CXCursor_VarDecl && !is_const_object(clang_getCursorType(top))) {
        error_at(loc_of(b, user),
                 "kernels cannot read the global variable '%s': the GPU does not see the CPU's globals; pass it as a "
                 "parameter or make it const",
                 spelling(top));
        cl->failed = true;
        return;
    }
    for (int i = 0; i < cl->items.len; i++)
        if (clang_equalCursors(((PreludeItem *)cl->items.items[i])->cursor, top))
            return;
    PreludeItem *item = anew(sizeof *item);
    unsigned end;
    item->cursor = top;
    fe_cursor_range(b->fe, top, &item->begin, &end);
    vec_push(&cl->items, item);
    close_over(cl, top);
}

static enum CXChildVisitResult visit_references(CXCursor c, CXCursor parent, CXClientData data)
{
    Closure *cl = data;
    (void)parent;
    enum CXCursorKind k = kind_of(c);
    /* A call's callee is a DeclRefExpr below it: calls need no case of their own. */
    if (k == CXCursor_DeclRefExpr || k == CXCursor_TypeRef || k == CXCursor_MemberRefExpr) {
        CXCursor d = clang_getCursorReferenced(c);
        if (!clang_Cursor_isNull(d))
            add_to_prelude(cl, d, c);
    }
    return CXChildVisit_Recurse;
}

static void close_over(Closure *cl, CXCursor root) { clang_visitChildren(root, visit_references, cl); }

static void add_prelude(Builder *b, IrPreludeKind kind, CXCursor c, const char *text, unsigned begin, Vec *sorted)
{
    IrPrelude *p = anew(sizeof *p);
    p->kind = kind;
    p->text = astrdup(text);
    p->loc = loc_of(b, c);
    p->is_static = clang_Cursor_getStorageClass(c) == CX_SC_Static;
    unsigned *key = anew(sizeof *key);
    *key = begin;
    vec_push(sorted, key);
    vec_push(sorted, p);
}

static enum CXChildVisitResult collect_directives(CXCursor c, CXCursor parent, CXClientData data)
{
    void **ctx = data;
    Builder *b = ctx[0];
    Vec *sorted = ctx[1];
    (void)parent;
    enum CXCursorKind k = kind_of(c);
    unsigned begin, end;
    if ((k != CXCursor_MacroDefinition && k != CXCursor_InclusionDirective) || clang_Cursor_isMacroBuiltin(c) ||
        !fe_cursor_range(b->fe, c, &begin, &end))
        return CXChildVisit_Continue;
    char *text = astrndup(b->fe->text + begin, end - begin);
    if (k == CXCursor_MacroDefinition)
        add_prelude(b, PRELUDE_MACRO, c, aprintf("#define %s", text), begin, sorted);
    else
        add_prelude(b, PRELUDE_INCLUDE, c, text, begin, sorted);
    return CXChildVisit_Continue;
}

static bool inside_other_item(Builder *b, const Closure *cl, const PreludeItem *item)
{
    unsigned begin, end;
    fe_cursor_range(b->fe, item->cursor, &begin, &end);
    for (int i = 0; i < cl->items.len; i++) {
        const PreludeItem *other = cl->items.items[i];
        unsigned ob, oe;
        if (other != item && fe_cursor_range(b->fe, other->cursor, &ob, &oe) && ob <= begin && end <= oe &&
            (ob < begin || end < oe))
            return true;
    }
    return false;
}

static IrPreludeKind prelude_kind(CXCursor c)
{
    switch (kind_of(c)) {
    case CXCursor_FunctionDecl:
        return PRELUDE_FUNCTION;
    case CXCursor_VarDecl:
        return PRELUDE_VARIABLE;
    default:
        return PRELUDE_DECL;
    }
}

static bool build_prelude(Builder *b)
{
    Closure cl = {b, {0}, false};
    for (int i = 0; i < b->fe->attached.len; i++) {
        const Attached *a = b->fe->attached.items[i];
        if (a->pragma->kind == PRAGMA_KERNEL)
            close_over(&cl, a->target);
    }
    /* (offset, item) pairs, sorted below into source order */
    Vec sorted = {0};
    void *ctx[2] = {b, &sorted};
    clang_visitChildren(clang_getTranslationUnitCursor(b->fe->tu), collect_directives, ctx);
    for (int i = 0; i < cl.items.len; i++) {
        PreludeItem *item = cl.items.items[i];
        if (inside_other_item(b, &cl, item))
            continue; /* `struct {...}` of `typedef struct {...} name`: comes with the typedef */
        add_prelude(b, prelude_kind(item->cursor), item->cursor, fe_cursor_text(b->fe, item->cursor), item->begin,
                    &sorted);
    }
    int n = sorted.len / 2;
    for (int i = 1; i < n; i++) /* insertion sort by offset: preludes are short */
        for (int j = i; j > 0 && *(unsigned *)sorted.items[2 * j] < *(unsigned *)sorted.items[2 * (j - 1)]; j--) {
            void *k0 = sorted.items[2 * j], *v0 = sorted.items[2 * j + 1];
            sorted.items[2 * j] = sorted.items[2 * (j - 1)];
            sorted.items[2 * j + 1] = sorted.items[2 * (j - 1) + 1];
            sorted.items[2 * (j - 1)] = k0;
            sorted.items[2 * (j - 1) + 1] = v0;
        }
    for (int i = 0; i < n; i++)
        vec_push(&b->m->prelude, sorted.items[2 * i + 1]);
    return !cl.failed;
}

/* ------------------------------------------------------------------------ */

static void refuse_unimplemented(Builder *b)
{
    for (int i = 0; i < b->fe->attached.len; i++) {
        const Attached *a = b->fe->attached.items[i];
        if (pragma_used(b, a->pragma))
            continue;
        PragmaKind k = a->pragma->kind;
        if (k == PRAGMA_PARALLEL)
            error_at(a->pragma->loc, "'#pragma tile parallel' must be inside a '#pragma tile kernel' function, "
                                     "at the top level of its body");
        else
            error_at(a->pragma->loc,
                     "'#pragma tile %s' is not implemented yet in this version of tilepp (it comes with the tile "
                     "language core: grid, shared, fragment, pipelined, gemm, tune)",
                     pragma_kind_name(k));
    }
}

IrModule *build_ir(FrontEnd *fe)
{
    Builder b = {.fe = fe};
    b.m = ir_module_new(fe->path);
    int errors = diag_error_count();
    for (int i = 0; i < fe->attached.len; i++) {
        const Attached *a = fe->attached.items[i];
        if (a->pragma->kind != PRAGMA_KERNEL)
            continue;
        use_pragma(&b, a->pragma);
        build_kernel(&b, a->target, a->pragma);
    }
    refuse_unimplemented(&b);
    build_prelude(&b);
    return diag_error_count() > errors ? NULL : b.m;
}

/* const_eval.c — integer constants in pragma clauses (numbers, enum constants,
 * object-like macros expanded as the preprocessor does, const globals). */
#include "build_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Integer constants in pragma clauses                                       */
/* ------------------------------------------------------------------------ */

typedef struct Eval {
    FrontEnd *fe;
    const PTok *toks;
    int n, pos;
    bool ok;
    bool overflow;
    int depth;
    SrcLoc loc;
} Eval;

enum { EVAL_MAX_DEPTH = 200 };

static long long eval_expr(Eval *e);

/* The definition of a name in effect at byte `at` of the main file: the last
 * one before it there, else one from a header or the command line. */
typedef struct FindName {
    const FrontEnd *fe;
    const char *name;
    unsigned at;
    CXCursor found;
    bool ok;
    bool found_in_main;
    unsigned found_offset;
} FindName;

static void consider(FindName *f, CXCursor c)
{
    unsigned b, e;
    bool in_main = fe_cursor_range(f->fe, c, &b, &e);
    if (in_main && b >= f->at)
        return; /* defined after the pragma */
    if (f->ok && f->found_in_main && !in_main)
        return;
    if (f->ok && in_main && f->found_in_main && b < f->found_offset)
        return;
    f->found = c;
    f->ok = true;
    f->found_in_main = in_main;
    f->found_offset = in_main ? b : 0;
}

static enum CXChildVisitResult find_named(CXCursor c, CXCursor parent, CXClientData data)
{
    FindName *f = data;
    (void)parent;
    enum CXCursorKind k = kind_of(c);
    if (k == CXCursor_EnumDecl)
        return CXChildVisit_Recurse;
    if ((k == CXCursor_EnumConstantDecl || k == CXCursor_MacroDefinition || k == CXCursor_VarDecl) &&
        strcmp(spelling(c), f->name) == 0)
        consider(f, c);
    return CXChildVisit_Continue;
}

/* An #undef of the name between its definition and `at` hides it. */
static bool undefined_since(const FrontEnd *fe, const FindName *f)
{
    for (int i = 0; i < fe->undefs.len; i++) {
        const Undef *u = fe->undefs.items[i];
        if (strcmp(u->name, f->name) == 0 && u->offset < f->at && (!f->found_in_main || u->offset > f->found_offset))
            return true;
    }
    return false;
}

static FindName find_definition(FrontEnd *fe, const char *name, unsigned at)
{
    FindName f = {fe, name, at, clang_getNullCursor(), false, false, 0};
    clang_visitChildren(clang_getTranslationUnitCursor(fe->tu), find_named, &f);
    if (f.ok && kind_of(f.found) == CXCursor_MacroDefinition && undefined_since(fe, &f))
        f.ok = false;
    return f;
}

bool find_constant(FrontEnd *fe, const char *name, unsigned at, CXCursor *out)
{
    FindName f = find_definition(fe, name, at);
    *out = f.found;
    return f.ok;
}

/* Appends the tokens of `toks`, replacing object-like macros by their
 * bodies, as the preprocessor would (no parentheses added). */
static bool expand_tokens(FrontEnd *fe, const PTok *toks, int n, unsigned at, Vec *out, Vec *active)
{
    for (int i = 0; i < n; i++) {
        const PTok *t = &toks[i];
        FindName f = t->kind == PTOK_IDENT ? find_definition(fe, t->text, at) : (FindName){0};
        bool expanding = false;
        for (int a = 0; a < active->len; a++)
            expanding |= strcmp(active->items[a], t->text) == 0;
        if (!f.ok || kind_of(f.found) != CXCursor_MacroDefinition || expanding) {
            vec_push(out, (void *)t);
            continue;
        }
        if (clang_Cursor_isMacroFunctionLike(f.found) || active->len > 32 || out->len > 4096)
            return false;
        CXToken *body;
        unsigned nbody;
        clang_tokenize(fe->tu, clang_getCursorExtent(f.found), &body, &nbody);
        PTok *ptoks = anew((size_t)(nbody + 1) * sizeof *ptoks);
        int count = 0;
        for (unsigned j = 1; j < nbody; j++) /* token 0 is the macro's name */
            ptoks[count++] = (PTok){ptok_kind(clang_getTokenKind(body[j])),
                                    cx_take(clang_getTokenSpelling(fe->tu, body[j])), t->loc};
        clang_disposeTokens(fe->tu, body, nbody);
        vec_push(active, t->text);
        bool ok = expand_tokens(fe, ptoks, count, at, out, active);
        active->len--;
        if (!ok)
            return false;
    }
    return true;
}

static bool resolve_identifier(Eval *e, const char *name, long long *value)
{
    FindName f = find_definition(e->fe, name, UINT32_MAX);
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

static long long fail(Eval *e, bool overflow)
{
    e->ok = false;
    e->overflow |= overflow;
    return 0;
}

static long long eval_number(Eval *e, const char *text)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno == ERANGE || v > LLONG_MAX)
        return fail(e, true);
    while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
        end++;
    return *end ? fail(e, false) : (long long)v;
}

static long long eval_primary(Eval *e)
{
    const PTok *t = eval_peek(e);
    if (!t || ++e->depth > EVAL_MAX_DEPTH)
        return fail(e, false);
    long long v = 0;
    if (eval_accept(e, "(")) {
        v = eval_expr(e);
        if (!eval_accept(e, ")"))
            fail(e, false);
    } else if (eval_accept(e, "-")) {
        v = eval_primary(e);
        v = v == LLONG_MIN ? fail(e, true) : -v;
    } else if (eval_accept(e, "+")) {
        v = eval_primary(e);
    } else {
        e->pos++;
        if (t->kind == PTOK_NUMBER)
            v = eval_number(e, t->text);
        else if (t->kind != PTOK_IDENT || !resolve_identifier(e, t->text, &v))
            fail(e, false);
    }
    e->depth--;
    return v;
}

static long long eval_term(Eval *e)
{
    long long v = eval_primary(e);
    for (;;) {
        long long r;
        if (eval_accept(e, "*")) {
            r = eval_primary(e);
            if (__builtin_mul_overflow(v, r, &v))
                return fail(e, true);
        } else if (eval_accept(e, "/") || eval_accept(e, "%")) {
            bool div = strcmp(e->toks[e->pos - 1].text, "/") == 0;
            r = eval_primary(e);
            if (r == 0 || (v == LLONG_MIN && r == -1))
                return fail(e, r != 0);
            v = div ? v / r : v % r;
        } else
            return v;
    }
}

static long long eval_sum(Eval *e)
{
    long long v = eval_term(e);
    for (;;) {
        if (eval_accept(e, "+")) {
            if (__builtin_add_overflow(v, eval_term(e), &v))
                return fail(e, true);
        } else if (eval_accept(e, "-")) {
            if (__builtin_sub_overflow(v, eval_term(e), &v))
                return fail(e, true);
        } else
            return v;
    }
}

static long long eval_expr(Eval *e)
{
    if (++e->depth > EVAL_MAX_DEPTH)
        return fail(e, false);
    long long v = eval_sum(e);
    for (;;) {
        bool left = eval_accept(e, "<<");
        if (!left && !eval_accept(e, ">>"))
            break;
        long long s = eval_sum(e);
        if (s < 0 || s > 62 || v < 0 || (left && v > (LLONG_MAX >> s))) {
            fail(e, true);
            break;
        }
        v = left ? v << s : v >> s;
    }
    e->depth--;
    return v;
}

/* Evaluates `arg`; on failure *overflow says whether it was an overflow. */
static bool eval_arg(FrontEnd *fe, const PArg *arg, unsigned at, long long *value, bool *overflow)
{
    Vec expanded = {0}, active = {0};
    bool ok = expand_tokens(fe, arg->toks, arg->ntoks, at, &expanded, &active);
    PTok *toks = anew((size_t)(expanded.len + 1) * sizeof *toks);
    for (int i = 0; i < expanded.len; i++)
        toks[i] = *(const PTok *)expanded.items[i];
    Eval e = {fe, toks, expanded.len, 0, ok, false, 0, arg->loc};
    *value = eval_expr(&e);
    *overflow = e.overflow;
    return e.ok && e.pos == e.n && e.n > 0;
}

bool expand_pragma_tokens(FrontEnd *fe, const PTok *toks, int n, unsigned at, Vec *out)
{
    Vec active = {0};
    return expand_tokens(fe, toks, n, at, out, &active);
}

bool eval_pragma_int_quiet(FrontEnd *fe, const PArg *arg, unsigned at, long long *value)
{
    bool overflow;
    return eval_arg(fe, arg, at, value, &overflow);
}

bool eval_pragma_int(FrontEnd *fe, const PArg *arg, unsigned at, long long *value)
{
    bool overflow;
    if (eval_arg(fe, arg, at, value, &overflow))
        return true;
    char *text = parg_text(arg);
    if (overflow)
        error_at(arg->loc, "'%s' overflows a 64-bit integer", text);
    else
        error_at(arg->loc, "'%s' is not an integer constant (expected a number, an enum constant or a macro)", text);
    free(text);
    return false;
}

/* Evaluates a clause with one integer argument; false after reporting. */
bool clause_int(Builder *b, const Pragma *p, const PClause *cl, long long lo, long long hi, long long *value)
{
    if (!eval_pragma_int(b->fe, &cl->args[0], p->begin_offset, value))
        return false;
    if (*value < lo || *value > hi) {
        error_at(cl->args[0].loc, "%s(%lld) is out of range: expected %lld to %lld", cl->name, *value, lo, hi);
        return false;
    }
    return true;
}

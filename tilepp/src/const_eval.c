/* const_eval.c — integer constants in pragma clauses (numbers, enum constants,
 * object-like macros expanded as the preprocessor does, const globals). */
#include "build_internal.h"

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
bool clause_int(Builder *b, const PClause *cl, long long lo, long long hi, long long *value)
{
    if (!eval_pragma_int(b->fe, &cl->args[0], value))
        return false;
    if (*value < lo || *value > hi) {
        error_at(cl->args[0].loc, "%s(%lld) is out of range: expected %lld to %lld", cl->name, *value, lo, hi);
        return false;
    }
    return true;
}

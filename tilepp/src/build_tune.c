/* build_tune.c — `#pragma tile tune NAME(v1, v2, ...) ...` on a kernel: the
 * space of constants it is tuned over, and where the file defines each one.
 *
 * A point of the space is the file with those definitions rewritten
 * (tune.c): every use of the constant, in the kernel, in the helpers it
 * calls, in other constants computed from it, then sees the point's value,
 * exactly as if the user had edited the file. So a NAME must be defined in
 * the file itself: an enum constant, an object-like macro or a const integer
 * variable at file scope. */
#include "build_internal.h"

#include <stdint.h>
#include <string.h>

/* Each point is one more translation of the file and one more kernel for
 * nvcc: a space larger than this is a mistake, not a search. */
enum { TUNE_MAX_POINTS = 1024 };

/* The file's value of the macro `name`, as the pragmas see it. */
static bool macro_value(Builder *b, const char *name, SrcLoc loc, long long *value)
{
    PTok tok = {PTOK_IDENT, (char *)name, loc};
    PArg arg = {&tok, 1, loc};
    return eval_pragma_int_quiet(b->fe, &arg, UINT32_MAX, value);
}

/* The initializer of a const variable: its last child that is an expression. */
static CXCursor initializer_of(CXCursor var)
{
    Children ch = children_of(var);
    for (int i = ch.n - 1; i >= 0; i--)
        if (clang_isExpression(kind_of(ch.items[i])))
            return ch.items[i];
    return clang_getNullCursor();
}

static bool range_of(Builder *b, CXCursor c, IrTuneParam *tp)
{
    return fe_cursor_range(b->fe, c, &tp->def_begin, &tp->def_end) && tp->def_begin < tp->def_end;
}

static bool enum_definition(Builder *b, CXCursor def, IrTuneParam *tp)
{
    tp->source_value = clang_getEnumConstantDeclValue(def);
    CXCursor init = initializer_of(def);
    if (!clang_Cursor_isNull(init))
        return range_of(b, init, tp);
    unsigned begin;
    if (!fe_cursor_range(b->fe, def, &begin, &tp->def_end))
        return false;
    tp->def_begin = tp->def_end; /* " = value" goes after the name */
    tp->insert_eq = true;
    return true;
}

static bool macro_definition(Builder *b, CXCursor def, IrTuneParam *tp)
{
    if (clang_Cursor_isMacroFunctionLike(def)) {
        error_at(tp->loc,
                 "'%s' is a function-like macro: tune varies a constant (an enum constant, an object-like "
                 "macro or a const integer variable)",
                 tp->name);
        return false;
    }
    unsigned begin, end;
    if (!fe_cursor_range(b->fe, def, &begin, &end))
        return false;
    if (!macro_value(b, tp->name, tp->loc, &tp->source_value)) {
        error_at(tp->loc, "the macro '%s' is not an integer constant: tune varies integer constants", tp->name);
        return false;
    }
    tp->def_begin = begin + (unsigned)strlen(tp->name); /* the body, after the name and its blanks */
    tp->def_end = end;
    while (tp->def_begin < end && (b->fe->text[tp->def_begin] == ' ' || b->fe->text[tp->def_begin] == '\t'))
        tp->def_begin++;
    tp->after_name = tp->def_begin == end;
    return true;
}

static bool variable_definition(Builder *b, CXCursor def, IrTuneParam *tp)
{
    CXType t = clang_getCursorType(def);
    int size;
    bool is_signed;
    CXCursor init = initializer_of(def);
    bool file_scope = kind_of(clang_getCursorSemanticParent(def)) == CXCursor_TranslationUnit;
    if (!clang_isConstQualifiedType(t) || scalar_kind(t, &size, &is_signed) != SCALAR_INT || !file_scope ||
        clang_Cursor_isNull(init)) {
        error_at(tp->loc,
                 "'%s' is not a constant: tune varies an enum constant, an object-like macro or a const "
                 "integer variable with an initializer at file scope",
                 tp->name);
        return false;
    }
    CXEvalResult r = clang_Cursor_Evaluate(def);
    bool ok = r && clang_EvalResult_getKind(r) == CXEval_Int;
    if (ok)
        tp->source_value = clang_EvalResult_getAsLongLong(r);
    if (r)
        clang_EvalResult_dispose(r);
    if (!ok) {
        error_at(tp->loc, "the initializer of '%s' is not an integer constant", tp->name);
        return false;
    }
    return range_of(b, init, tp);
}

/* Where the file defines tp->name before the kernel at byte `at`. */
static bool find_tuned_definition(Builder *b, unsigned at, IrTuneParam *tp)
{
    CXCursor def;
    if (!find_constant(b->fe, tp->name, at, &def)) {
        error_at(tp->loc,
                 "'%s' is not defined before the kernel: tune varies an enum constant, an object-like macro "
                 "or a const integer variable that this file defines",
                 tp->name);
        return false;
    }
    if (!fe_in_main_file(b->fe, def)) {
        CXFile file;
        clang_getExpansionLocation(clang_getCursorLocation(def), &file, NULL, NULL, NULL);
        const char *where = file ? cx_take(clang_getFileName(file)) : "";
        error_at(tp->loc,
                 "'%s' is defined in %s, not in this file: tune can vary only a constant that the file itself "
                 "defines",
                 tp->name, *where ? where : "the command line");
        return false;
    }
    int errors = diag_error_count();
    bool ok;
    switch (kind_of(def)) {
    case CXCursor_EnumConstantDecl:
        ok = enum_definition(b, def, tp);
        break;
    case CXCursor_MacroDefinition:
        ok = macro_definition(b, def, tp);
        break;
    case CXCursor_VarDecl:
        ok = variable_definition(b, def, tp);
        break;
    default:
        error_at(tp->loc, "'%s' is not a constant that tune can vary", tp->name);
        return false;
    }
    if (!ok && diag_error_count() == errors)
        error_at(tp->loc, "the definition of '%s' could not be located in the file", tp->name);
    return ok;
}

static bool build_values(Builder *b, const Pragma *tune, const PClause *cl, IrTuneParam *tp)
{
    tp->values = anew((size_t)cl->nargs * sizeof *tp->values);
    for (int i = 0; i < cl->nargs; i++) {
        if (!eval_pragma_int(b->fe, &cl->args[i], tune->begin_offset, &tp->values[i]))
            return false;
        for (int j = 0; j < i; j++)
            if (tp->values[j] == tp->values[i]) {
                error_at(cl->args[i].loc, "%s(%lld) is listed twice", tp->name, tp->values[i]);
                return false;
            }
        tp->nvalues++;
    }
    return true;
}

/* The tuner runs every variant on the caller's arrays, so it saves and
 * restores what the kernel writes and compares the variants' results: it
 * must know the extents of the written arrays, the same for every point. */
static bool params_fit_tuning(const IrKernel *k, const IrTune *t)
{
    bool ok = true;
    for (int i = 0; i < k->params.len; i++) {
        const IrParam *p = k->params.items[i];
        if (p->kind != PARAM_BUFFER)
            continue;
        const IrBuffer *buf = p->buf;
        for (int d = 0; d < buf->rank && !buf->is_const; d++)
            if (!buf->extents[d]) {
                error_at(p->loc,
                         "a tuned kernel's written arrays need their extents: the tuner saves, restores and "
                         "compares what each variant writes; declare '%s' with its length, as in '%s %s[n]'",
                         p->name, unqualified(buf->elem.spelling), p->name);
                ok = false;
                break;
            }
        for (int d = 0; d < buf->rank; d++)
            for (int j = 0; j < t->nparams && buf->extents[d]; j++)
                if (text_mentions(buf->extents[d], t->params[j].name)) {
                    error_at(p->loc,
                             "the extent of '%s' uses the tuned constant '%s': a parameter's type must be the "
                             "same at every point of the space",
                             p->name, t->params[j].name);
                    ok = false;
                }
    }
    return ok;
}

IrTune *build_tune(Builder *b, CXCursor fn, const Pragma *tune)
{
    IrTune *t = anew(sizeof *t);
    t->pragma = tune;
    t->loc = tune->loc;
    t->params = anew((size_t)tune->nclauses * sizeof *t->params);
    t->npoints = 1;
    unsigned at, end;
    if (!fe_cursor_range(b->fe, fn, &at, &end))
        at = tune->begin_offset;
    bool ok = true;
    for (int i = 0; i < tune->nclauses; i++) {
        const PClause *cl = &tune->clauses[i];
        IrTuneParam *tp = &t->params[t->nparams];
        tp->name = astrdup(cl->name);
        tp->loc = cl->loc;
        for (int j = 0; j < t->nparams; j++)
            if (strcmp(t->params[j].name, tp->name) == 0) {
                error_at(cl->loc, "'%s' is tuned twice in this space", tp->name);
                ok = false;
            }
        if (!cl->has_parens || cl->nargs == 0) {
            error_at(cl->loc, "'%s' needs its values: %s(v1, v2, ...)", tp->name, tp->name);
            ok = false;
            continue;
        }
        if (!build_values(b, tune, cl, tp) || !find_tuned_definition(b, at, tp)) {
            ok = false;
            continue;
        }
        t->nparams++;
        t->npoints *= tp->nvalues;
        if (t->npoints > TUNE_MAX_POINTS) {
            error_at(cl->loc,
                     "the tune space has more than %d points (each is a translation and a kernel to compile); "
                     "narrow it",
                     TUNE_MAX_POINTS);
            return NULL;
        }
    }
    if (ok && t->nparams == 0) {
        error_at(tune->kind_loc, "'#pragma tile tune' needs at least one NAME(v1, v2, ...)");
        ok = false;
    }
    return ok && params_fit_tuning(b->k, t) ? t : NULL;
}

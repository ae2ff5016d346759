/* tune.c — the points of a `#pragma tile tune` space, each one a translation
 * of the file with the constants' definitions rewritten (tune.h). */
#include "tune.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "build_ir.h"
#include "check.h"

/* ------------------------------------------------------------------------ */
/* The points                                                               */
/* ------------------------------------------------------------------------ */

/* The values of point `index`: the last parameter varies fastest. */
static long long *point_values(const IrTune *t, long long index)
{
    long long *values = anew((size_t)t->nparams * sizeof *values);
    for (int i = t->nparams - 1; i >= 0; i--) {
        values[i] = t->params[i].values[index % t->params[i].nvalues];
        index /= t->params[i].nvalues;
    }
    return values;
}

static char *point_name(const IrTune *t, const long long *values)
{
    Str s = {0};
    for (int i = 0; i < t->nparams; i++)
        str_addf(&s, "%s%s=%lld", i ? "," : "", t->params[i].name, values[i]);
    return atake(&s);
}

static bool is_source_point(const IrTune *t, const long long *values)
{
    for (int i = 0; i < t->nparams; i++)
        if (values[i] != t->params[i].source_value)
            return false;
    return true;
}

/* The text that replaces a definition's bytes: an enum constant without an
 * initializer gets one; an empty macro body a blank before the value; a
 * negative value is parenthesized, as its uses may follow an operator. */
static char *replacement(const IrTuneParam *tp, long long v)
{
    char *value = v < 0 ? aprintf("(%lld)", v) : aprintf("%lld", v);
    if (tp->insert_eq)
        return aprintf(" = %s", value);
    return tp->after_name ? aprintf(" %s", value) : value;
}

/* The file's text with the point's values in its definitions, which lie at
 * distinct, non-overlapping byte ranges. */
static char *point_text(const TuneContext *ctx, const IrTune *t, const long long *values)
{
    int n = t->nparams;
    int *order = anew((size_t)n * sizeof *order);
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = 1; i < n; i++) /* by position in the file */
        for (int j = i; j > 0 && t->params[order[j]].def_begin < t->params[order[j - 1]].def_begin; j--) {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    Str s = {0};
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        const IrTuneParam *tp = &t->params[order[i]];
        str_addn(&s, ctx->text + at, tp->def_begin - at);
        str_add(&s, replacement(tp, values[order[i]]));
        at = tp->def_end;
    }
    str_addn(&s, ctx->text + at, ctx->len - at);
    return atake(&s);
}

/* ------------------------------------------------------------------------ */
/* One translation                                                          */
/* ------------------------------------------------------------------------ */

/* Keeps only the kernel named `name` in m: the point is that kernel's. */
static void keep_kernel(IrModule *m, const char *name)
{
    int kept = 0;
    for (int i = 0; i < m->kernels.len; i++) {
        IrKernel *k = m->kernels.items[i];
        if (strcmp(k->name, name) == 0)
            m->kernels.items[kept++] = k;
    }
    m->kernels.len = kept;
}

/* Parse, build, check and lower the point's text; NULL when a stage refused
 * it, `said` holding what it said. When the archs asked for are sm_80 and
 * sm_90a and lowering refused the point, it is lowered again, for sm_90a
 * alone (only lowering depends on the archs: the parse and the checks are
 * not repeated), and *sm90a_only says whether that took it; `said` keeps
 * the first lowering's reasons when it did, the second's when it did not.
 * The front end (the libclang parse and the pragmas) is let go at the end:
 * nothing after lowering looks at it. */
static const Plan *translate_point(const TuneContext *ctx, const char *text, const char *kernel, DiagCaptured *said,
                                   bool *sm90a_only)
{
    ParseOptions po = *ctx->parse;
    po.unsaved_text = text;
    const Plan *plan = NULL;
    IrModule *m = NULL;
    diag_capture_begin();
    FrontEnd *fe = frontend_parse(&po);
    if (fe && (m = build_ir(fe)) != NULL) {
        keep_kernel(m, kernel);
        m->archs = ctx->archs;
        m->debug = ctx->debug;
        if (m->kernels.len == 1 && check_module(m))
            plan = lower_module(m);
        else
            m = NULL; /* refused before lowering: no arch takes it */
    }
    *said = diag_capture_end();
    if (!plan && m && (ctx->archs & ARCH_SM80) && (ctx->archs & ARCH_SM90A)) {
        diag_capture_begin();
        m->archs = ARCH_SM90A;
        plan = lower_module(m);
        DiagCaptured again = diag_capture_end();
        *sm90a_only = plan != NULL;
        if (!plan) { /* what refused it on Hopper too says more than the sm_80 reason */
            DiagCaptured first = *said;
            *said = again;
            again = first;
        }
        free(again.text);
        free(again.first_error);
    }
    if (fe)
        frontend_free(fe);
    return plan;
}

/* A point's reason as the generated table shows it: the file by its base
 * name (the build's directories have no place in a program). */
static char *reason_text(const TuneContext *ctx, const char *first_error)
{
    if (!first_error)
        return astrdup("the translation was refused without a reason");
    const char *path = ctx->parse->path;
    size_t n = strlen(path);
    const char *slash = strrchr(path, '/');
    if (slash && strncmp(first_error, path, n) == 0 && first_error[n] == ':')
        return aprintf("%s%s", slash + 1, first_error + n);
    return astrdup(first_error);
}

/* A space (larger tiles, deeper pipelines, more threads) may hold points
 * that only Hopper's shared memory or its warp-specialized kernel's
 * registers take: those are kept, for sm_90a alone (translate_point), and
 * the tuner picks per device. */
static void translate(const TuneContext *ctx, const IrKernel *k, TunePoint *p)
{
    char *text = point_text(ctx, k->tune, p->values);
    DiagCaptured said;
    bool sm90a_only = false;
    p->plan = translate_point(ctx, text, k->name, &said, &sm90a_only);
    if (sm90a_only)
        p->sm90a_only = reason_text(ctx, said.first_error);
    if (!p->plan) {
        p->pruned = reason_text(ctx, said.first_error);
        p->said = astrdup(said.text ? said.text : "");
        p->said_errors = said.errors;
        p->said_warnings = said.warnings;
    }
    free(said.text);
    free(said.first_error);
}

/* ------------------------------------------------------------------------ */
/* The key                                                                  */
/* ------------------------------------------------------------------------ */

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

static uint64_t fnv1a_str(uint64_t h, const char *s) { return fnv1a(h, s, strlen(s) + 1); }

/* What a cached choice depends on besides the GPU and the shapes: tilepp's
 * version (its code generation), the file (the kernel and everything it
 * uses), the space, and the options that change the generated code. */
static void make_key(const TuneContext *ctx, TunedKernel *tk)
{
    uint64_t h = 14695981039346656037ull;
    h = fnv1a_str(h, TILEPP_VERSION);
    h = fnv1a(h, ctx->text, ctx->len);
    h = fnv1a_str(h, tk->k->name);
    for (int i = 0; i < tk->npoints; i++)
        h = fnv1a_str(h, tk->points[i].name);
    unsigned flags = ctx->archs | (ctx->debug ? 0x100u : 0u);
    h = fnv1a(h, &flags, sizeof flags);
    for (int i = 0; i < ctx->parse->nargs; i++)
        h = fnv1a_str(h, ctx->parse->args[i]);
    snprintf(tk->key, sizeof tk->key, "%016llx", (unsigned long long)h);
}

TunedKernel *tune_expand(const TuneContext *ctx, const IrKernel *k)
{
    const IrTune *t = k->tune;
    TunedKernel *tk = anew(sizeof *tk);
    tk->k = k;
    tk->npoints = (int)t->npoints;
    tk->points = anew((size_t)tk->npoints * sizeof *tk->points);
    tk->source_point = -1;
    for (int i = 0; i < tk->npoints; i++) {
        TunePoint *p = &tk->points[i];
        p->values = point_values(t, i);
        p->name = point_name(t, p->values);
        if (is_source_point(t, p->values))
            tk->source_point = i;
        translate(ctx, k, p);
        tk->nvalid += p->plan != NULL;
    }
    make_key(ctx, tk);
    return tk;
}

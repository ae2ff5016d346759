#include "check.h"

#include <string.h>

static bool affine_all_ok(const IrAccess *a)
{
    if (a->escapes)
        return false;
    for (int d = 0; d < a->ndims; d++)
        if (!a->index[d].ok)
            return false;
    return true;
}

static long long gcd(long long a, long long b)
{
    if (a < 0)
        a = -a;
    if (b < 0)
        b = -b;
    while (b) {
        long long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Can two accesses with the same coefficients touch the same element from
 * different iterations? They can when, in every dimension, the difference of
 * their constant offsets is a multiple of the gcd of that dimension's
 * coefficients, and the difference is not zero everywhere. */
static bool conflict_across_iterations(const IrAccess *w, const IrAccess *a, int depth)
{
    if (w->ndims != a->ndims)
        return false;
    bool differ = false;
    for (int d = 0; d < w->ndims; d++) {
        const Affine *x = &w->index[d], *y = &a->index[d];
        if (strcmp(x->rest, y->rest) != 0)
            return false;
        for (int v = 0; v < depth; v++)
            if (x->coef[v] != y->coef[v])
                return false;
        long long delta = x->offset - y->offset;
        if (!delta)
            continue;
        long long g = 0;
        for (int v = 0; v < depth; v++)
            g = gcd(g, x->coef[v]);
        if (g == 0 || delta % g)
            return false;
        differ = true;
    }
    return differ;
}

/* The loop variable (if any) that does not appear in any subscript of a write:
 * all its iterations write the same element. */
static int var_missing_from_write(const IrAccess *w, int depth)
{
    for (int v = 0; v < depth; v++) {
        bool used = false;
        for (int d = 0; d < w->ndims; d++)
            used |= w->index[d].coef[v] != 0;
        if (!used)
            return v;
    }
    return -1;
}

static bool check_parallel(const IrParallel *par)
{
    bool ok = true;
    for (int i = 0; i < par->accesses.len; i++) {
        const IrAccess *w = par->accesses.items[i];
        if (!w->is_write || !affine_all_ok(w))
            continue;
        int v = var_missing_from_write(w, par->depth);
        if (v >= 0) {
            error_at(w->loc,
                     "every iteration of '%s' writes the same element '%s': the iterations would race "
                     "(a reduction needs reduce(...), not implemented yet)",
                     par->loops[v].var, w->text);
            ok = false;
            continue;
        }
        for (int j = 0; j < par->accesses.len; j++) {
            const IrAccess *a = par->accesses.items[j];
            if (a == w || a->buf != w->buf || !affine_all_ok(a))
                continue;
            if (conflict_across_iterations(w, a, par->depth)) {
                error_at(a->loc,
                         "loop-carried dependence: '%s' touches an element that another iteration writes as '%s'; "
                         "the iterations of a parallel loop must be independent",
                         a->text, w->text);
                note_at(w->loc, "the write is here");
                ok = false;
                break;
            }
        }
    }
    return ok;
}

bool check_module(const IrModule *m)
{
    bool ok = true;
    for (int i = 0; i < m->kernels.len; i++) {
        const IrKernel *k = m->kernels.items[i];
        for (int j = 0; j < k->stmts.len; j++) {
            const IrStmt *s = k->stmts.items[j];
            if (s->kind == STMT_PARALLEL)
                ok &= check_parallel(s->par);
        }
    }
    return ok;
}

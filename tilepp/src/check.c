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

typedef enum { NO_CONFLICT, CONFLICT, MAY_CONFLICT } Conflict;

static bool same_coefs(const Affine *x, const Affine *y, int depth)
{
    for (int v = 0; v < depth; v++)
        if (x->coef[v] != y->coef[v])
            return false;
    return true;
}

/* Can the write `w` and the access `a` touch one element from two different
 * iterations? Per dimension, coefW . i + offW + rest = coefA . i' + offA + rest
 * must have an integer solution (the gcd test). With the same coefficients
 * everywhere the solutions are the iterations a constant distance apart, so a
 * non-zero distance is a dependence; with different coefficients (a[i] and
 * a[2 * i], a[i] and a[0], c[i][j] and c[j][i]) solutions with i != i' exist
 * whenever any exists, also when invariant parts differ (a[i] and
 * a[n - 1 - i]). With equal coefficients and unequal invariant parts (a[i]
 * and a[i + n]) the distance is unknown: such pairs are left to the
 * programmer, as OpenMP leaves them. */
static Conflict conflict_across_iterations(const IrAccess *w, const IrAccess *a, int depth)
{
    if (w->ndims != a->ndims)
        return NO_CONFLICT;
    bool all_same = true, distance = false;
    for (int d = 0; d < w->ndims; d++) {
        const Affine *x = &w->index[d], *y = &a->index[d];
        bool same = same_coefs(x, y, depth);
        all_same &= same;
        if (strcmp(x->rest, y->rest) != 0) {
            if (same)
                return NO_CONFLICT;
            continue; /* a[i] and a[n - 1 - i]: solvable for some n, so assume it is */
        }
        long long g = 0;
        for (int v = 0; v < depth; v++)
            g = gcd(gcd(g, x->coef[v]), y->coef[v]);
        long long delta = y->offset - x->offset;
        if (g == 0 ? delta != 0 : delta % g != 0)
            return NO_CONFLICT;
        distance |= delta != 0;
    }
    if (all_same)
        return distance ? CONFLICT : NO_CONFLICT;
    return MAY_CONFLICT;
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
                     "every iteration of '%s' writes the same element '%s': the iterations would race (to combine "
                     "the iterations' values, accumulate into a variable with reduce(op: var) and store it after "
                     "the loop)",
                     par->loops[v].var, w->text);
            ok = false;
            continue;
        }
        for (int j = 0; j < par->accesses.len; j++) {
            const IrAccess *a = par->accesses.items[j];
            if (a == w || a->buf != w->buf || !affine_all_ok(a) || (a->is_write && j < i))
                continue; /* a pair of writes is looked at once */
            Conflict c = conflict_across_iterations(w, a, par->depth);
            if (c == NO_CONFLICT)
                continue;
            error_at(a->loc,
                     "loop-carried dependence: '%s' %s an element that another iteration writes as '%s'; the "
                     "iterations of a parallel loop must be independent",
                     a->text, c == MAY_CONFLICT ? "may touch" : "touches", w->text);
            note_at(w->loc, "the write is here");
            ok = false;
            break;
        }
    }
    return ok;
}

/* The parallel loops of a statement list: at the top level of a kernel, in
 * grid blocks and in their sequential and pipelined loops. */
static bool check_list(const Vec *stmts)
{
    bool ok = true;
    for (int j = 0; j < stmts->len; j++) {
        const IrStmt *s = stmts->items[j];
        if (s->kind == STMT_PARALLEL)
            ok &= check_parallel(s->par);
        else if (s->kind == STMT_GRID)
            ok &= check_list(&s->grid->body);
        else if (s->kind == STMT_SEQ)
            ok &= check_list(&s->seq->body);
        else if (s->kind == STMT_PIPELINED)
            ok &= check_list(&s->pipe->body);
    }
    return ok;
}

bool check_module(const IrModule *m)
{
    bool ok = true;
    for (int i = 0; i < m->kernels.len; i++)
        ok &= check_list(&((const IrKernel *)m->kernels.items[i])->stmts);
    return ok;
}

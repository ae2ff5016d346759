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

/* A loop with constant bounds that runs at most once (`for (j = 0; j < 1;
 * j++)`, a store after a reduction written as a parallel loop): no other
 * iteration of it can write the same element. Descending loops are left to
 * the general rule. */
static bool at_most_one_iteration(const IrLoop *l)
{
    if (!l->bounds_const || !l->step_is_const || l->step_const <= 0 || l->descending)
        return false;
    long long span = l->hi_const - l->lo_const + (l->inclusive ? 1 : 0);
    return span <= l->step_const;
}

/* The loop variable (if any) that does not appear in any subscript of a write:
 * all its iterations write the same element. */
static int var_missing_from_write(const IrAccess *w, const IrLoop *loops, int depth)
{
    for (int v = 0; v < depth; v++) {
        if (at_most_one_iteration(&loops[v]))
            continue;
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
        int v = var_missing_from_write(w, par->loops, par->depth);
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

/* ---- aliasing ---- */

static bool same_affine(const Affine *x, const Affine *y)
{
    return same_coefs(x, y, IR_MAX_NEST) && x->offset == y->offset && strcmp(x->rest, y->rest) == 0;
}

/* Two buffer parameters that C lets a caller pass overlapping: neither
 * declared restrict, elements of one type (signedness aside: C lets int and
 * unsigned alias), and one layout: the same rank and the same extents
 * after the first, as written (a bias b[c] read beside y[r][c], or
 * in[rows][cols] beside out[cols][rows], is taken to be another array). */
static bool may_alias(const IrBuffer *x, const IrBuffer *y)
{
    if (x == y || x->space != SPACE_GLOBAL || y->space != SPACE_GLOBAL || x->is_restrict || y->is_restrict ||
        x->elem.kind != y->elem.kind || x->elem.size != y->elem.size || x->rank != y->rank)
        return false;
    for (int d = 1; d < x->rank; d++) /* the first extent is not part of the layout (`x[n]` is `*x`) */
        if ((x->extents[d] || y->extents[d]) &&
            !(x->extents[d] && y->extents[d] && strcmp(x->extents[d], y->extents[d]) == 0))
            return false;
    return true;
}

/* A read of `r` at another element than the write `w` of another buffer:
 * were the arrays to overlap, the element read could be one that another
 * iteration writes, which the C loop's order decides and the GPU's does
 * not. Both subscripts must be analysed (indirect ones are the
 * programmer's, as for dependences). */
static bool reads_elsewhere(const IrAccess *w, const IrAccess *r)
{
    if (!r->is_read || !affine_all_ok(w) || !affine_all_ok(r) || w->ndims != w->buf->rank || r->ndims != r->buf->rank ||
        w->ndims != r->ndims)
        return false;
    for (int d = 0; d < w->ndims; d++)
        if (!same_affine(&w->index[d], &r->index[d]))
            return true;
    return false;
}

/* The aliasing warning: in a parallel loop, a buffer parameter written at
 * one element and another read at a different one, when the two may be the
 * same memory (see may_alias). Once per pair of buffers per loop, at the
 * first such read, with a note at the write. tilepp itself takes distinct
 * parameters not to overlap (the dependence check, barriers); this says
 * where that assumption decides the result. */
static void warn_aliasing(const IrParallel *par)
{
    Vec warned = {0}; /* pairs (written, read) of IrBuffer*, flattened */
    for (int j = 0; j < par->accesses.len; j++) {
        const IrAccess *r = par->accesses.items[j];
        for (int i = 0; i < par->accesses.len; i++) {
            const IrAccess *w = par->accesses.items[i];
            if (!w->is_write || !may_alias(w->buf, r->buf) || !reads_elsewhere(w, r))
                continue;
            bool seen = false;
            for (int k = 0; k + 1 < warned.len && !seen; k += 2)
                seen = warned.items[k] == w->buf && warned.items[k + 1] == r->buf;
            if (seen)
                continue;
            vec_push(&warned, w->buf);
            vec_push(&warned, r->buf);
            warning_at(r->loc,
                       "'%s' and '%s' may overlap: '%s' reads another element than '%s' writes, and if the "
                       "caller's arrays overlap, the GPU (all iterations at once) computes other values than the C "
                       "(one after another); declare them 'restrict' if they never do",
                       r->buf->name, w->buf->name, r->text, w->text);
            note_at(w->loc, "the write is here");
        }
    }
}

/* The parallel loops of a statement list: at the top level of a kernel, in
 * grid blocks and in their sequential and pipelined loops. */
static bool check_list(const Vec *stmts)
{
    bool ok = true;
    for (int j = 0; j < stmts->len; j++) {
        const IrStmt *s = stmts->items[j];
        if (s->kind == STMT_PARALLEL && check_parallel(s->par))
            warn_aliasing(s->par);
        else if (s->kind == STMT_PARALLEL)
            ok = false;
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

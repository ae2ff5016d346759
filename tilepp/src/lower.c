#include "lower.h"

#include <string.h>

bool same_index(const IrAccess *a, const IrAccess *b, int depth)
{
    for (int d = 0; d < a->ndims; d++) {
        const Affine *x = &a->index[d], *y = &b->index[d];
        if (x->offset != y->offset || strcmp(x->rest, y->rest) != 0)
            return false;
        for (int v = 0; v < depth; v++)
            if (x->coef[v] != y->coef[v])
                return false;
    }
    return true;
}

/* Unit stride in the innermost loop, in the last dimension only. */
static bool contiguous_in_inner(const IrAccess *a, int depth)
{
    if (a->escapes || a->nested || a->conditional || a->ndims != a->buf->rank)
        return false;
    int inner = depth - 1;
    for (int d = 0; d < a->ndims; d++) {
        if (!a->index[d].ok)
            return false;
        long long want = d == a->ndims - 1 ? 1 : 0;
        if (a->index[d].coef[inner] != want)
            return false;
    }
    return true;
}

static VecBuffer *plan_buffer(const IrParallel *par, IrBuffer *buf)
{
    VecBuffer *vb = NULL;
    for (int i = 0; i < par->accesses.len; i++) {
        const IrAccess *a = par->accesses.items[i];
        if (a->buf != buf)
            continue;
        if (!contiguous_in_inner(a, par->depth))
            return NULL;
        if (!vb) {
            vb = anew(sizeof *vb);
            vb->buf = buf;
            vb->access = a;
        } else if (!same_index(vb->access, a, par->depth))
            return NULL;
        vb->load |= a->is_read;
        vb->store |= a->is_write;
    }
    if (vb)
        vb->bytes = par->vector * buf->elem.size;
    return vb;
}

void plan_vectors(ParallelPlan *pp)
{
    const IrParallel *par = pp->par;
    const IrLoop *inner = &par->loops[par->depth - 1];
    if (par->vector == 1)
        return;
    if (!inner->step_is_const || inner->step_const != 1) {
        warning_at(par->vector_loc,
                   "vector(%d): the innermost loop's step is not 1, so its accesses are not contiguous; each thread "
                   "runs %d iterations with scalar accesses",
                   par->vector, par->vector);
        return;
    }
    Vec seen = {0};
    for (int i = 0; i < par->accesses.len; i++) {
        IrBuffer *buf = ((const IrAccess *)par->accesses.items[i])->buf;
        bool done = buf->space != SPACE_GLOBAL; /* tiles: element by element */
        for (int j = 0; j < seen.len; j++)
            done |= seen.items[j] == buf;
        if (done)
            continue;
        vec_push(&seen, buf);
        VecBuffer *vb = plan_buffer(par, buf);
        if (vb)
            vec_push(&pp->vec_buffers, vb);
    }
    if (pp->vec_buffers.len == 0)
        warning_at(par->vector_loc,
                   "vector(%d): no buffer is accessed contiguously along '%s' in every iteration; each thread runs %d "
                   "iterations with scalar accesses",
                   par->vector, inner->var, par->vector);
}

bool loops_mention(const IrLoop *loops, int depth, const char *name)
{
    for (int d = 0; d < depth; d++) {
        const IrLoop *l = &loops[d];
        if (text_mentions(l->lo, name) || text_mentions(l->hi, name) || text_mentions(l->step, name))
            return true;
    }
    return false;
}

static bool reads_name(const IrStmt *decl, const char *name)
{
    for (int u = 0; u < decl->decl_uses.len; u++)
        if (strcmp(decl->decl_uses.items[u], name) == 0)
            return true;
    return false;
}

void needed_decls(const IrKernel *k, int end, bool (*reads)(const void *ctx, const char *name), const void *ctx,
                  Vec *out)
{
    bool *needed = anew((size_t)(end + 1) * sizeof *needed);
    for (int i = end - 1; i >= 0; i--) {
        const IrStmt *s = k->stmts.items[i];
        for (int n = 0; s->kind == STMT_DECL && n < s->decl_names.len && !needed[i]; n++) {
            const char *name = s->decl_names.items[n];
            needed[i] = reads(ctx, name);
            for (int j = i + 1; j < end && !needed[i]; j++)
                needed[i] = needed[j] && reads_name(k->stmts.items[j], name);
        }
    }
    for (int i = 0; i < end; i++)
        if (needed[i])
            vec_push(out, k->stmts.items[i]);
}

static bool bounds_read(const void *ctx, const char *name)
{
    const IrKernel *k = ctx;
    for (int j = 0; j < k->stmts.len; j++) {
        const IrStmt *s = k->stmts.items[j];
        if (s->kind == STMT_PARALLEL && loops_mention(s->par->loops, s->par->depth, name))
            return true;
        if (s->kind == STMT_GRID && loops_mention(s->grid->loops, s->grid->depth, name))
            return true;
    }
    return false;
}

/* The kernel-level declarations the loop bounds read, directly or through
 * other declarations; the launcher evaluates them on the host. */
static bool plan_host_decls(KernelPlan *kp)
{
    const IrKernel *k = kp->k;
    needed_decls(k, k->stmts.len, bounds_read, k, &kp->host_decls);
    bool ok = true;
    for (int i = kp->host_decls.len - 1; i >= 0; i--) { /* last first, as they were found */
        const IrStmt *s = kp->host_decls.items[i];
        if (s->reads_memory) {
            error_at(s->loc,
                     "a loop bound depends on this declaration, which reads device memory: the launcher sizes the "
                     "grid on the host, so bounds may use only parameters, constants and declarations computed "
                     "from them");
            ok = false;
        }
    }
    return ok;
}

static bool names_reduced(const void *ctx, const char *name);

/* The body reads `name`; a variable the loop reduces stands for a thread's
 * part in it (the launcher's combining kernel reads the variable). */
static bool body_reads(const void *ctx, const char *name)
{
    const IrParallel *par = ctx;
    return !names_reduced(par, name) && code_mentions(par->body, name);
}

/* The parameters that `body` (if given) or the declarations `decls` read,
 * appended to `out` (to declare views of them). */
static void params_read(const IrKernel *k, const IrCode *body, const Vec *decls, Vec *out)
{
    for (int i = 0; i < k->params.len; i++) {
        const IrParam *p = k->params.items[i];
        bool read = body && code_mentions(body, p->name);
        for (int d = 0; d < decls->len && !read; d++)
            read = code_mentions(((const IrStmt *)decls->items[d])->code, p->name);
        if (read)
            vec_push(out, (void *)p);
    }
}

/* What the body of a nest reads from outside it: kernel-level declarations
 * (emitted into its __global__ function) and parameters (to declare views). */
static void plan_body_inputs(ParallelPlan *pp, const IrKernel *k)
{
    needed_decls(k, pp->stmt_index, body_reads, pp->par, &pp->decls);
    params_read(k, pp->par->body, &pp->decls, &pp->params_used);
}

static ReduceSlot *slot_named(const KernelPlan *kp, const char *var)
{
    for (int i = 0; i < kp->slots.len; i++) {
        ReduceSlot *slot = kp->slots.items[i];
        if (strcmp(slot->var, var) == 0)
            return slot;
    }
    return NULL;
}

static bool names_reduced(const void *ctx, const char *name)
{
    const IrParallel *par = ctx;
    for (int i = 0; i < par->reduces.len; i++)
        if (strcmp(((const IrReduce *)par->reduces.items[i])->var, name) == 0)
            return true;
    return false;
}

/* A loop at the top level of the kernel that reduces: each variable gets a
 * slot in device memory (the first loop that reduces it), and the combining
 * kernel evaluates the variables' declarations for their values before. */
static void plan_grid_reduction(KernelPlan *kp, ParallelPlan *pp)
{
    const IrParallel *par = pp->par;
    if (!par->reduces.len)
        return;
    pp->combine_name = aprintf("%s_combine", pp->kernel_name);
    for (int i = 0; i < par->reduces.len; i++) {
        const IrReduce *r = par->reduces.items[i];
        ReduceSlot *slot = slot_named(kp, r->var);
        if (!slot) {
            slot = anew(sizeof *slot);
            *slot = (ReduceSlot){r->var, r->type, kp->slots.len, pp->stmt_index};
            vec_push(&kp->slots, slot);
        }
        pp->slots[i] = slot->index;
    }
    if (par->reduces.len > kp->max_reduces)
        kp->max_reduces = par->reduces.len;
    needed_decls(kp->k, pp->stmt_index, names_reduced, par, &pp->combine_decls);
    params_read(kp->k, NULL, &pp->combine_decls, &pp->combine_params);
}

/* Do the declarations declare a variable reduced over the grid so far? */
static bool reads_slot(const KernelPlan *kp, const Vec *decls)
{
    for (int i = 0; i < decls->len; i++) {
        const IrStmt *s = decls->items[i];
        for (int n = 0; n < s->decl_names.len; n++)
            if (slot_named(kp, s->decl_names.items[n]))
                return true;
    }
    return false;
}

/* The launcher cannot size a grid with a value the GPU computes. */
static bool host_reads_slot(const KernelPlan *kp)
{
    bool ok = true;
    for (int i = 0; i < kp->host_decls.len; i++) {
        const IrStmt *s = kp->host_decls.items[i];
        for (int n = 0; n < s->decl_names.len; n++) {
            const ReduceSlot *slot = slot_named(kp, s->decl_names.items[n]);
            if (!slot)
                continue;
            error_at(s->loc,
                     "a loop bound depends on '%s', which a reduction computes on the GPU: the launcher sizes the "
                     "grid on the host, before any kernel runs",
                     slot->var);
            ok = false;
        }
    }
    return ok;
}

/* Whether statement s may write buffer b: element writes (or an element's
 * address taken) in loops and block statements, tile stores, and the same
 * in the statements it holds. */
static bool stmt_writes(const IrStmt *s, const IrBuffer *b)
{
    const Vec *accesses = s->kind == STMT_PARALLEL ? &s->par->accesses : &s->accesses;
    for (int a = 0; a < accesses->len; a++) {
        const IrAccess *acc = accesses->items[a];
        if (acc->buf == b && (acc->is_write || acc->escapes))
            return true;
    }
    if (s->kind == STMT_TILE_OP && s->op->kind == TILE_STORE && s->op->mat.buf == b)
        return true;
    const Vec *nested = s->kind == STMT_GRID ? &s->grid->body : stmt_nested(s);
    for (int i = 0; nested && i < nested->len; i++)
        if (stmt_writes(nested->items[i], b))
            return true;
    return false;
}

static int stmt_position(const IrKernel *k, const IrStmt *s)
{
    for (int i = 0; i < k->stmts.len; i++)
        if (k->stmts.items[i] == s)
            return i;
    return -1;
}

/* A declaration at the kernel's top level is evaluated again by each kernel
 * that reads it (every thread, as it starts), not once where the C has it.
 * One that reads memory sees what the C saw only if nothing writes that
 * memory from the declaration up to the loop at `at` that reads it, this
 * loop included (its other threads write while a thread starts). */
static bool decls_stay_current(const IrKernel *k, const Vec *decls, int at)
{
    bool ok = true;
    for (int i = 0; i < decls->len; i++) {
        const IrStmt *d = decls->items[i];
        int from = stmt_position(k, d);
        for (int p = 0; d->reads_memory && from >= 0 && p < k->params.len; p++) {
            const IrParam *param = k->params.items[p];
            if (param->kind != PARAM_BUFFER || !code_mentions(d->code, param->name))
                continue;
            for (int j = from + 1; j <= at; j++) {
                const IrStmt *s = k->stmts.items[j];
                if ((s->kind != STMT_PARALLEL && s->kind != STMT_GRID) || !stmt_writes(s, param->buf))
                    continue;
                error_at(d->loc,
                         "'%s' reads '%s', which the %s at line %d writes %s: each GPU kernel that uses '%s' "
                         "evaluates this declaration again as it starts, so it would not see what the C sees here: "
                         "pass the value as a parameter",
                         (const char *)d->decl_names.items[0], param->name, s->kind == STMT_GRID ? "grid" : "loop",
                         s->loc.line, j == at ? "while it uses the value" : "before a later loop uses the value",
                         (const char *)d->decl_names.items[0]);
                ok = false;
                break;
            }
        }
    }
    return ok;
}

static bool kernel_decls_stay_current(const KernelPlan *kp)
{
    bool ok = true;
    for (int i = 0; i < kp->parallels.len; i++) {
        const ParallelPlan *pp = kp->parallels.items[i];
        ok &= decls_stay_current(kp->k, &pp->decls, pp->stmt_index);
        ok &= decls_stay_current(kp->k, &pp->combine_decls, pp->stmt_index);
    }
    for (int i = 0; i < kp->grids.len; i++) {
        const GridPlan *gp = kp->grids.items[i];
        ok &= decls_stay_current(kp->k, &gp->decls, gp->stmt_index);
    }
    return ok;
}

Plan *lower_module(const IrModule *m)
{
    Plan *plan = anew(sizeof *plan);
    plan->m = m;
    bool ok = true;
    int next_site = 0; /* -g: the checks' numbers, unique in the file */
    for (int i = 0; i < m->kernels.len; i++) {
        KernelPlan *kp = anew(sizeof *kp);
        kp->k = m->kernels.items[i];
        kp->debug = m->debug;
        for (int j = 0; j < kp->k->stmts.len; j++) {
            const IrStmt *s = kp->k->stmts.items[j];
            if (s->kind == STMT_GRID) {
                GridPlan *gp = lower_grid(kp->k, j, m->archs);
                if (gp && gp->sm90 && reads_slot(kp, &gp->decls)) {
                    gp->sm90 = NULL; /* its kernel takes no scratch: the sm_80 kernel runs on Hopper too */
                    gp->sm90_why = "it reads a value a reduction over the grid computed";
                }
                if (gp && m->debug)
                    lower_grid_checks(kp, gp, &next_site);
                if (gp)
                    vec_push(&kp->grids, gp);
                ok &= gp != NULL;
            }
            if (s->kind != STMT_PARALLEL)
                continue;
            ParallelPlan *pp = anew(sizeof *pp);
            pp->par = s->par;
            pp->index = kp->parallels.len;
            pp->stmt_index = j;
            pp->kernel_name = aprintf("tile_%s_%d", kp->k->name, pp->index);
            plan_vectors(pp);
            plan_body_inputs(pp, kp->k);
            plan_grid_reduction(kp, pp);
            vec_push(&kp->parallels, pp);
        }
        ok &= plan_host_decls(kp) && host_reads_slot(kp) && kernel_decls_stay_current(kp);
        vec_push(&plan->kernels, kp);
    }
    return ok ? plan : NULL;
}

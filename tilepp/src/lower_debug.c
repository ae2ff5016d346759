/* lower_debug.c — the debug translation (-g): which tile operations check
 * their memory accesses, and against what.
 *
 * Every tile_load and tile_store of a grid (each reads or writes a matrix or
 * vector in global memory) gets a TileCheck: the forms without extents
 * promise that the window lies inside the matrix, so the window is checked
 * against the matrix's declared extents (`const half A[M][K]`: M rows of K);
 * the forms with extents may reach past them, but the extents must not
 * exceed the matrix's (given as the declaration spells them, `M, K` of
 * `A[M][K]`, there is nothing to check). An extent the declaration does not give (a pointer
 * parameter's rows, `const float *x`'s length) is not checked. tile_copy,
 * tile_gemm and the rest touch only tiles, which have constant shapes.
 *
 * The sm_90a variant of a grid issues its loads from a producer warpgroup as
 * TMA copies; under -g every grid takes the sm_80 kernel instead (Hopper runs
 * it too), so one form of the checks serves every device. */
#include "lower.h"

#include <string.h>

/* A vector's length: the last extent of its buffer, less the offset it is
 * moved by (`x + off`). */
static char *vector_length(const IrMatrix *m)
{
    char *n = m->buf->extents[m->buf->rank - 1];
    return n && m->shift ? aprintf("(%s) - (%s)", n, m->shift) : n;
}

static void plan_check(KernelPlan *kp, const IrGrid *g, const IrTileOp *op, int *next_site)
{
    if (op->kind != TILE_LOAD && op->kind != TILE_STORE)
        return;
    const IrBuffer *tile = op->kind == TILE_LOAD ? op->dst : op->src, *buf = op->mat.buf;
    TileCheck *c = anew(sizeof *c);
    c->op = op;
    c->grid = g;
    c->kind = op->rows ? CHECK_BOUNDS : CHECK_WINDOW;
    if (tile->rank == 1) {
        c->rows = "1";
        c->cols = vector_length(&op->mat);
    } else {
        c->rows = buf->extents[buf->rank - 2];
        c->cols = buf->extents[buf->rank - 1];
    }
    /* The extents given are the declared ones, as written (`tile_load(As, A,
     * r0, c0, M, K)` of `A[M][K]`): nothing to check. */
    if (c->kind == CHECK_BOUNDS && c->rows && c->cols && strcmp(op->rows, c->rows) == 0 &&
        strcmp(op->cols, c->cols) == 0)
        return;
    c->site = (*next_site)++;
    vec_push(&kp->checks, c);
}

static void plan_checks(KernelPlan *kp, const IrGrid *g, const Vec *body, int *next_site)
{
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        if (s->kind == STMT_TILE_OP)
            plan_check(kp, g, s->op, next_site);
        else if (s->kind == STMT_PIPELINED)
            plan_checks(kp, g, &s->pipe->body, next_site);
        else if (s->kind == STMT_SEQ)
            plan_checks(kp, g, &s->seq->body, next_site);
    }
}

void lower_grid_checks(KernelPlan *kp, GridPlan *gp, int *next_site)
{
    if (gp->sm90 || gp->sm90_why) { /* 90a was asked for */
        gp->sm90 = NULL;
        gp->sm90_why = "the file was translated with -g, whose bounds checks are in the sm_80 kernel";
    }
    plan_checks(kp, gp->grid, &gp->grid->body, next_site);
}

const TileCheck *tile_check_of(const KernelPlan *kp, const IrTileOp *op)
{
    for (int i = 0; i < kp->checks.len; i++) {
        const TileCheck *c = kp->checks.items[i];
        if (c->op == op)
            return c;
    }
    return NULL;
}

/* lower_block.c — lowering of a grid block's statements beside its tile
 * work: parallel loops over the block's threads, statements every thread
 * runs alike, sequential loops around them.
 *
 * Decides three things the emitter prints:
 *   - each parallel loop's plan (vector widths, as at kernel level);
 *   - where barriers go: before a statement that touches memory an earlier
 *     statement touched since the last barrier, one of the two writing it
 *     (the threads that run the two statements differ). Global memory is
 *     one resource (parameters may alias), each shared tile another. A
 *     reduction ends in a barrier of its own. A sequential loop's body sees
 *     what its previous iteration touched as well;
 *   - which C99 array parameters block code indexes (views). */
#include "lower.h"

#include <string.h>

/* What a statement touches: bit t of a mask is tile t of the grid, then
 * come the kernel's parameters; the top bit stands for any past those. */
typedef struct Touch {
    unsigned long long reads, writes;
    bool one_thread; /* every access is by one thread, the same one */
} Touch;

enum { LAST_BIT = 63 };

/* The grid and kernel whose resources the masks count. */
typedef struct Scope {
    const IrGrid *g;
    const IrKernel *k;
} Scope;

static unsigned long long resource_bit(const Scope *sc, const IrBuffer *buf)
{
    int n = 0;
    for (int i = 0; i < sc->g->tiles.len; i++, n++)
        if (sc->g->tiles.items[i] == buf)
            return n < LAST_BIT ? 1ULL << n : 1ULL << LAST_BIT;
    for (int i = 0; i < sc->k->params.len; i++, n++) {
        const IrParam *p = sc->k->params.items[i];
        if (p->kind == PARAM_BUFFER && p->buf == buf)
            return n < LAST_BIT ? 1ULL << n : 1ULL << LAST_BIT;
    }
    return 1ULL << LAST_BIT;
}

static void touch_accesses(Touch *t, const Scope *sc, const Vec *accesses)
{
    for (int i = 0; i < accesses->len; i++) {
        const IrAccess *a = accesses->items[i];
        unsigned long long bit = resource_bit(sc, a->buf);
        if (a->is_read)
            t->reads |= bit;
        if (a->is_write)
            t->writes |= bit;
    }
}

static void touch_buffer(Touch *t, const Scope *sc, const IrBuffer *buf, bool write)
{
    if (!buf || buf->space == SPACE_FRAGMENT)
        return; /* a thread's own registers */
    if (write)
        t->writes |= resource_bit(sc, buf);
    else
        t->reads |= resource_bit(sc, buf);
}

static void touch_op(Touch *t, const Scope *sc, const IrTileOp *op)
{
    touch_buffer(t, sc, op->dst, true);
    touch_buffer(t, sc, op->src, false);
    touch_buffer(t, sc, op->a, false);
    touch_buffer(t, sc, op->b, false);
    touch_buffer(t, sc, op->c, true);
    if (op->kind == TILE_LOAD)
        t->reads |= resource_bit(sc, op->mat.buf);
    if (op->kind == TILE_STORE)
        t->writes |= resource_bit(sc, op->mat.buf);
}

TileSyncs tile_op_syncs(const IrTileOp *op)
{
    bool shared_dst = op->dst && op->dst->space == SPACE_SHARED;
    bool shared_src = op->src && op->src->space == SPACE_SHARED;
    switch (op->kind) {
    case TILE_CLEAR:
    case TILE_FILL:
    case TILE_LOAD:
        return (TileSyncs){shared_dst, shared_dst};
    case TILE_STORE:
        return (TileSyncs){shared_src, false};
    case TILE_COPY:
        return (TileSyncs){shared_dst || shared_src, shared_dst};
    case TILE_GEMM:
        return (TileSyncs){false, false};
    }
    return (TileSyncs){true, true};
}

static Touch touch_of_list(const Scope *sc, const Vec *body);

static Touch touch_of(const Scope *sc, const IrStmt *s)
{
    Touch t = {0, 0, false};
    switch (s->kind) {
    case STMT_PARALLEL:
        touch_accesses(&t, sc, &s->par->accesses);
        break;
    case STMT_SCALAR:
        touch_accesses(&t, sc, &s->accesses);
        t.one_thread = s->writes_memory;
        break;
    case STMT_DECL: /* its accesses hold every use of a buffer: subscripts, and pointers as passed away */
        touch_accesses(&t, sc, &s->accesses);
        break;
    case STMT_SEQ: {
        touch_accesses(&t, sc, &s->accesses);
        Touch body = touch_of_list(sc, &s->seq->body);
        t.reads |= body.reads;
        t.writes |= body.writes;
        break;
    }
    case STMT_TILE_OP:
        touch_op(&t, sc, s->op);
        break;
    case STMT_PIPELINED:
        for (int i = 0; i < s->pipe->body.len; i++) {
            const IrStmt *inner = s->pipe->body.items[i];
            if (inner->kind == STMT_TILE_OP)
                touch_op(&t, sc, inner->op);
        }
        break;
    case STMT_TILE_DECL:
    case STMT_GRID:
        break;
    }
    return t;
}

static Touch touch_of_list(const Scope *sc, const Vec *body)
{
    Touch all = {0, 0, false};
    for (int i = 0; i < body->len; i++) {
        Touch t = touch_of(sc, body->items[i]);
        all.reads |= t.reads;
        all.writes |= t.writes;
    }
    return all;
}

static bool conflict(const Touch *pending, const Touch *next)
{
    if (pending->one_thread && next->one_thread)
        return false; /* thread 0 runs both, in order */
    return (pending->writes & (next->reads | next->writes)) || (pending->reads & next->writes);
}

static void add(Touch *pending, const Touch *t)
{
    bool was_empty = !pending->reads && !pending->writes;
    pending->one_thread = (was_empty || pending->one_thread) && t->one_thread;
    pending->reads |= t->reads;
    pending->writes |= t->writes;
}

static bool reduces(const IrStmt *s) { return s->kind == STMT_PARALLEL && s->par->reduces.len > 0; }

/* Barriers for `body`, given what is pending (touched since the last
 * barrier) when it starts; leaves what is pending after it. */
static void plan_syncs(GridPlan *gp, const Scope *sc, const Vec *body, Touch *pending)
{
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        Touch t = touch_of(sc, s);
        if (s->kind == STMT_SEQ) {
            Touch header = {0, 0, false};
            touch_accesses(&header, sc, &s->accesses);
            Touch in = *pending;
            add(&in, &header);
            Touch carried = touch_of_list(sc, &s->seq->body); /* from the previous iteration */
            carried.one_thread = false;
            add(&in, &carried);
            if (conflict(pending, &header)) {
                vec_push(&gp->syncs, (void *)s);
                in = carried;
                add(&in, &header);
            }
            plan_syncs(gp, sc, &s->seq->body, &in);
            *pending = in;
            add(pending, &carried);
            continue;
        }
        TileSyncs own = s->kind == STMT_TILE_OP ? tile_op_syncs(s->op) : (TileSyncs){false, false};
        if (s->kind == STMT_PIPELINED)
            own.after = true; /* it waits for its last copies, then syncs */
        if (own.before)
            *pending = (Touch){0, 0, false};
        if (conflict(pending, &t)) {
            vec_push(&gp->syncs, (void *)s);
            *pending = (Touch){0, 0, false};
        }
        add(pending, &t);
        if (reduces(s) || own.after) /* a barrier of its own orders everything before it */
            *pending = (Touch){0, 0, false};
    }
}

bool block_sync_before(const GridPlan *gp, const IrStmt *s)
{
    for (int i = 0; i < gp->syncs.len; i++)
        if (gp->syncs.items[i] == s)
            return true;
    return false;
}

const ParallelPlan *block_parallel(const GridPlan *gp, const IrParallel *par)
{
    for (int i = 0; i < gp->parallels.len; i++) {
        const ParallelPlan *pp = gp->parallels.items[i];
        if (pp->par == par)
            return pp;
    }
    return NULL;
}

static bool list_mentions(const Vec *body, const char *name);

static bool stmt_mentions(const IrStmt *s, const char *name)
{
    switch (s->kind) {
    case STMT_PARALLEL:
        return code_mentions(s->par->body, name);
    case STMT_SCALAR:
    case STMT_DECL:
        return code_mentions(s->code, name);
    case STMT_SEQ:
        return code_mentions(s->seq->header, name) || list_mentions(&s->seq->body, name);
    default:
        return false;
    }
}

static bool list_mentions(const Vec *body, const char *name)
{
    for (int i = 0; i < body->len; i++)
        if (stmt_mentions(body->items[i], name))
            return true;
    return false;
}

static void plan_parallels(GridPlan *gp, const Vec *body)
{
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        if (s->kind == STMT_SEQ)
            plan_parallels(gp, &s->seq->body);
        if (s->kind != STMT_PARALLEL)
            continue;
        ParallelPlan *pp = anew(sizeof *pp);
        pp->par = s->par;
        pp->index = gp->parallels.len;
        plan_vectors(pp);
        vec_push(&gp->parallels, pp);
        gp->block_reductions |= s->par->reduces.len > 0;
    }
}

void lower_block(GridPlan *gp, const IrKernel *k)
{
    const IrGrid *g = gp->grid;
    plan_parallels(gp, &g->body);
    Touch pending = {0, 0, false};
    Scope sc = {g, k};
    plan_syncs(gp, &sc, &g->body, &pending);
    for (int i = 0; i < k->params.len; i++) {
        const IrParam *p = k->params.items[i];
        if (p->kind == PARAM_BUFFER && p->buf->rank >= 2 && list_mentions(&g->body, p->name))
            vec_push(&gp->views, (void *)p);
    }
}

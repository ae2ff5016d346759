/* lower_block.c — lowering of a grid block's statements beside its tile
 * work: parallel loops over the block's threads or over a fragment's
 * layout, statements every thread runs alike, sequential loops around them.
 *
 * Decides what the emitter prints:
 *   - each fragment's layout (accumulator, spread, or a 2-D fragment's rows);
 *   - each parallel loop's plan (vector widths, as at kernel level; or the
 *     fragment layout it runs on), the registers kept between loops, the
 *     kernel variants (groups a thread, threads a grid iteration) the
 *     launcher chooses from;
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
        if (a->buf->space == SPACE_FRAGMENT)
            continue; /* a loop over a fragment's layout: each thread its own registers */
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
    case TILE_REDUCE: /* of fragments: each thread its registers, and its quad's through shuffles */
        return (TileSyncs){shared_dst || shared_src, shared_dst};
    case TILE_GEMM:
        return (TileSyncs){false, false};
    case TILE_PRINT: /* a shared tile: thread 0 reads what the block wrote, before the block writes it again (a
                        fragment's print has barriers of its own around its scratch: emit_tile.c) */
        return (TileSyncs){shared_src, shared_src};
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
            else if (inner->kind == STMT_PARALLEL)
                touch_accesses(&t, sc, &inner->par->accesses);
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
    bool just_synced = false; /* the statement before ended in a barrier of its own */
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
            just_synced = false;
            continue;
        }
        TileSyncs own = s->kind == STMT_TILE_OP ? tile_op_syncs(s->op) : (TileSyncs){false, false};
        if (own.before && just_synced)
            vec_push(&gp->shared_syncs, (void *)s->op);
        just_synced = s->kind == STMT_TILE_OP && own.after;
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

bool block_sync_before(const GridPlan *gp, const IrStmt *s) { return vec_contains(&gp->syncs, s); }

bool block_sync_shared(const GridPlan *gp, const IrTileOp *op) { return vec_contains(&gp->shared_syncs, op); }

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
        return parallel_mentions(s->par, name);
    case STMT_SCALAR:
    case STMT_DECL:
        return code_mentions(s->code, name);
    case STMT_SEQ:
        return code_mentions(s->seq->header, name) || list_mentions(&s->seq->body, name);
    case STMT_PIPELINED: /* its loops over fragments (an attention's bias or mask) */
        return list_mentions(&s->pipe->body, name);
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

/* ---- fragments ---- */

/* Fragments of rows and of columns (LAYOUT_ROWS, LAYOUT_COLS): 1-D
 * fragments that hold one value per row (column) of a 2-D fragment. A
 * fragment gets it from what uses it: the result of a tile_reduce_* along
 * dim 1 (0), read as t[i] (t[j]) in a loop over a 2-D fragment's elements;
 * and passes it on to the 1-D fragments it is copied to or from, or used
 * with in a 1-D loop. */
typedef struct SliceOf {
    const IrBuffer *frag, *of;
    LayoutKind kind; /* LAYOUT_ROWS or LAYOUT_COLS */
} SliceOf;

static const char *slice_noun(LayoutKind kind) { return kind == LAYOUT_COLS ? "column" : "row"; }

static const SliceOf *slice_of(const Vec *found, const IrBuffer *t)
{
    for (int i = 0; t && i < found->len; i++) {
        const SliceOf *r = found->items[i];
        if (r->frag == t)
            return r;
    }
    return NULL;
}

/* Records that t holds the rows or columns of `of`; true if that is news. */
static bool add_slice(Vec *found, const IrBuffer *t, const IrBuffer *of, LayoutKind kind)
{
    if (!of || !t || t->space != SPACE_FRAGMENT || t->rank != 1 || slice_of(found, t) ||
        t->dims[0] != of->dims[kind == LAYOUT_COLS ? 1 : 0])
        return false;
    SliceOf *r = anew(sizeof *r);
    *r = (SliceOf){t, of, kind};
    vec_push(found, r);
    return true;
}

static bool add_slice_like(Vec *found, const IrBuffer *t, const SliceOf *like)
{
    return like && add_slice(found, t, like->of, like->kind);
}

/* The first fragment of rank `rank` a parallel loop uses, or NULL. */
static const IrBuffer *loop_fragment(const IrParallel *par, int rank)
{
    for (int a = 0; a < par->accesses.len; a++) {
        const IrAccess *acc = par->accesses.items[a];
        if (acc->buf->space == SPACE_FRAGMENT && acc->buf->rank == rank)
            return acc->buf;
    }
    return NULL;
}

static bool is_loop_var(const Affine *a, int d, int depth);

/* One pass over the statements (pipelined loops' bodies too); true if it
 * found a fragment of rows or columns that it did not know. */
static bool find_slices(const Vec *body, Vec *found)
{
    bool news = false;
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        if (stmt_nested(s))
            news |= find_slices(stmt_nested(s), found);
        if (s->kind == STMT_TILE_OP) {
            const IrTileOp *op = s->op;
            if (op->kind == TILE_REDUCE && op->src->space == SPACE_FRAGMENT)
                news |= add_slice(found, op->dst, op->src, op->dim == 1 ? LAYOUT_ROWS : LAYOUT_COLS);
            if (op->kind == TILE_COPY && op->dst->rank == 1) {
                news |= add_slice_like(found, op->dst, slice_of(found, op->src));
                news |= add_slice_like(found, op->src, slice_of(found, op->dst));
            }
        }
        if (s->kind != STMT_PARALLEL)
            continue;
        const IrParallel *par = s->par;
        const IrBuffer *f2 = par->depth == 2 ? loop_fragment(par, 2) : NULL;
        const SliceOf *like = NULL;
        for (int a = 0; a < par->accesses.len && !like && par->depth == 1; a++)
            like = slice_of(found, ((const IrAccess *)par->accesses.items[a])->buf);
        for (int a = 0; a < par->accesses.len; a++) {
            const IrAccess *acc = par->accesses.items[a];
            if (f2) /* t[j] in a loop over f2 holds its columns; t[i] (or anything else, refused later) rows */
                news |= add_slice(found, acc->buf, f2, is_loop_var(&acc->index[0], 1, 2) ? LAYOUT_COLS : LAYOUT_ROWS);
            else
                news |= add_slice_like(found, acc->buf, like);
        }
    }
    return news;
}

/* The operations on a fragment of rows or columns keep its layout: what
 * it is copied to or from holds the same slices, a reduction into it runs
 * along its dimension. */
static bool slice_ops_ok(const Vec *body, const Vec *found, const SliceOf *sl)
{
    const IrBuffer *t = sl->frag;
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        if (stmt_nested(s) && !slice_ops_ok(stmt_nested(s), found, sl))
            return false;
        const IrTileOp *op = s->kind == STMT_TILE_OP ? s->op : NULL;
        if (!op || (op->dst != t && op->src != t))
            continue;
        const IrBuffer *other = op->dst == t ? op->src : op->dst;
        const SliceOf *osl = slice_of(found, other);
        if (op->kind == TILE_REDUCE && op->src->space == SPACE_FRAGMENT &&
            (op->dim == 1 ? LAYOUT_ROWS : LAYOUT_COLS) != sl->kind) {
            error_at(op->loc,
                     "this reduction along dim %d gives one value per %s, but 1-D fragment '%s' holds one value per "
                     "%s of '%s' (from how the block uses it): give the two their own fragments",
                     op->dim, op->dim == 1 ? "row" : "column", t->name, slice_noun(sl->kind), sl->of->name);
            return false;
        }
        if (op->kind == TILE_CLEAR || op->kind == TILE_FILL || op->kind == TILE_LOAD || op->kind == TILE_STORE ||
            op->kind == TILE_PRINT || (op->kind == TILE_REDUCE && op->dst == t && op->src->space == SPACE_FRAGMENT) ||
            (op->kind == TILE_COPY && osl && osl->kind == sl->kind))
            continue;
        error_at(op->loc,
                 "1-D fragment '%s' holds one value per %s of 2-D fragment '%s' (it is a tile_reduce_* result or read "
                 "as %s[%s] in a loop over one); '%s' here does not hold %ss, and this operation cannot mix the two "
                 "layouts in this version of tilepp",
                 t->name, slice_noun(sl->kind), sl->of->name, t->name, sl->kind == LAYOUT_COLS ? "j" : "i",
                 other ? other->name : "?", slice_noun(sl->kind));
        return false;
    }
    return true;
}

long long block_cols_width(const Vec *body)
{
    long long widest = 0;
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        long long w = stmt_nested(s) ? block_cols_width(stmt_nested(s)) : 0;
        const IrTileOp *op = s->kind == STMT_TILE_OP ? s->op : NULL;
        if (op && op->kind == TILE_REDUCE && op->dim == 0 && op->src->space == SPACE_FRAGMENT)
            w = op->src->dims[1];
        widest = w > widest ? w : widest;
    }
    return widest;
}

/* Strips (LAYOUT_STRIPS) for the 2-D fragments of a block without
 * products. An accumulator layout would give each thread pairs of columns
 * of rows eight apart: its loads and stores would move 4 bytes where they
 * can move 16, and a warp's access would touch eight rows. */

static bool has_product(const Vec *body)
{
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        if ((stmt_nested(s) && has_product(stmt_nested(s))) || (s->kind == STMT_TILE_OP && s->op->kind == TILE_GEMM))
            return true;
    }
    return false;
}

/* The smallest element size in bytes among `least` (0: none yet) and the
 * matrices that tile_load and tile_store move fragment t from or to. */
static int smallest_moved(const Vec *body, const IrBuffer *t, int least)
{
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        if (stmt_nested(s))
            least = smallest_moved(stmt_nested(s), t, least);
        if (s->kind != STMT_TILE_OP)
            continue;
        const IrTileOp *op = s->op;
        bool moves_t = (op->kind == TILE_LOAD && op->dst == t) || (op->kind == TILE_STORE && op->src == t);
        int size = moves_t ? op->mat.buf->elem.size : 0;
        if (size > 0 && (least == 0 || size < least))
            least = size;
    }
    return least;
}

/* The lanes side by side over a row of a wtm x wtn warp tile in strips of
 * `vec` elements of `chunk` bytes: a power of two up to 32 that divides the
 * row's strips, with 32 / lanes dividing wtm. A row slot's reduction takes
 * log2(lanes) shuffles, so the fewest that still give each row's part of a
 * warp's access a whole 128-byte line; else the fewest at all. 0: none. */
static int fewest_lanes(long long wtm, long long row_strips, int from)
{
    for (int lanes = from; lanes <= 32; lanes *= 2)
        if (row_strips % lanes == 0 && wtm % (32 / lanes) == 0)
            return lanes;
    return 0;
}

static int row_lanes(long long wtm, long long wtn, int vec, int chunk)
{
    if (wtn % vec)
        return 0;
    int lanes = fewest_lanes(wtm, wtn / vec, chunk >= 128 ? 1 : 128 / chunk);
    return lanes ? lanes : fewest_lanes(wtm, wtn / vec, 1);
}

/* The strips, if the block has no product and its 2-D fragments one shape
 * (they then line up element by element): the widest (16 bytes of the
 * smallest element moved, else 4 floats) that split, with the most warps
 * stacked over the rows (fewest warps side by side over a row, whose
 * reductions go through shared memory). False: the accumulator layout. */
bool block_strips(const GridPlan *gp, int threads, FragLayout *strips)
{
    const IrGrid *g = gp->grid;
    const IrBuffer *shape = NULL;
    int least = 0;
    if (has_product(&g->body))
        return false;
    for (int i = 0; i < g->tiles.len; i++) {
        const IrBuffer *t = g->tiles.items[i];
        if (t->space != SPACE_FRAGMENT || t->rank != 2)
            continue;
        if (shape && (t->dims[0] != shape->dims[0] || t->dims[1] != shape->dims[1]))
            return false;
        shape = t;
        least = smallest_moved(&g->body, t, least);
    }
    if (!shape)
        return false;
    int warps = threads / 32, size = least ? least : 4;
    for (int vec = 16 / size; vec >= 1; vec /= 2)
        for (int wm = warps; wm >= 1; wm--) {
            int wn = warps / wm;
            if (warps % wm || shape->dims[0] % wm || shape->dims[1] % wn)
                continue;
            int lanes = row_lanes(shape->dims[0] / wm, shape->dims[1] / wn, vec, vec * size);
            if (lanes) {
                *strips = (FragLayout){NULL, LAYOUT_STRIPS, wm, wn, vec, lanes, NULL, false};
                return true;
            }
        }
    return false;
}

/* The buffer accesses of a block statement's own code (a parallel loop's
 * body; a scalar statement, a declaration, a sequential loop's header), or
 * NULL for a statement that has none. */
static const Vec *stmt_accesses(const IrStmt *s)
{
    return s->kind == STMT_PARALLEL                                                ? &s->par->accesses
           : s->kind == STMT_SCALAR || s->kind == STMT_DECL || s->kind == STMT_SEQ ? &s->accesses
                                                                                   : NULL;
}

/* Is every use of 16-bit fragment t in the statements a copy into it of a
 * float fragment of its shape, or its reading as a product's A operand?
 * (*feeds: it is read so at least once.) */
static bool only_operand(const Vec *body, const IrBuffer *t, bool *feeds)
{
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        if (stmt_nested(s) && !only_operand(stmt_nested(s), t, feeds))
            return false;
        const Vec *acc = stmt_accesses(s);
        for (int j = 0; acc && j < acc->len; j++)
            if (((const IrAccess *)acc->items[j])->buf == t)
                return false;
        if (s->kind != STMT_TILE_OP)
            continue;
        const IrTileOp *op = s->op;
        const IrBuffer *src = op->src;
        bool copy_in = op->kind == TILE_COPY && op->dst == t && src->space == SPACE_FRAGMENT && src->rank == 2 &&
                       src->elem.kind == SCALAR_FLOAT && src->dims[0] == t->dims[0] && src->dims[1] == t->dims[1];
        bool operand = op->kind == TILE_GEMM && op->a == t && op->c != t && !op->a_trans;
        if (!copy_in && !operand && tile_op_uses(op, t))
            return false;
        *feeds |= operand;
    }
    return true;
}

/* A 16-bit 2-D fragment that only carries a float fragment's values,
 * rounded, into products as their A operand (FlashAttention's P) is kept
 * as the products read it: packed pairs, half the registers, rounded once
 * by the copy rather than again at each product. */
bool fragment_packs(const IrGrid *g, const IrBuffer *t)
{
    bool feeds = false;
    return t->space == SPACE_FRAGMENT && t->rank == 2 && (t->elem.kind == SCALAR_HALF || t->elem.kind == SCALAR_BF16) &&
           only_operand(&g->body, t, &feeds) && feeds;
}

static bool plan_layouts(GridPlan *gp)
{
    const IrGrid *g = gp->grid;
    Vec found = {0};
    while (find_slices(&g->body, &found))
        ;
    bool use_strips = gp->strips.kind == LAYOUT_STRIPS; /* chosen with the warps (lower_tile.c's plan_warps) */
    for (int i = 0; i < g->tiles.len; i++) {
        const IrBuffer *t = g->tiles.items[i];
        if (t->space != SPACE_FRAGMENT)
            continue;
        FragLayout *l = anew(sizeof *l);
        *l = (FragLayout){t, t->rank == 2 ? LAYOUT_ACCUM : LAYOUT_SPREAD, gp->warps_m, gp->warps_n, 0, 0, NULL, false};
        if (t->rank == 2 && use_strips)
            l->kind = LAYOUT_STRIPS, l->vec = gp->strips.vec, l->lanes = gp->strips.lanes;
        l->packed = l->kind == LAYOUT_ACCUM && fragment_packs(g, t);
        const SliceOf *sl = t->rank == 1 ? slice_of(&found, t) : NULL;
        if (sl) {
            l->kind = sl->kind, l->of = sl->of;
            if (!slice_ops_ok(&g->body, &found, sl))
                return false;
        }
        vec_push(&gp->layouts, l);
    }
    return true;
}

const FragLayout *fragment_layout(const GridPlan *gp, const IrBuffer *frag)
{
    for (int i = 0; i < gp->layouts.len; i++) {
        const FragLayout *l = gp->layouts.items[i];
        if (l->frag == frag)
            return l;
    }
    return NULL;
}

/* Is the subscript exactly the variable of loop d of a nest of `depth`? */
static bool is_loop_var(const Affine *a, int d, int depth)
{
    if (!a->ok || a->offset != 0 || (a->rest && *a->rest))
        return false;
    for (int e = 0; e < depth; e++)
        if (a->coef[e] != (e == d))
            return false;
    return true;
}

/* Does loop l cover dimension extent n of fragment f exactly, from 0 in
 * steps of 1? Refuses it otherwise. */
static bool covers(const IrLoop *l, const IrBuffer *f, long long n)
{
    if (l->bounds_const && l->lo_const == 0 && l->hi_const == n && l->step_is_const && l->step_const == 1 &&
        !l->inclusive && !l->descending)
        return true;
    error_at(l->loc,
             "the loop over fragment '%s' covers it exactly: '%s' from 0 while < %lld, step 1 (skip elements with an "
             "if in the body)",
             f->name, l->var, n);
    return false;
}

/* A 1-D loop over fragments that hold rows or columns (LAYOUT_ROWS,
 * LAYOUT_COLS): each thread visits its slots, every fragment at t[i]. */
static bool plan_slice_loop(GridPlan *gp, ParallelPlan *pp, const IrBuffer *f)
{
    const IrParallel *par = pp->par;
    const FragLayout *fl = fragment_layout(gp, f);
    if (fl->kind != LAYOUT_ROWS && fl->kind != LAYOUT_COLS) {
        error_at(par->loc,
                 "1-D fragment '%s' in a parallel loop: a 1-D loop runs over fragments that hold one value per row "
                 "or column of a 2-D fragment (tile_reduce_* results and what is copied from them); '%s' does not",
                 f->name, f->name);
        return false;
    }
    if (!covers(&par->loops[0], f, f->dims[0]))
        return false;
    for (int i = 0; i < par->accesses.len; i++) {
        const IrAccess *a = par->accesses.items[i];
        if (a->buf->space != SPACE_FRAGMENT)
            continue;
        const FragLayout *al = fragment_layout(gp, a->buf);
        if (al->kind != fl->kind || a->buf->dims[0] != f->dims[0]) {
            error_at(a->loc,
                     "fragment '%s' and fragment '%s' (one value per %s of '%s') in one loop: their elements sit "
                     "in different threads",
                     a->buf->name, f->name, slice_noun(fl->kind), fl->of->name);
            return false;
        }
        if (!is_loop_var(&a->index[0], 0, 1)) {
            error_at(a->loc,
                     "fragment '%s' is used at %s here: a loop over a fragment's layout uses fragments only at its "
                     "own element, %s[%s] (each thread holds only its elements)",
                     a->buf->name, a->text, a->buf->name, par->loops[0].var);
            return false;
        }
    }
    pp->layout = fl;
    return true;
}

/* In a loop over 2-D fragment f, a fragment of f's rows (columns) is read
 * at [i] ([j]): true if `a` is such a read, which it records; false if it
 * is no such fragment; refuses (and sets *refused) a write or another
 * subscript. */
static bool slice_read(ParallelPlan *pp, const FragLayout *al, const IrAccess *a, const IrBuffer *f, bool *refused)
{
    int d = al->kind == LAYOUT_ROWS ? 0 : al->kind == LAYOUT_COLS ? 1 : -1;
    if (d < 0 || al->of->dims[d] != f->dims[d])
        return false;
    if (a->is_write || !is_loop_var(&a->index[0], d, 2)) {
        error_at(a->loc,
                 "'%s' holds one value per %s of '%s': a loop over the fragment reads it as %s[%s], and does not "
                 "write it (every element of the %s would)",
                 a->buf->name, slice_noun(al->kind), f->name, a->buf->name, pp->par->loops[d].var,
                 slice_noun(al->kind));
        *refused = true;
        return false;
    }
    if (d == 1 && !vec_contains(&pp->col_reads, a->buf))
        vec_push(&pp->col_reads, (void *)a->buf);
    return true;
}

/* A parallel loop that uses fragments runs over their layout: each thread
 * visits the elements its registers hold. That takes a loop over both
 * indices of one 2-D fragment shape, from 0 to its extents, that uses
 * every fragment at its own element [i][j] (fragments of one shape share
 * the accumulator layout, so their elements line up) and fragments of its
 * rows at [i] and of its columns at [j]; or a 1-D loop over fragments of
 * rows or of columns (plan_slice_loop).
 * Anything else is refused here, at what stands in the way. */
static bool plan_fragment_loop(GridPlan *gp, ParallelPlan *pp)
{
    const IrParallel *par = pp->par;
    const IrBuffer *f = loop_fragment(par, 2);
    if (!f)
        f = loop_fragment(par, 1);
    if (!f)
        return true;
    if (par->vector != 1) {
        error_at(par->vector_loc,
                 "vector(%d) on a loop over fragment '%s': each thread visits the elements its "
                 "registers hold; remove vector",
                 par->vector, f->name);
        return false;
    }
    if (par->reduces.len) {
        error_at(par->loc, "reduce(...) in a loop over fragment '%s' is not implemented in this version of tilepp",
                 f->name);
        return false;
    }
    if (f->rank == 1 && par->depth == 1)
        return plan_slice_loop(gp, pp, f);
    if (f->rank == 1) {
        error_at(par->loc, "a parallel loop over 1-D fragment '%s' has one index: for (i = 0; i < %lld; i++)", f->name,
                 f->dims[0]);
        return false;
    }
    if (par->depth != 2) {
        error_at(par->loc,
                 "a parallel loop over fragment '%s' runs over both its indices: for (i = 0; i < %lld; i++) "
                 "for (j = 0; j < %lld; j++)",
                 f->name, f->dims[0], f->dims[1]);
        return false;
    }
    for (int d = 0; d < 2; d++)
        if (!covers(&par->loops[d], f, f->dims[d]))
            return false;
    for (int i = 0; i < par->accesses.len; i++) {
        const IrAccess *a = par->accesses.items[i];
        if (a->buf->space != SPACE_FRAGMENT)
            continue;
        const FragLayout *al = fragment_layout(gp, a->buf);
        bool refused = false;
        if (slice_read(pp, al, a, f, &refused))
            continue;
        if (refused)
            return false;
        if (a->buf->rank != 2 || a->buf->dims[0] != f->dims[0] || a->buf->dims[1] != f->dims[1]) {
            const char *shape = a->buf->rank == 1 ? aprintf("1-D, %lld", a->buf->dims[0])
                                                  : aprintf("%lld x %lld", a->buf->dims[0], a->buf->dims[1]);
            error_at(a->loc,
                     "fragment '%s' (%s) and fragment '%s' (%lld x %lld) in one loop: their elements sit in "
                     "different threads; only fragments of one shape line up element by element",
                     a->buf->name, shape, f->name, f->dims[0], f->dims[1]);
            return false;
        }
        if (!is_loop_var(&a->index[0], 0, 2) || !is_loop_var(&a->index[1], 1, 2)) {
            error_at(a->loc,
                     "fragment '%s' is used at %s here: a loop over a fragment's layout uses fragments only "
                     "at its own element, %s[%s][%s] (each thread holds only its elements)",
                     a->buf->name, a->text, a->buf->name, par->loops[0].var, par->loops[1].var);
            return false;
        }
    }
    pp->layout = fragment_layout(gp, f);
    return true;
}

/* A parallel loop in a pipelined loop runs on fragments and global memory:
 * shared tiles there have a buffer per stage, and the pipeline's barriers
 * order only its tile operations. */
static bool pipeline_loop_ok(const ParallelPlan *pp)
{
    const IrParallel *par = pp->par;
    if (!pp->layout) {
        error_at(par->loc, "a parallel loop inside a pipelined loop runs over a fragment's elements (each thread "
                           "its own registers); this one runs over the block's threads: put it before or after "
                           "the pipelined loop");
        return false;
    }
    for (int i = 0; i < par->accesses.len; i++) {
        const IrAccess *a = par->accesses.items[i];
        if (a->buf->space == SPACE_SHARED) {
            error_at(a->loc,
                     "shared tile '%s' in a parallel loop inside a pipelined loop: not implemented in this version "
                     "of tilepp; use the tile in a loop before or after the pipelined loop, or copy it into a "
                     "fragment",
                     a->buf->name);
            return false;
        }
    }
    return true;
}

static bool plan_parallels(GridPlan *gp, const Vec *body, bool in_pipeline)
{
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        if (s->kind == STMT_SEQ && !plan_parallels(gp, &s->seq->body, false))
            return false;
        if (s->kind == STMT_PIPELINED && !plan_parallels(gp, &s->pipe->body, true))
            return false;
        if (s->kind != STMT_PARALLEL)
            continue;
        ParallelPlan *pp = anew(sizeof *pp);
        pp->par = s->par;
        pp->index = gp->parallels.len;
        plan_vectors(pp);
        if (!plan_fragment_loop(gp, pp) || (in_pipeline && !pipeline_loop_ok(pp)))
            return false;
        vec_push(&gp->parallels, pp);
        gp->block_reductions |= s->par->reduces.len > 0;
    }
    return true;
}

/* ---- registers across loops ---- */

/* Registers a thread spends on one cached buffer, at most; groups a thread
 * takes at once in the unrolled form of a loop that caches nothing (loads
 * of several groups in flight together). */
enum { CACHE_BYTES = 128, MAX_CACHE_GROUPS = 8, UNROLL_GROUPS = 4 };

/* Iterations a thread takes in the unrolled form of a loop, at most:
 * measured on the H200 (bench/RESULTS.md), 64 (8 groups of 8 halves) run
 * slower than 32 on twice the threads, the registers then limiting the
 * blocks a multiprocessor holds. */
enum { MAX_THREAD_ITERATIONS = 32 };

/* Registers a variant asks for: BASE_REGS beside 3/2 of the registers its
 * groups hold (the rest is their addresses and the work on them), at least
 * MIN_REGS. Fitted on the H200 to the softmax and layernorm samples
 * (bench/RESULTS.md): 4 groups of 8 floats run fastest in 72 registers (3
 * blocks of 256 a multiprocessor), 4 of 8 halves in 48 (5 blocks); one
 * group does not fit in 40 without spills (the compile tests check). */
enum { BASE_REGS = 24, MIN_REGS = 48 };

/* Is the buffer written anywhere in the block (or passed away)? */
static bool written_in(const Vec *body, const IrBuffer *buf)
{
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        const Vec *acc = stmt_accesses(s);
        for (int j = 0; acc && j < acc->len; j++) {
            const IrAccess *a = acc->items[j];
            if (a->buf == buf && (a->is_write || a->escapes))
                return true;
        }
        if (s->kind == STMT_SEQ && written_in(&s->seq->body, buf))
            return true;
        if (s->kind == STMT_TILE_OP && s->op->kind == TILE_STORE && s->op->mat.buf == buf)
            return true;
    }
    return false;
}

/* Do the loops take the same iterations, so that each thread gets the same
 * groups in both? */
static bool same_iterations(const IrParallel *a, const IrParallel *b)
{
    if (a->depth != 1 || b->depth != 1 || a->vector != b->vector)
        return false;
    const IrLoop *x = &a->loops[0], *y = &b->loops[0];
    return strcmp(x->lo, y->lo) == 0 && strcmp(x->hi, y->hi) == 0 && strcmp(x->step, y->step) == 0 &&
           x->inclusive == y->inclusive;
}

static bool assigns_bound(const IrStmt *s, const IrParallel *par)
{
    for (int i = 0; i < s->assigns.len; i++)
        if (loops_mention(par->loops, par->depth, s->assigns.items[i]))
            return true;
    return false;
}

static const VecBuffer *vec_read(const ParallelPlan *pp, const IrBuffer *buf)
{
    for (int i = 0; i < pp->vec_buffers.len; i++) {
        const VecBuffer *vb = pp->vec_buffers.items[i];
        if (vb->buf == buf && vb->load && !vb->store)
            return vb;
    }
    return NULL;
}

/* A 1-D loop over the block's threads (not over a fragment's layout):
 * those unroll and keep buffers in registers between them. Not one under
 * an `if`: a cache it should fill might stay empty. */
static bool thread_loop_1d(const GridPlan *gp, const IrStmt *s)
{
    return s->kind == STMT_PARALLEL && s->par->depth == 1 && !block_parallel(gp, s->par)->layout && !s->par->guard;
}

/* From the parallel loop at list[first] on: the later loops of the same
 * list that read buffer vb->buf at the same elements, before anything
 * changes their bounds. A cache for them when there is one such loop. */
static void plan_cache(GridPlan *gp, const Vec *list, int first, const VecBuffer *vb)
{
    const IrStmt *head = list->items[first];
    const ParallelPlan *hp = block_parallel(gp, head->par);
    Vec users = {0};
    for (int i = first + 1; i < list->len; i++) {
        const IrStmt *s = list->items[i];
        if (s->kind == STMT_SCALAR && assigns_bound(s, head->par))
            break;
        if (!thread_loop_1d(gp, s) || !same_iterations(head->par, s->par))
            continue;
        const ParallelPlan *pp = block_parallel(gp, s->par);
        const VecBuffer *other = vec_read(pp, vb->buf);
        if (other && same_index(vb->access, other->access, 1))
            vec_push(&users, (void *)pp);
    }
    if (!users.len)
        return;
    RegCache *c = anew(sizeof *c);
    int bytes = hp->par->vector * vb->buf->elem.size;
    *c = (RegCache){vb->buf, vb->access, CACHE_BYTES / bytes, hp->par->vector, gp->caches.len};
    if (c->groups > MAX_CACHE_GROUPS)
        c->groups = MAX_CACHE_GROUPS;
    if (c->groups > MAX_THREAD_ITERATIONS / c->vector)
        c->groups = MAX_THREAD_ITERATIONS / c->vector;
    if (c->groups < 1)
        return;
    vec_push(&gp->caches, c);
    ParallelPlan *filler = (ParallelPlan *)hp;
    vec_push(&filler->caches, c);
    vec_push(&filler->fills, c);
    for (int i = 0; i < users.len; i++)
        vec_push(&((ParallelPlan *)users.items[i])->caches, c);
}

static bool cached_here(const ParallelPlan *pp, const IrBuffer *buf)
{
    for (int i = 0; i < pp->caches.len; i++)
        if (((const RegCache *)pp->caches.items[i])->buf == buf)
            return true;
    return false;
}

/* Caches for the loops of one statement list (and, separately, of each
 * sequential loop's body); then each loop's unrolled form: the groups of
 * its caches, or UNROLL_GROUPS. */
static void plan_caches(GridPlan *gp, const Vec *list)
{
    const Vec *body = &gp->grid->body;
    for (int i = 0; i < list->len; i++) {
        const IrStmt *s = list->items[i];
        if (s->kind == STMT_SEQ)
            plan_caches(gp, &s->seq->body);
        if (!thread_loop_1d(gp, s))
            continue;
        const ParallelPlan *pp = block_parallel(gp, s->par);
        for (int v = 0; v < pp->vec_buffers.len; v++) {
            const VecBuffer *vb = pp->vec_buffers.items[v];
            if (vb->load && !vb->store && !cached_here(pp, vb->buf) && !written_in(body, vb->buf))
                plan_cache(gp, list, i, vb);
        }
    }
    /* The loops that share caches take the same groups: the fewest any of
     * their caches allows. */
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < gp->parallels.len; i++) {
            const ParallelPlan *pp = gp->parallels.items[i];
            int fewest = MAX_CACHE_GROUPS;
            for (int c = 0; c < pp->caches.len; c++) {
                int groups = ((const RegCache *)pp->caches.items[c])->groups;
                fewest = groups < fewest ? groups : fewest;
            }
            for (int c = 0; c < pp->caches.len; c++) {
                RegCache *rc = pp->caches.items[c];
                changed |= rc->groups != fewest;
                rc->groups = fewest;
            }
        }
    }
    for (int i = 0; i < list->len; i++) {
        const IrStmt *s = list->items[i];
        if (!thread_loop_1d(gp, s))
            continue;
        ParallelPlan *pp = (ParallelPlan *)block_parallel(gp, s->par);
        int most = MAX_THREAD_ITERATIONS / s->par->vector;
        pp->unroll = pp->caches.len ? ((const RegCache *)pp->caches.items[0])->groups
                                    : (UNROLL_GROUPS < most ? UNROLL_GROUPS : most);
    }
}

/* ---- which buffers stream ---- */

/* Names whose value differs between grid iterations: the grid's loop
 * variables and whatever the block declares. */
static void block_names(const IrGrid *g, const Vec *list, Vec *names)
{
    if (list == &g->body)
        for (int d = 0; d < g->depth; d++)
            vec_push(names, g->loops[d].var);
    for (int i = 0; i < list->len; i++) {
        const IrStmt *s = list->items[i];
        const Vec *declared = s->kind == STMT_DECL ? &s->decl_names : s->kind == STMT_SEQ ? &s->seq->vars : NULL;
        for (int n = 0; declared && n < declared->len; n++)
            vec_push(names, declared->items[n]);
        if (s->kind == STMT_SEQ)
            block_names(g, &s->seq->body, names);
    }
}

/* A wide buffer streams unless it is a parameter indexed by the loop and
 * by values every grid iteration shares (a weight row read by every row
 * of the grid, which the caches then hold). */
static void plan_streams(GridPlan *gp, const IrKernel *k)
{
    Vec names = {0};
    block_names(gp->grid, &gp->grid->body, &names);
    for (int i = 0; i < gp->parallels.len; i++) {
        const ParallelPlan *pp = gp->parallels.items[i];
        for (int v = 0; v < pp->vec_buffers.len; v++) {
            VecBuffer *vb = pp->vec_buffers.items[v];
            vb->streamed = ir_param_of_buffer(k, vb->buf) == NULL;
            for (int d = 0; d < vb->access->ndims && !vb->streamed; d++)
                for (int n = 0; n < names.len && !vb->streamed; n++)
                    vb->streamed = text_mentions(vb->access->subs[d], names.items[n]);
        }
    }
}

/* Names the launcher cannot evaluate: the grid's loop variables and every
 * variable of the kernel or its block. */
static bool mentions_device_name(const IrKernel *k, const IrGrid *g, const Vec *list, const IrParallel *par)
{
    for (int d = 0; d < g->depth; d++)
        if (loops_mention(par->loops, par->depth, g->loops[d].var))
            return true;
    for (int pass = 0; pass < 2; pass++) {
        const Vec *stmts = pass ? list : &k->stmts;
        for (int i = 0; i < stmts->len; i++) {
            const IrStmt *s = stmts->items[i];
            const Vec *names = s->kind == STMT_DECL ? &s->decl_names : s->kind == STMT_SEQ ? &s->seq->vars : NULL;
            for (int n = 0; names && n < names->len; n++)
                if (loops_mention(par->loops, par->depth, names->items[n]))
                    return true;
            if (pass && s->kind == STMT_SEQ && mentions_device_name(k, g, &s->seq->body, par))
                return true;
        }
    }
    return false;
}

/* Is the block only loops and scalar code, so that a part of it (a team
 * of whole warps) can run one iteration of the grid on its own? */
static bool team_runs_alone(const Vec *body)
{
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        if (s->kind == STMT_SEQ && !team_runs_alone(&s->seq->body))
            return false;
        if (s->kind != STMT_DECL && s->kind != STMT_SCALAR && s->kind != STMT_SEQ && s->kind != STMT_PARALLEL)
            return false;
    }
    return true;
}

/* Named barriers a block has beside barrier 0 (__syncthreads): one a team. */
enum { NAMED_BARRIERS = 15 };

/* The variants, in the launcher's order: the smallest team first, and in
 * a team the fewest groups a thread, as long as they cover more
 * iterations than the variants before; then the plain loops over the
 * whole block, for rows too long to unroll. A thread's groups are
 * registers; a team's rows in flight are the memory parallelism: the
 * smallest team that still covers a row in registers keeps the most
 * bytes in flight per register spent on loop state. */
static void plan_teams(GridPlan *gp, const IrKernel *k)
{
    int most_groups = 1;
    for (int i = 0; i < gp->parallels.len; i++) {
        const ParallelPlan *pp = gp->parallels.items[i];
        most_groups = pp->unroll > most_groups ? pp->unroll : most_groups;
    }
    bool teams = gp->grid->tiles.len == 0 && k->threads % 32 == 0 && team_runs_alone(&gp->grid->body);
    long long covered = 0;
    gp->nvariants = 0;
    for (int team = teams ? 32 : k->threads; team <= k->threads; team *= 2) {
        if (team < k->threads && team > 32 && k->threads / team > NAMED_BARRIERS)
            continue;
        if (k->threads % team)
            continue;
        for (int groups = 1; groups <= most_groups; groups *= 2) {
            if ((long long)groups * team <= covered)
                continue;
            gp->variants[gp->nvariants++] = (BlockVariant){groups, team};
            covered = (long long)groups * team;
        }
        if (team < k->threads && team * 2 > k->threads)
            team = k->threads / 2; /* then the whole block, whatever its size */
    }
    gp->variants[gp->nvariants++] = (BlockVariant){1, k->threads};
}

/* Registers of loop `pp` holding `groups` groups of its streamed loads
 * (those a cache does not hold). */
static int streamed_regs(const ParallelPlan *pp, int groups)
{
    int regs = 0;
    for (int b = 0; b < pp->vec_buffers.len; b++) {
        const VecBuffer *vb = pp->vec_buffers.items[b];
        if (vb->load && vb->streamed && !cached_here(pp, vb->buf))
            regs += groups * vb->bytes / 4;
    }
    return regs;
}

/* Registers a thread of the variant of `groups` groups asks for (a
 * multiple of 8, as they are allocated): for its caches' groups and the
 * groups its widest loop loads up front, or the plain loop's groups in
 * flight (UNROLL_GROUPS, streamed loads, caches unused), whichever is
 * more, beside what the loops need anyway. */
static int variant_regs(const GridPlan *gp, int groups)
{
    int cache_regs = 0, array_regs = 0, plain_regs = 0;
    for (int i = 0; i < gp->caches.len; i++) {
        const RegCache *c = gp->caches.items[i];
        int taken = groups < c->groups ? groups : c->groups;
        cache_regs += taken * c->vector * c->buf->elem.size / 4;
    }
    for (int i = 0; i < gp->parallels.len; i++) {
        const ParallelPlan *pp = gp->parallels.items[i];
        if (!pp->unroll)
            continue;
        int unrolled = streamed_regs(pp, groups < pp->unroll ? groups : pp->unroll), plain = 0;
        for (int b = 0; b < pp->vec_buffers.len; b++) {
            const VecBuffer *vb = pp->vec_buffers.items[b];
            plain += vb->load && vb->streamed ? UNROLL_GROUPS * vb->bytes / 4 : 0;
        }
        array_regs = unrolled > array_regs ? unrolled : array_regs;
        plain_regs = plain > plain_regs ? plain : plain_regs;
    }
    int held = cache_regs + array_regs > plain_regs ? cache_regs + array_regs : plain_regs;
    int regs = BASE_REGS + 3 * held / 2 < MIN_REGS ? MIN_REGS : BASE_REGS + 3 * held / 2;
    return (regs + 7) / 8 * 8;
}

/* Variants per unrolled group count when every unrolled loop's bounds are
 * the launcher's to evaluate (and the kernel has no alignment variants). */
static void plan_unroll_variants(GridPlan *gp, const IrKernel *k)
{
    bool any = false, host_bounds = true;
    for (int i = 0; i < gp->parallels.len; i++) {
        const ParallelPlan *pp = gp->parallels.items[i];
        if (!pp->unroll)
            continue;
        any = true;
        host_bounds &= !mentions_device_name(k, gp->grid, &gp->grid->body, pp->par);
    }
    gp->unroll_variants = any && host_bounds && !gp->align_variants && !gp->prints; /* prints: one per block */
    if (gp->unroll_variants)
        plan_teams(gp, k);
    /* a multiprocessor holds at most 2048 threads and 32 blocks (sm_80 to
     * sm_90); ptxas warns about a larger minimum and ignores it */
    int threads = k->threads, most = 2048 / threads < 32 ? 2048 / threads : 32;
    for (int v = 0; v < 4; v++) {
        int regs = variant_regs(gp, 1 << v);
        int blocks = 65536 / (threads * regs);
        gp->variant_blocks[v] = blocks < 1 ? 1 : blocks > most ? most : blocks;
    }
}

bool lower_block(GridPlan *gp, const IrKernel *k)
{
    const IrGrid *g = gp->grid;
    if (!plan_layouts(gp) || !plan_parallels(gp, &g->body, false))
        return false;
    plan_streams(gp, k);
    plan_caches(gp, &g->body);
    plan_unroll_variants(gp, k);
    Touch pending = {0, 0, false};
    Scope sc = {g, k};
    plan_syncs(gp, &sc, &g->body, &pending);
    for (int i = 0; i < k->params.len; i++) {
        const IrParam *p = k->params.items[i];
        if (p->kind == PARAM_BUFFER && p->buf->rank >= 2 && list_mentions(&g->body, p->name))
            vec_push(&gp->views, (void *)p);
    }
    return true;
}

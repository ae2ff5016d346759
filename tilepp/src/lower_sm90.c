/* lower_sm90.c — the sm_90a variant of a grid: whether it can run
 * warp-specialized (a TMA producer warpgroup, wgmma consumer warpgroups),
 * how the consumers share the accumulator, the swizzle of each shared tile
 * (from its role in the product that reads it), the shared-memory layout
 * with the stages' barriers, where the consumers wait for the products in
 * flight, and which declarations the producer runs.
 *
 * The shape it needs is a mainloop: one pipelined loop whose body loads
 * shared tiles from global matrices, then multiplies (A a shared tile or a
 * fragment, B a shared tile, C a fragment) and works on fragments in any
 * order (a GEMM; FlashAttention's two products with the softmax between
 * them); before the loop, fragment work and loads of shared tiles the
 * products read (preloads), after it, fragment work and stores. A grid of
 * any other shape keeps its sm_80 kernel on Hopper as well; the reason goes
 * into the generated code, and nothing is refused here. */
#include "lower.h"

#include <stdlib.h>
#include <string.h>

enum {
    EPILOGUE_BYTES_PER_GROUP = 2 * 8192, /* two 64-row x 128-byte staging buffers */
    SMEM_ALIGN = 1024,                   /* the 128-byte swizzle repeats every 1024 bytes */
    MAX_TMA_BOX_ROWS = 256,              /* rows of one TMA box */
    WGMMA_OTHER_REGS = 26,               /* registers one wgmma needs beside its accumulators (measured) */
    PINGPONG_MAX_ACCUM = 160,            /* fragment values a ping-pong consumer thread holds: a 128 x 128 or
                                            64 x 256 accumulator and its row statistics */
};

const Sm90Tile *sm90_tile(const Sm90Plan *p, const IrBuffer *buf)
{
    for (int i = 0; i < p->tiles.len; i++) {
        const Sm90Tile *t = p->tiles.items[i];
        if (t->buf == buf)
            return t;
    }
    return NULL;
}

int sm90_store_index(const Sm90Plan *p, const IrTileOp *op)
{
    for (int i = 0; i < p->stores.len; i++)
        if (((const Sm90Store *)p->stores.items[i])->op == op)
            return i;
    return -1;
}

/* Bytes per panel row for a panel `elems` elements wide: the widest
 * swizzle that divides it; 0 if none does. */
static int swizzle_for(long long elems, int elem_size)
{
    long long bytes = elems * elem_size;
    return bytes % 128 == 0 ? 128 : bytes % 64 == 0 ? 64 : bytes % 32 == 0 ? 32 : 0;
}

static bool grid_var(const IrGrid *g, const char *text)
{
    for (int d = 0; d < g->depth; d++)
        if (text_mentions(text, g->loops[d].var))
            return true;
    return false;
}

static bool mentions_decl(const Vec *stmts, const char *text)
{
    for (int i = 0; i < stmts->len; i++) {
        const IrStmt *s = stmts->items[i];
        for (int n = 0; s->kind == STMT_DECL && n < s->decl_names.len; n++)
            if (text_mentions(text, s->decl_names.items[n]))
                return true;
    }
    return false;
}

/* The launcher builds each tensor map on the host, so a load's extents may
 * read only parameters and constants. */
static bool host_text(const IrKernel *k, const IrGrid *g, const IrPipelined *pipe, const char *text)
{
    return !text || (!grid_var(g, text) && !mentions_decl(&k->stmts, text) && !mentions_decl(&g->body, text) &&
                     !text_mentions(text, pipe->loop.var));
}

static bool host_extents(const IrKernel *k, const IrGrid *g, const IrPipelined *pipe, const IrTileOp *load)
{
    const IrBuffer *buf = load->mat.buf;
    if (!host_text(k, g, pipe, load->rows) || !host_text(k, g, pipe, load->cols))
        return false;
    for (int d = 0; d < buf->rank; d++)
        if (!host_text(k, g, pipe, buf->extents[d]))
            return false;
    return true;
}

/* Whether a tile operation of the grid body touches fragments (and global
 * memory) only. */
static bool fragment_only(const IrTileOp *op)
{
    switch (op->kind) {
    case TILE_LOAD:
        return op->dst->space == SPACE_FRAGMENT;
    case TILE_CLEAR:
    case TILE_FILL:
        return op->dst->space == SPACE_FRAGMENT;
    case TILE_STORE:
        return op->src->space == SPACE_FRAGMENT;
    case TILE_COPY:
    case TILE_REDUCE:
        return op->src->space == SPACE_FRAGMENT && op->dst->space == SPACE_FRAGMENT;
    default:
        return false;
    }
}

/* A parallel loop the consumer warpgroups run on their accumulators:
 * over a fragment's layout, touching no shared tile. */
static bool consumer_loop(const GridPlan *gp, const IrParallel *par)
{
    const ParallelPlan *pp = block_parallel(gp, par);
    if (!pp || !pp->layout)
        return false;
    for (int i = 0; i < par->accesses.len; i++)
        if (((const IrAccess *)par->accesses.items[i])->buf->space == SPACE_SHARED)
            return false;
    return true;
}

/* A load the producer can issue with TMA: a 2-D shared tile of the
 * matrix's element type. Its origin may be negative, which tilepp cannot
 * always rule out (`kv * D` with kv computed from parameters): TMA fills
 * the elements outside the tensor map's bounds with zeros, before the
 * matrix as after it, as tile_load defines. */
static bool tma_load_ok(const IrTileOp *op, const char **why)
{
    const IrBuffer *t = op->dst, *m = op->mat.buf;
    if (op->kind == TILE_LOAD && t->space == SPACE_SHARED && t->rank == 2 && t->elem.size != 2) {
        *why = "a load fills a 2-D shared tile of float, which the wgmma kernel has no use for (its products read "
               "half and bfloat16 tiles)";
        return false;
    }
    if (op->kind == TILE_LOAD && t->space == SPACE_SHARED && t->rank == 2 && t->elem.kind == m->elem.kind &&
        t->elem.size == m->elem.size)
        return true;
    *why = "a load of a shared tile converts elements or fills a 1-D tile, where TMA copies 2-D tiles as they are";
    return false;
}

/* The grid's statements around the pipelined loop: scalar declarations,
 * fragment work, loops over fragments, and before the loop TMA loads of
 * shared tiles (preloads). Finds the loop (p->pipe, p->pipe_at); false
 * with the reason otherwise. */
static bool plan_mainloop(Sm90Plan *p, const GridPlan *gp, const char **why)
{
    const IrGrid *g = gp->grid;
    for (int i = 0; i < g->body.len && !p->pipe; i++) {
        const IrStmt *s = g->body.items[i];
        if (s->kind == STMT_PIPELINED) {
            p->pipe = s->pipe;
            p->pipe_at = i;
        }
    }
    if (!p->pipe) {
        *why = "the grid has no pipelined loop";
        return false;
    }
    for (int i = 0; i < g->body.len; i++) {
        const IrStmt *s = g->body.items[i];
        if (s->kind == STMT_PIPELINED) {
            if (i != p->pipe_at) {
                *why = "the grid has more than one pipelined loop";
                return false;
            }
        } else if (s->kind == STMT_TILE_OP) {
            bool preload = i < p->pipe_at && s->op->kind == TILE_LOAD && s->op->dst->space == SPACE_SHARED;
            if (preload && !tma_load_ok(s->op, why))
                return false;
            if (!preload && s->op->kind == TILE_GEMM) {
                *why = "a product runs outside the pipelined loop (the variant multiplies in the loop only)";
                return false;
            }
            if (!preload && !fragment_only(s->op)) {
                *why = "shared memory is used outside the pipelined loop, other than loaded before it";
                return false;
            }
        } else if (s->kind == STMT_PARALLEL) {
            if (!consumer_loop(gp, s->par)) {
                *why = "a parallel loop of the grid runs over the block's threads, not over a fragment's layout";
                return false;
            }
        } else if (s->kind == STMT_SEQ) {
            *why = "the block has a sequential loop (the variant runs one pipelined loop, and fragment work around "
                   "it)";
            return false;
        } else if (s->kind != STMT_DECL && s->kind != STMT_TILE_DECL) {
            *why = "the grid holds statements other than tile work, declarations and loops over fragments";
            return false;
        }
    }
    return true;
}

/* The pipelined loop's body: TMA loads of shared tiles, then products (A a
 * shared tile or a fragment, B a shared tile, C a fragment), fragment work
 * and loops over fragments, in any order. Returns the first product. */
static const IrTileOp *mainloop_gemm(const GridPlan *gp, const IrPipelined *pipe, const char **why)
{
    const IrTileOp *gemm = NULL;
    for (int i = 0; i < pipe->body.len; i++) {
        const IrStmt *s = pipe->body.items[i];
        if (s->kind == STMT_PARALLEL) {
            if (!consumer_loop(gp, s->par)) {
                *why = "a parallel loop in the pipelined loop is not over a fragment's layout";
                return NULL;
            }
            continue;
        }
        if (s->kind != STMT_TILE_OP) {
            *why = "the pipelined loop holds more than tile operations and loops over fragments";
            return NULL;
        }
        const IrTileOp *op = s->op;
        if (op->kind == TILE_GEMM) {
            if (op->b->space != SPACE_SHARED || op->c->space != SPACE_FRAGMENT) {
                *why = "a product in the pipelined loop does not take B from a shared tile into a fragment";
                return NULL;
            }
            gemm = gemm ? gemm : op;
        } else if (op->kind == TILE_LOAD) {
            if (op->dst->space != SPACE_SHARED || !tma_load_ok(op, why))
                return NULL;
        } else if (!fragment_only(op)) {
            *why = "the pipelined loop uses shared memory other than through its loads and products";
            return NULL;
        }
    }
    if (!gemm)
        *why = "the pipelined loop has no product";
    return gemm;
}

/* Consumer warpgroups over the BM x BN accumulator: 64-row pieces, at most
 * 256 columns (one wgmma) each; `row` and `col` as in plan_warps. Otherwise
 * the arrangement that reads the least shared memory: each m64nNk16 reads
 * 64 rows of A and N of B, so a warpgroup tile of WTM x WTN costs
 * WTM / 64 x (64 + WTN) rows per k-step (wide pieces win: 2 x 1 groups of
 * 64 x 256 read 320 rows each, 1 x 2 of 128 x 128 read 384). */
static bool arrange_groups(Sm90Plan *p, long long bm, long long bn, int groups, const char *policy)
{
    long long best = -1;
    for (int gm = 1; gm <= groups; gm++) {
        int gn = groups / gm;
        if (groups % gm || bm % (64 * gm) || bn % gn || (bn / gn) % 16 || bn / gn > 256)
            continue;
        if (policy && ((strcmp(policy, "row") == 0 && gn != 1) || (strcmp(policy, "col") == 0 && gm != 1)))
            continue;
        long long rows_read = bm / gm / 64 * (64 + bn / gn);
        if (best < 0 || rows_read < best) {
            best = rows_read;
            p->groups_m = gm;
            p->groups_n = gn;
        }
    }
    return best >= 0;
}

/* The product of the pipelined loop that reads shared tile t, or NULL. */
static const IrTileOp *gemm_reading(const IrPipelined *pipe, const IrBuffer *t)
{
    for (int i = 0; i < pipe->body.len; i++) {
        const IrStmt *s = pipe->body.items[i];
        if (s->kind == STMT_TILE_OP && s->op->kind == TILE_GEMM && (s->op->a == t || s->op->b == t))
            return s->op;
    }
    return NULL;
}

/* The tile of one load: its role in the product that reads it decides the
 * swizzle. A K-major operand (rows: M or N) takes panels across K; an
 * MN-major one (rows: K) panels that split the 64 rows of a wgmma (A) or
 * the warpgroup's columns (B). */
static Sm90Tile *plan_tile(const Sm90Plan *p, const IrTileOp *load, bool preload, const char **why)
{
    const IrBuffer *t = load->dst;
    const IrTileOp *gemm = gemm_reading(p->pipe, t);
    if (!gemm) {
        *why = "a shared tile the grid loads is not an operand of a product in the pipelined loop";
        return NULL;
    }
    bool is_a = t == gemm->a, kmajor = is_a ? !gemm->a_trans : gemm->b_trans;
    long long bk = gemm->b_trans ? gemm->b->dims[1] : gemm->b->dims[0];
    long long panel = kmajor ? bk : is_a ? 64 : gemm->c->dims[1] / p->groups_n;
    Sm90Tile *st = anew(sizeof *st);
    st->buf = t;
    st->load = load;
    st->preload = preload;
    st->swizzle = swizzle_for(panel, t->elem.size);
    long long panel_cols = st->swizzle ? st->swizzle / t->elem.size : 0;
    if (!st->swizzle || t->dims[1] % panel_cols || panel % panel_cols) {
        *why = "a shared tile's rows do not split into 32-, 64- or 128-byte panels";
        return NULL;
    }
    if (t->dims[0] % 8 || (t->dims[0] > MAX_TMA_BOX_ROWS && t->dims[0] % MAX_TMA_BOX_ROWS)) {
        *why = "a shared tile's row count is not a multiple of 8 (or of 256 above 256)";
        return NULL;
    }
    st->bytes = t->dims[0] * t->dims[1] * t->elem.size;
    return st;
}

static bool add_tile(Sm90Plan *p, const IrKernel *k, const IrGrid *g, const IrTileOp *op, bool preload,
                     const char **why)
{
    if (sm90_tile(p, op->dst)) {
        *why = "a shared tile is loaded twice in one iteration";
        return false;
    }
    if (op->mat.nlead > 3) {
        *why = "a load slices its matrix with more than 3 subscripts (a tensor map has at most 5 dimensions)";
        return false;
    }
    if (!host_extents(k, g, p->pipe, op)) { /* the launcher makes the tensor maps */
        *why = "a load's matrix extents depend on values only the kernel has (read from memory, or the grid's "
               "variables), where the launcher makes its tensor map";
        return false;
    }
    Sm90Tile *st = plan_tile(p, op, preload, why);
    if (!st)
        return false;
    vec_push(&p->tiles, st);
    return true;
}

/* The tiles the producer copies: those loaded before the pipelined loop
 * (preloads), then those of each iteration, in load order. */
static bool plan_tiles(Sm90Plan *p, const IrKernel *k, const IrGrid *g, const char **why)
{
    for (int i = 0; i < p->pipe_at; i++) {
        const IrStmt *s = g->body.items[i];
        bool preload = s->kind == STMT_TILE_OP && s->op->kind == TILE_LOAD && s->op->dst->space == SPACE_SHARED;
        if (preload && !add_tile(p, k, g, s->op, true, why))
            return false;
    }
    for (int i = 0; i < p->pipe->body.len; i++) {
        const IrStmt *s = p->pipe->body.items[i];
        if (s->kind == STMT_TILE_OP && s->op->kind == TILE_LOAD && !add_tile(p, k, g, s->op, false, why))
            return false;
    }
    for (int i = 0; i < g->tiles.len; i++) {
        const IrBuffer *t = g->tiles.items[i];
        if (t->space == SPACE_SHARED && !sm90_tile(p, t)) {
            *why = "a shared tile is not loaded before or in the pipelined loop";
            return false;
        }
    }
    for (int i = 0; i < p->pipe->body.len; i++) {
        const IrStmt *s = p->pipe->body.items[i];
        const IrTileOp *op = s->kind == STMT_TILE_OP && s->op->kind == TILE_GEMM ? s->op : NULL;
        if (op && ((op->a->space == SPACE_SHARED && !sm90_tile(p, op->a)) || !sm90_tile(p, op->b))) {
            *why = "an operand of a product is not loaded before or in the pipelined loop";
            return false;
        }
    }
    return true;
}

/* The fragment stores after the loop that can go out through TMA: 16-bit
 * or float outputs, extents the launcher can evaluate, and warpgroup pieces
 * of whole 128-byte chunks. */
static void plan_stores(Sm90Plan *p, const IrKernel *k, const IrGrid *g)
{
    for (int i = p->pipe_at + 1; i < g->body.len; i++) {
        const IrStmt *s = g->body.items[i];
        if (s->kind != STMT_TILE_OP || s->op->kind != TILE_STORE || s->op->src->rank != 2)
            continue;
        const IrTileOp *op = s->op;
        long long wtn = op->src->dims[1] / p->groups_n;
        const IrType *t = &op->mat.buf->elem;
        bool type_ok = t->kind == SCALAR_HALF || t->kind == SCALAR_BF16 || t->kind == SCALAR_FLOAT;
        if (!type_ok || op->mat.nlead > 3 || !host_extents(k, g, p->pipe, op) || wtn % (128 / t->size))
            continue;
        Sm90Store *st = anew(sizeof *st);
        st->op = op;
        st->chunk_cols = 128 / t->size;
        st->origin_test = !op->origin_nonneg;
        st->c0_multiple = 16 / t->size;
        vec_push(&p->stores, st);
    }
}

/* Tiles one after the other, each stage of each 1024-byte aligned, the
 * epilogue's staging buffers, the column reductions' scratch, then a full
 * and an empty barrier per stage.
 * Without room for the staging buffers the stores go out from registers. */
static bool plan_smem(Sm90Plan *p, const GridPlan *gp, int groups, const char **why)
{
    long long at = 0;
    int stages = p->pipe->stages;
    for (int i = 0; i < p->tiles.len; i++) {
        Sm90Tile *t = p->tiles.items[i];
        if (t->preload)
            p->pre_bytes += t->bytes;
        else
            p->stage_bytes += t->bytes; /* what its copies bring; the layout rounds it up */
        t->bytes = (t->bytes + SMEM_ALIGN - 1) / SMEM_ALIGN * SMEM_ALIGN;
        t->offset = at;
        at += (t->preload ? 1 : stages) * t->bytes;
    }
    /* the stages' barriers, the preloads' or the ping-pong turns (never both),
     * the queue's barriers (a full and an empty one a slot) and slots */
    long long pre = p->pre_bytes || p->pingpong ? 16 : 0, queue = p->dynamic ? 24LL * SM90_QUEUE_SLOTS : 0;
    long long fixed = 16LL * stages + pre + queue + SMEM_ALIGN;
    p->epilogue = at;
    if (p->stores.len && at + groups * EPILOGUE_BYTES_PER_GROUP + fixed <= SMEM_LIMIT_SM90A)
        at += groups * EPILOGUE_BYTES_PER_GROUP;
    else
        p->stores.len = 0;
    /* column reductions: COL_WARPS x columns floats, a region for each
     * consumer that holds tiles alone (tile90::accum::col_scratch) */
    long long cols = block_cols_width(&gp->grid->body);
    p->cols_scratch = -1;
    if (cols) {
        int regions = p->groups_m * p->groups_n == 1 ? p->consumers : 1;
        p->cols_scratch = at;
        at += (regions * 4LL * p->groups_m * cols * 4 + 127) / 128 * 128;
    }
    p->barriers = at;
    p->pre_barriers = at + 16LL * stages;
    p->queue = p->pre_barriers + pre;
    p->smem_bytes = at + fixed;
    if (p->smem_bytes > SMEM_LIMIT_SM90A) {
        *why = "its stages and barriers need more than the 227 KB of shared memory a block may have";
        return false;
    }
    return true;
}

/* Registers a consumer thread holds of 2-D fragment t: its warpgroup's
 * share, two 16-bit values a register when packed. */
static long long fragment_regs(const Sm90Plan *p, const GridPlan *gp, const IrBuffer *t)
{
    return t->dims[0] * t->dims[1] / (128LL * p->groups_m * p->groups_n) / (fragment_layout(gp, t)->packed ? 2 : 1);
}

/* Every 2-D fragment splits over the consumer warpgroups as the first
 * product's accumulator does (the same rows per warpgroup; columns in
 * pieces of 16 to 256); a fragment of rows needs whole rows per warpgroup. */
static bool plan_fragments(Sm90Plan *p, const GridPlan *gp, long long *accum_per_thread, const char **why)
{
    const IrGrid *g = gp->grid;
    const IrBuffer *c = p->gemm->c;
    long long per_thread = 0;
    for (int i = 0; i < g->tiles.len; i++) {
        const IrBuffer *t = g->tiles.items[i];
        if (t->space != SPACE_FRAGMENT)
            continue;
        const FragLayout *l = fragment_layout(gp, t);
        if (l->kind == LAYOUT_ROWS) {
            if (p->groups_n != 1 || l->of->dims[0] != c->dims[0]) {
                *why = "a 1-D fragment holds the rows of a fragment that the warpgroups split side by side, or "
                       "that has other rows than the product's accumulator";
                return false;
            }
            per_thread += c->dims[0] / (64LL * p->groups_m) * 2; /* two rows of each 64-row piece */
            continue;
        }
        if (l->kind == LAYOUT_COLS) { /* two columns of each 8-column piece of its warpgroup's */
            per_thread += l->of->dims[1] / p->groups_n / 4;
            continue;
        }
        long long wtn = t->rank == 2 ? t->dims[1] / p->groups_n : 0;
        if (t->rank != 2 || t->dims[0] != c->dims[0] || t->dims[1] % p->groups_n || wtn % 16 || wtn > 256) {
            *why = "a fragment does not split over the consumer warpgroups as the product's accumulator does";
            return false;
        }
        per_thread += fragment_regs(p, gp, t);
    }
    *accum_per_thread = per_thread;
    return true;
}

/* The fragments a statement of the pipelined loop reads or writes. */
static bool touches(const IrStmt *s, const IrBuffer *frag)
{
    if (s->kind == STMT_PARALLEL) {
        for (int i = 0; i < s->par->accesses.len; i++)
            if (((const IrAccess *)s->par->accesses.items[i])->buf == frag)
                return true;
        return false;
    }
    return tile_op_uses(s->op, frag);
}

const Sm90Wait *sm90_wait_before(const Sm90Plan *p, const IrStmt *s)
{
    for (int i = 0; i < p->waits.len; i++) {
        const Sm90Wait *w = p->waits.items[i];
        if (w->before == s)
            return w;
    }
    return NULL;
}

/* Whether statement s must wait for product g in flight: it touches the
 * registers g writes (C) or reads (a fragment A), unless it is a product
 * that goes on accumulating into g's C (wgmma groups on one accumulator
 * run in order). */
static bool waits_for(const IrStmt *s, const IrTileOp *g)
{
    bool gemm = s->kind == STMT_TILE_OP && s->op->kind == TILE_GEMM;
    if (touches(s, g->c) && !(gemm && s->op->c == g->c && s->op->a != g->c))
        return true;
    return g->a->space == SPACE_FRAGMENT && touches(s, g->a);
}

static void add_fragment(Vec *frags, const IrBuffer *b)
{
    if (b && b->space == SPACE_FRAGMENT && !vec_contains(frags, b))
        vec_push(frags, (void *)b);
}

/* The fragments statement s writes (`writes`) or reads; of a product, only
 * what it writes (the runtime fences its operands itself). */
static void add_accessed(Vec *frags, const IrStmt *s, bool writes)
{
    if (s->kind == STMT_PARALLEL) {
        for (int i = 0; i < s->par->accesses.len; i++) {
            const IrAccess *a = s->par->accesses.items[i];
            if (writes ? a->is_write : a->is_read)
                add_fragment(frags, a->buf);
        }
        return;
    }
    if (s->op->kind == TILE_GEMM)
        add_fragment(frags, writes ? s->op->c : NULL);
    else
        add_fragment(frags, writes ? s->op->dst : s->op->src);
}

static bool in_flight(const Vec *flight, const IrBuffer *b)
{
    for (int f = 0; f < flight->len; f++) {
        const IrTileOp *g = flight->items[f];
        if (g->c == b || g->a == b)
            return true;
    }
    return false;
}

/* One statement of the consumers' simulated order, with the products in
 * flight (oldest first) and the fragments written since the last wait:
 * plans a wait where s touches one of the products (until only those
 * issued after the newest it touches run; the least of the counts where
 * one statement is simulated twice), applies the planned wait (pinning
 * what was written before it, as the last simulation finds it), and puts s
 * in flight if it is a product. Returns whether a wait was added or
 * lowered. */
static bool simulate(Sm90Plan *p, Vec *flight, Vec *written, Sm90Wait **last, const IrStmt *s)
{
    bool changed = false;
    int newest = -1;
    for (int f = 0; f < flight->len; f++)
        if (waits_for(s, flight->items[f]))
            newest = f;
    Sm90Wait *w = (Sm90Wait *)sm90_wait_before(p, s);
    if (newest >= 0) {
        int pending = flight->len - 1 - newest;
        if (!w) {
            w = anew(sizeof *w);
            w->before = s;
            w->pending = pending;
            vec_push(&p->waits, w);
            changed = true;
        } else if (pending < w->pending) {
            w->pending = pending;
            changed = true;
        }
    }
    if (w) {
        w->pinned.len = 0;
        for (int i = 0; i < written->len; i++)
            if (!in_flight(flight, written->items[i]))
                vec_push(&w->pinned, written->items[i]);
        written->len = 0;
        w->after.len = 0;
        *last = w;
    }
    if (w)
        w->held = w->pinned.len > 0 && flight->len > w->pending;
    if (w && flight->len > w->pending) { /* the oldest groups complete */
        int done = flight->len - w->pending;
        for (int f = done; f < flight->len; f++)
            flight->items[f - done] = flight->items[f];
        flight->len = w->pending;
    }
    if (*last) {
        Vec read = {0};
        add_accessed(&read, s, false);
        for (int i = 0; i < read.len; i++)
            if (!in_flight(flight, read.items[i]) && !vec_contains(written, read.items[i]) &&
                !vec_contains(&(*last)->after, read.items[i]))
                vec_push(&(*last)->after, read.items[i]);
    }
    add_accessed(written, s, true);
    if (s->kind == STMT_TILE_OP && s->op->kind == TILE_GEMM)
        vec_push(flight, (void *)s->op);
    return changed;
}

static bool is_load(const IrStmt *s) { return s->kind == STMT_TILE_OP && s->op->kind == TILE_LOAD; }

/* Where the consumers wait for their products (p->waits). A product is an
 * asynchronous wgmma group that writes C and reads a register A until it
 * completes; products that follow one another on the same accumulator may
 * be in flight together, anything else that touches their registers waits
 * for the groups up to the newest it touches.
 *
 * In order, the last product of an iteration stays in flight into the next
 * (release() waits for all but the newest group): the body is simulated for
 * a first iteration (nothing in flight) and a second (what the first left),
 * with the waits planned so far, until no wait is added or lowered. Rotated,
 * an iteration runs its head, the previous iteration's tail, then the rest
 * of its body, and ends waiting for everything: one simulation of that
 * order plans the waits of every iteration but the first (which has no
 * tail, and waits for everything where the others wait at all). */
static void plan_waits(Sm90Plan *p)
{
    const Vec *body = &p->pipe->body;
    if (p->rotated) {
        Vec flight = {0}, written = {0}; /* const IrTileOp*: the products in flight, oldest first */
        Sm90Wait *last = NULL;
        for (int i = 0; i <= p->head; i++)
            if (!is_load(body->items[i]))
                simulate(p, &flight, &written, &last, body->items[i]);
        for (int i = 0; i < p->under_head.len; i++)
            simulate(p, &flight, &written, &last, p->under_head.items[i]);
        simulate(p, &flight, &written, &last, body->items[p->tail]);
        for (int i = p->head + 1; i < p->tail; i++)
            if (!is_load(body->items[i]) && !vec_contains(&p->under_head, body->items[i]))
                simulate(p, &flight, &written, &last, body->items[i]);
        return;
    }
    for (bool changed = true; changed;) {
        changed = false;
        Vec flight = {0}, written = {0};
        Sm90Wait *last = NULL;
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < body->len; i++)
                if (!is_load(body->items[i]))
                    changed |= simulate(p, &flight, &written, &last, body->items[i]);
    }
}

/* Whether the loop's products are worth rotating (Sm90Plan.rotated), and
 * may be: the body (loads aside) runs from its first product to a last one
 * with fragment work between them; nothing up to the first product touches
 * the last one's registers (so issuing it after the next iteration's head
 * changes no value); and at least two stages, since an iteration holds its
 * own stage and the previous one's until that tail is issued. */
static void plan_rotation(Sm90Plan *p)
{
    const Vec *body = &p->pipe->body;
    int head = -1, tail = -1;
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        if (is_load(s))
            continue;
        tail = i;
        if (head < 0 && s->kind == STMT_TILE_OP && s->op->kind == TILE_GEMM)
            head = i;
    }
    const IrStmt *last = tail >= 0 ? body->items[tail] : NULL;
    if (head < 0 || tail == head || last->kind != STMT_TILE_OP || last->op->kind != TILE_GEMM || p->pipe->stages < 2)
        return;
    bool work = false; /* fragment work to run under the tail */
    for (int i = head + 1; i < tail; i++) {
        const IrStmt *s = body->items[i];
        work |= s->kind == STMT_PARALLEL || (s->kind == STMT_TILE_OP && s->op->kind == TILE_REDUCE);
    }
    for (int i = 0; i <= head; i++) {
        const IrStmt *s = body->items[i];
        if (!is_load(s) &&
            (touches(s, last->op->c) || (last->op->a->space == SPACE_FRAGMENT && touches(s, last->op->a))))
            return;
    }
    if (!work)
        return;
    p->rotated = true;
    p->head = head;
    p->tail = tail;
}

/* Whether statements a and b touch a fragment one of them writes (so
 * their order matters). */
static bool conflict(const IrStmt *a, const IrStmt *b)
{
    Vec a_writes = {0}, b_writes = {0};
    add_accessed(&a_writes, a, true);
    add_accessed(&b_writes, b, true);
    for (int i = 0; i < a_writes.len; i++)
        if (touches(b, a_writes.items[i]))
            return true;
    for (int i = 0; i < b_writes.len; i++)
        if (touches(a, b_writes.items[i]))
            return true;
    return false;
}

/* Whether the work of body statement `at` (between the rotated loop's head
 * and tail) may run in the next iteration, after its head is issued and
 * before this iteration's tail: a loop over fragments alone (no memory, no
 * guard) that does not read the loop's variable (it runs an iteration
 * late), whose order against the statements it would pass (the rest of
 * its body, the next iteration's up to its head) changes no fragment's
 * value. The body holds nothing but tile operations and such loops
 * (mainloop_gemm), so no declaration of it is read. */
static bool may_run_under_head(const Sm90Plan *p, int at)
{
    const Vec *body = &p->pipe->body;
    const IrStmt *s = body->items[at];
    if (s->kind != STMT_PARALLEL || s->par->guard || parallel_mentions(s->par, p->pipe->loop.var))
        return false;
    for (int i = 0; i < s->par->accesses.len; i++)
        if (((const IrAccess *)s->par->accesses.items[i])->buf->space != SPACE_FRAGMENT)
            return false;
    for (int i = 0; i < body->len; i++) {
        bool passed = (i > at && i < p->tail) || i <= p->head;
        if (passed && !is_load(body->items[i]) && conflict(s, body->items[i]))
            return false;
    }
    return true;
}

/* The rotated loop's work that waits for nothing of its own iteration's
 * head but only precedes its tail (FlashAttention's rescale of O, which
 * the next P V accumulates onto) runs under the next iteration's head
 * (Sm90Plan.under_head): the tensor cores then wait at the end of an
 * iteration only for what must see the head's result complete (P's
 * rounding), not for this work too. */
static void plan_under_head(Sm90Plan *p)
{
    if (!p->rotated)
        return;
    const Vec *body = &p->pipe->body;
    for (int i = p->head + 1; i < p->tail; i++)
        if (may_run_under_head(p, i))
            vec_push(&p->under_head, body->items[i]);
    for (int i = 0; i < body->len; i++) {
        const IrStmt *g = body->items[i];
        if (g->kind != STMT_TILE_OP || g->op->kind != TILE_GEMM)
            continue;
        for (int w = 0; w < p->under_head.len; w++) {
            const IrStmt *s = p->under_head.items[w];
            if (touches(s, g->op->c))
                add_fragment(&p->under_head_fenced, g->op->c);
            if (touches(s, g->op->a))
                add_fragment(&p->under_head_fenced, g->op->a);
        }
    }
}

/* Registers a block launches with per thread, when `blocks` share an SM:
 * the 64K register file split evenly, in steps of 8, at most 255 (ptxas
 * gives a kernel that uses setmaxnreg exactly this many). */
static int launch_regs(int threads, int blocks)
{
    int regs = 65536 / (threads * blocks) / 8 * 8;
    return regs > 255 ? 255 : regs;
}

/* setmaxnreg: the producer warpgroup drops to `producer` registers a
 * thread and the consumers take the block's rest, in steps of 8, at most
 * 240. */
static int consumer_regs(int threads, int blocks, int groups, int producer)
{
    int regs = (launch_regs(threads, blocks) * threads - 128 * producer) / (128 * groups) / 8 * 8;
    return regs > 240 ? 240 : regs;
}

/* The most columns one wgmma of the loop's products writes: its
 * accumulator's columns per warpgroup. */
static long long widest_product(const Sm90Plan *p)
{
    long long widest = 0;
    for (int i = 0; i < p->pipe->body.len; i++) {
        const IrStmt *s = p->pipe->body.items[i];
        if (s->kind == STMT_TILE_OP && s->op->kind == TILE_GEMM && s->op->c->dims[1] / p->groups_n > widest)
            widest = s->op->c->dims[1] / p->groups_n;
    }
    return widest;
}

/* Ping-pong (Sm90Plan.pingpong) for two consumer warpgroups, when one
 * warpgroup's registers hold the block's fragments (at most
 * PINGPONG_MAX_ACCUM values a thread: 128 x 128 or 64 x 256 tiles) and the
 * grid is a GEMM mainloop: one product an iteration, A and B from shared
 * memory, nothing preloaded. The producer copies the tiles in order, each
 * warpgroup steps over the stages of the other's tiles, and the two take
 * turns at their products (tile90::turns). The tensor cores then multiply
 * one warpgroup's tile while the other runs its epilogue (the bias and
 * activation of a fused GEMM, the conversion and the stores), instead of
 * idling until the block's tile is out. Preferred to sharing tiles wherever it applies: on the H200 a
 * 128 x 128 x 64 GEMM ran at 744 TFLOP/s ping-pong against 726 shared,
 * with a tanh GELU epilogue 711 against 665 (bench/RESULTS.md). (A
 * 128 x 256 tile, whose accumulator only two warpgroups hold, stays
 * shared: faster when the epilogue is light, its tensor cores idle while
 * the block's epilogue runs.) Decided before the tiles are planned: B's
 * panels follow the arrangement. */
static bool plan_pingpong(Sm90Plan *p, const GridPlan *gp, int warpgroups, long long *per_thread)
{
    const IrGrid *g = gp->grid;
    if (warpgroups != 2)
        return false;
    for (int i = 0; i < p->pipe_at; i++) {
        const IrStmt *s = g->body.items[i];
        if (s->kind == STMT_TILE_OP && s->op->kind == TILE_LOAD && s->op->dst->space == SPACE_SHARED)
            return false; /* a preload: its one copy serves every consumer */
    }
    int products = 0;
    for (int i = 0; i < p->pipe->body.len; i++) {
        const IrStmt *s = p->pipe->body.items[i];
        products += s->kind == STMT_TILE_OP && s->op->kind == TILE_GEMM;
    }
    const IrBuffer *c = p->gemm->c;
    const char *why = NULL;
    long long alone = 0;
    if (products != 1 || p->gemm->a->space != SPACE_SHARED || !arrange_groups(p, c->dims[0], c->dims[1], 1, NULL) ||
        !plan_fragments(p, gp, &alone, &why) || alone > PINGPONG_MAX_ACCUM)
        return false;
    p->pingpong = true;
    p->consumers = 2;
    *per_thread = alone;
    return true;
}

/* Registers a consumer thread needs beside its fragments (addresses,
 * descriptors, barrier phases, loop state), by the widest product it
 * issues. Measured with ptxas (CUDA 13.0) on the samples' kernels by
 * lowering the consumers' setmaxnreg in steps of 8 until they spilled or
 * serialized their wgmmas: with products of at most 128 columns a
 * warpgroup, 22 beside the fragments were enough for FlashAttention at
 * head dims 64 and 128 (122 to 170 fragment values; its rotated loop
 * keeps one set of registers for P, the first iteration peeled); with 256
 * columns 26 to 32 (GEMM + softmax, the GEMM; FlashAttention at head dim
 * 256 took 18 to 22). */
static int regs_beside_fragments(const Sm90Plan *p) { return widest_product(p) > 128 ? 32 : 22; }

/* Registers a producer thread keeps after setmaxnreg: 40, or fewer when the
 * consumers need the difference; 24 is the least setmaxnreg takes, and the
 * producer's loop (TMA issues, barrier waits, the tile counter) compiles
 * without spills at 24 (three consumer warpgroups then get 160 each, as
 * FlashAttention-3's do). */
enum { PRODUCER_REGS = 40, PRODUCER_REGS_LEAST = 24 };

/* Two blocks share a multiprocessor when their shared memory fits and the
 * consumers, with the producer's registers, have room for the fragments
 * (and 64 more): the persistent grid then holds twice the blocks and twice
 * the copies in flight. One block otherwise; one consumer warpgroup then
 * launches with every register it can use already, so no setmaxnreg. */
static void plan_blocks_per_sm(Sm90Plan *p, int groups, long long accum_per_thread)
{
    int two_regs = consumer_regs(p->threads, 2, groups, PRODUCER_REGS);
    /* One wgmma's operands must fit the registers of the launch bound,
     * setmaxnreg or not: an m64nN product takes N / 2 accumulators and
     * WGMMA_OTHER_REGS more (ptxas: C7602, "insufficient registers (128)
     * ... register target of 154" for m64n256 with two blocks of 256). */
    bool two = 2 * p->smem_bytes <= SMEM_LIMIT_SM90A && accum_per_thread + 64 <= two_regs &&
               widest_product(p) / 2 + WGMMA_OTHER_REGS <= launch_regs(p->threads, 2);
    p->min_blocks = two ? 2 : 1;
    p->in_flight = p->pipe->stages * p->stage_bytes * p->min_blocks;
    p->shallow = p->in_flight < SM90_MIN_IN_FLIGHT;
    p->producer_regs = PRODUCER_REGS;
    if (two) {
        p->consumer_regs = two_regs;
        return;
    }
    if (groups < 2) {
        p->consumer_regs = p->producer_regs = 0;
        return;
    }
    p->consumer_regs = consumer_regs(p->threads, 1, groups, p->producer_regs);
    while (accum_per_thread + regs_beside_fragments(p) > p->consumer_regs && p->producer_regs > PRODUCER_REGS_LEAST) {
        p->producer_regs -= 8;
        p->consumer_regs = consumer_regs(p->threads, 1, groups, p->producer_regs);
    }
}

/* Whether the warpgroups must hold whole rows: a fragment holds rows of
 * another (reductions combine within a warp's quads), or a product takes A
 * from registers (the rows of P are the A operand of the warpgroup that
 * holds them). */
static bool needs_whole_rows(const GridPlan *gp, const IrPipelined *pipe)
{
    for (int i = 0; i < gp->layouts.len; i++)
        if (((const FragLayout *)gp->layouts.items[i])->kind == LAYOUT_ROWS)
            return true;
    for (int i = 0; i < pipe->body.len; i++) {
        const IrStmt *s = pipe->body.items[i];
        if (s->kind == STMT_TILE_OP && s->op->kind == TILE_GEMM && s->op->a->space == SPACE_FRAGMENT)
            return true;
    }
    return false;
}

static bool producer_reads(const Sm90Plan *p, const Vec *needed, const char *name)
{
    const IrLoop *l = &p->pipe->loop;
    if (text_mentions(l->lo, name) || text_mentions(l->hi, name) || text_mentions(l->step, name))
        return true;
    for (int i = 0; i < p->tiles.len; i++) {
        const IrTileOp *op = ((const Sm90Tile *)p->tiles.items[i])->load;
        if (text_mentions(op->r0, name) || text_mentions(op->c0, name))
            return true;
        for (int d = 0; d < op->mat.nlead; d++)
            if (text_mentions(op->mat.lead[d], name))
                return true;
    }
    for (int i = 0; i < needed->len; i++)
        if (code_mentions(((const IrStmt *)needed->items[i])->code, name))
            return true;
    return false;
}

/* The declarations before the loop the producer needs, directly or through
 * a later one, in source order (a declaration it does not read would be an
 * unused variable in its code). */
static void plan_producer_decls(Sm90Plan *p, const IrGrid *g)
{
    Vec needed = {0};
    for (int i = p->pipe_at - 1; i >= 0; i--) {
        const IrStmt *s = g->body.items[i];
        bool reads = false;
        for (int n = 0; s->kind == STMT_DECL && n < s->decl_names.len && !reads; n++)
            reads = producer_reads(p, &needed, s->decl_names.items[n]);
        if (reads)
            vec_push(&needed, (void *)s);
    }
    for (int i = needed.len - 1; i >= 0; i--)
        vec_push(&p->producer_decls, needed.items[i]);
}

/* Whether the pipelined loop's trip count may differ from one grid
 * iteration to the next: its bounds read a grid variable, or a
 * declaration before the loop that reads one (directly or through another
 * such declaration). */
static bool work_varies(const Sm90Plan *p, const IrGrid *g)
{
    Vec names = {0}; /* the grid's variables and the declarations that read them */
    for (int d = 0; d < g->depth; d++)
        vec_push(&names, g->loops[d].var);
    for (int i = 0; i < p->pipe_at; i++) {
        const IrStmt *s = g->body.items[i];
        bool reads = false;
        for (int n = 0; s->kind == STMT_DECL && n < names.len && !reads; n++)
            reads = code_mentions(s->code, names.items[n]);
        for (int n = 0; reads && n < s->decl_names.len; n++)
            vec_push(&names, s->decl_names.items[n]);
    }
    const IrLoop *l = &p->pipe->loop;
    bool varies = false;
    for (int n = 0; n < names.len && !varies; n++)
        varies = text_mentions(l->lo, names.items[n]) || text_mentions(l->hi, names.items[n]) ||
                 text_mentions(l->step, names.items[n]);
    return varies;
}

Sm90Plan *lower_grid_sm90(const IrKernel *k, const GridPlan *gp, const char **why)
{
    const IrGrid *g = gp->grid;
    Sm90Plan *p = anew(sizeof *p);
    if (gp->prints) { /* a debugging aid: the sm_80 kernel prints, and runs on Hopper too */
        *why = "the block prints (tile_print), which only the sm_80 kernel does";
        return NULL;
    }
    if (!plan_mainloop(p, gp, why) || !(p->gemm = mainloop_gemm(gp, p->pipe, why)))
        return NULL;
    const IrBuffer *c = p->gemm->c;
    if (k->threads % 128) {
        *why = "threads() is not a whole number of 128-thread warpgroups";
        return NULL;
    }
    const bool whole_rows = needs_whole_rows(gp, p->pipe);
    const char *policy = whole_rows ? "row" : p->gemm->policy;
    const int groups_wanted = k->threads / 128;
    long long per_thread = 0;
    if (!plan_pingpong(p, gp, groups_wanted, &per_thread)) {
        if (!arrange_groups(p, c->dims[0], c->dims[1], groups_wanted, policy)) {
            /* Name the rule that refused, where splitting by columns alone would have fitted. */
            if (whole_rows && arrange_groups(p, c->dims[0], c->dims[1], groups_wanted, NULL))
                *why = aprintf("each consumer warpgroup must hold whole rows of '%s' (a fragment of its rows, as a row "
                               "reduction writes, or a product from registers), and its %lld rows do not split into a "
                               "multiple of 64 for each of the %d warpgroups",
                               c->name, c->dims[0], groups_wanted);
            else
                *why = "the accumulator does not split into 64-row, 16..256-column pieces over the warpgroups";
            return NULL;
        }
        if (!plan_fragments(p, gp, &per_thread, why))
            return NULL;
        p->consumers = p->groups_m * p->groups_n;
    }
    int groups = p->consumers;
    if (!plan_tiles(p, k, g, why))
        return NULL;
    p->dynamic = work_varies(p, g);
    plan_stores(p, k, g);
    if (!plan_smem(p, gp, groups, why))
        return NULL;
    plan_rotation(p);
    plan_under_head(p);
    plan_waits(p);
    plan_producer_decls(p, g);
    p->threads = 128 * (groups + 1);
    if (p->threads > MAX_BLOCK_THREADS) {
        *why = aprintf("with its producer warpgroup a block would have %d threads, more than the %d CUDA allows",
                       p->threads, MAX_BLOCK_THREADS);
        return NULL;
    }
    p->fragment_regs = per_thread;
    plan_blocks_per_sm(p, groups, per_thread);
    int regs = p->consumer_regs ? p->consumer_regs : launch_regs(p->threads, p->min_blocks);
    int beside = regs_beside_fragments(p);
    if (per_thread + beside > regs) {
        *why = aprintf("its consumers would hold %lld fragment values a thread in %d registers, and need %d more for "
                       "addresses and operands",
                       per_thread, regs, beside);
        return NULL;
    }
    return p;
}

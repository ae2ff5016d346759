/* emit_sm90.c — CUDA for the sm_90a variant of a grid (lower_sm90.c), a
 * warp-specialized, persistent kernel composed of tile_mma_sm90.cuh's
 * primitives. Each block walks the grid's iterations blockIdx.x, +gridDim.x,
 * ... (or, where their work varies, blockIdx.x and then those a counter
 * hands out: Sm90Plan.dynamic); for each:
 *
 *   warpgroup 0, one thread   the preloads (once their buffer is free);
 *                             for each iteration of the pipelined loop: wait
 *                             for a free stage, TMA-copy its tiles into it;
 *   warpgroups 1..            the fragments; wait for the preloads; for each
 *                             iteration: wait for the stage, the body's
 *                             products (wgmma) and fragment work in order,
 *                             with the waits lowering planned, hand the
 *                             previous stage back; then the preloads, and
 *                             the work after the loop (the epilogue,
 *                             fragment stores through TMA where planned).
 *
 * Ping-pong (Sm90Plan.pingpong): each consumer warpgroup takes every
 * other iteration whole, steps over the stages of the other's, and waits
 * for its turn (tile90::turns) before its products.
 *
 * Scalar declarations before the loop run on both sides (the producer's
 * copies may read them); everything else in the grid body runs in the
 * consumers, in source order. The launcher builds one tensor map per load
 * (and per TMA store) and picks this kernel on a compute capability 9.0
 * device whose binary holds sm_90a code, when every load's map can be made
 * and the pipeline is deep enough (TILEPP_PATH overrides). */
#include "emit_internal.h"

/* tile90::smem_tile<T, rows, cols, swizzle> of a planned tile. */
static char *tile_type(const Sm90Tile *t)
{
    return aprintf("tile90::smem_tile<%s, %lld, %lld, %d>", elem(t->buf), t->buf->dims[0], t->buf->dims[1], t->swizzle);
}

void put_tile_decl_sm90(Block *bl, const IrBuffer *t)
{
    Out *o = bl->o;
    const Sm90Plan *p = bl->sm90;
    const FragLayout *l = t->space == SPACE_FRAGMENT ? fragment_layout(bl->gp, t) : NULL;
    if (l && (l->kind == LAYOUT_ROWS || l->kind == LAYOUT_COLS)) {
        putf(o, "            tile80::%s_frag<tile90::accum<%lld, %lld, %d, %d>> %s;\n",
             l->kind == LAYOUT_ROWS ? "rows" : "cols", l->of->dims[0], l->of->dims[1], p->groups_m, p->groups_n,
             t->name);
        return;
    }
    if (l && l->packed) { /* only a product's A operand: as wgmma reads it */
        putf(o, "            tile80::packed_a<tile90::accum<%lld, %lld, %d, %d>, %s> %s;\n", t->dims[0], t->dims[1],
             p->groups_m, p->groups_n, elem(t), t->name);
        return;
    }
    if (t->space == SPACE_FRAGMENT) {
        putf(o, "            tile90::accum<%lld, %lld, %d, %d> %s;\n", t->dims[0], t->dims[1], p->groups_m, p->groups_n,
             t->name);
        return;
    }
    const Sm90Tile *st = sm90_tile(p, t);
    put_staged_tile(o, t, tile_type(st), st->offset, st->bytes);
}

static void put_comment(Out *o, const GridPlan *gp)
{
    const Sm90Plan *p = gp->sm90;
    putf(o, "// The sm_90a variant of %s: warpgroup 0 copies the tiles with TMA (one thread), %d consumer warpgroup%s ",
         gp->kernel_name, p->consumers, p->consumers > 1 ? "s" : "");
    if (p->pingpong)
        put(o, "(ping-pong: they take turns on whole tiles, one's epilogue under the other's products) multiply with "
               "wgmma;\n");
    else
        putf(o, "(%dx%d over the fragments) multiply with wgmma;\n", p->groups_m, p->groups_n);
    putf(
        o,
        "// persistent blocks (%d or more per SM); %d stages handed over through mbarriers; shared memory %lld bytes (",
        p->min_blocks, p->pipe->stages, p->smem_bytes);
    for (int i = 0; i < p->tiles.len; i++) {
        const Sm90Tile *t = p->tiles.items[i];
        putf(o, "%s%s %d x %lld, %d-byte swizzle%s", i ? "; " : "", t->buf->name, t->preload ? 1 : p->pipe->stages,
             t->bytes, t->swizzle, t->preload ? ", preloaded" : "");
    }
    putf(o, "; barriers at %lld).\n", p->barriers);
    if (p->consumer_regs)
        putf(o, "// Registers a thread (setmaxnreg): the producer's %d, each consumer's %d (%lld for fragments).\n",
             p->producer_regs, p->consumer_regs, p->fragment_regs);
    if (p->dynamic)
        put(o,
            "// The iterations' work varies (the pipelined loop's trip count reads the grid's variables): each block "
            "takes\n// the next one from a counter when it finishes one, through a queue from the producer.\n");
    if (p->shallow)
        putf(o,
             "// The launcher takes it only with TILEPP_PATH=sm90: its pipeline keeps %lld KB of copies in flight per "
             "SM,\n// too few to feed wgmma (%d KB or more do), where the sm_80 kernel is faster. More stages, or "
             "larger tiles a stage, for this variant.\n",
             p->in_flight / 1024, SM90_MIN_IN_FLIGHT / 1024);
}

static void put_params(Out *o, const IrKernel *k, const GridPlan *gp)
{
    put_param_list(o, k, kernel_param);
    for (int d = 0; d < gp->grid->depth; d++)
        putf(o, ", tile_loop tile_l%d", d);
    for (int i = 0; i < gp->sm90->tiles.len; i++)
        putf(o, ", const __grid_constant__ CUtensorMap tile_map%d", i);
    for (int i = 0; i < gp->sm90->stores.len; i++)
        putf(o, ", const __grid_constant__ CUtensorMap tile_out%d, bool tile_out%d_ok", i, i);
    if (gp->sm90->dynamic)
        put(o, ", unsigned long long *tile_counter");
}

/* The loop header over the block's grid iterations. Statically, the block
 * takes blockIdx.x, + gridDim.x, ...; dynamically (Sm90Plan.dynamic) the
 * producer takes blockIdx.x, then each next one from the counter (fetched
 * when it starts an iteration, used when it ends: the atomic's latency
 * passes under the copies), and hands them to the consumers through the
 * queue, the last one past the end. Either way the producer runs ahead
 * into the next iteration while the consumers finish the last. */
static void put_tile_loop_header(const Block *bl, bool producer, const char *in)
{
    Out *o = bl->o;
    const char *turn = bl->sm90->pingpong && !producer ? ", tile_turn = 0" : "";
    const char *turn_step = bl->sm90->pingpong && !producer ? ", tile_turn ^= 1" : "";
    if (!bl->sm90->dynamic) {
        putf(o, "%sfor (long long tile_t = blockIdx.x%s; tile_t < tile_blocks; tile_t += gridDim.x%s) {\n", in, turn,
             turn_step);
        return;
    }
    if (!producer) {
        putf(o,
             "%sfor (long long tile_t = tile_queue.take()%s; tile_t < tile_blocks; tile_t = tile_queue.take()%s) {\n",
             in, turn, turn_step);
        return;
    }
    putf(o, "%sfor (long long tile_t = blockIdx.x, tile_after; ; tile_t = tile_after) {\n", in);
    putf(o,
         "%s    tile_after = tile_t < tile_blocks ? tile90::next_tile(tile_counter, tile_t, tile_blocks) : "
         "tile_blocks;\n",
         in);
    putf(o, "%s    tile_queue.put(tile_t); /* past the end: the consumers stop too */\n", in);
    putf(o, "%s    if (tile_t >= tile_blocks)\n%s        break;\n", in, in);
}

static void put_tile_loop(Block *bl, const IrGrid *g, int at_pipe, bool producer, const char *in)
{
    Out *o = bl->o;
    put_tile_loop_header(bl, producer, in);
    const char *body = aprintf("%s    ", in);
    put_block_index(o, g, "tile_t", body);
    for (int i = 0; i < at_pipe; i++) { /* the consumers' scalars, or those the copies read */
        const IrStmt *s = g->body.items[i];
        if (s->kind != STMT_DECL || (producer && !vec_contains(&bl->sm90->producer_decls, s)))
            continue;
        put_code(o, s->code, NULL, false);
        /* the consumers run every declaration; one only the copies read
         * (a K/V head index) would be unused there */
        for (int n = 0; !producer && n < s->decl_names.len && vec_contains(&bl->sm90->producer_decls, s); n++)
            putf(o, "%s(void)%s;\n", body, (const char *)s->decl_names.items[n]);
    }
    const IrLoop *l = &bl->sm90->pipe->loop;
    putf(o, "%sconst tile_loop tile_pl = tile_make_loop((long long)(%s), (long long)(%s), (long long)(%s), %s);\n",
         body, l->lo, l->hi, l->step, l->inclusive ? "true" : "false");
}

/* The TMA copy of tile i (map tile_map<i>) into stage `stage`, completing
 * on barrier `bar`. */
static void put_tma_load(Out *o, const Sm90Tile *t, int i, const char *stage, const char *bar, const char *in)
{
    const IrTileOp *op = t->load;
    line_to_source(o, op->loc);
    putf(o, "%stile90::tma_load(%s(%s), &tile_map%d, %s, (long long)(%s), (long long)(%s)", in, t->buf->name, stage, i,
         bar, op->r0, op->c0);
    for (int l = 0; l < op->mat.nlead; l++)
        putf(o, ", (long long)(%s)", op->mat.lead[l]);
    put(o, ");\n");
    line_to_self(o);
}

static void put_producer(Block *bl, const IrGrid *g, int at_pipe)
{
    Out *o = bl->o;
    const Sm90Plan *p = bl->sm90;
    const IrPipelined *pipe = p->pipe;
    putf(o, "    if (tile90::producer()) {\n        tile90::producer_setmaxnreg<%d>();\n", p->producer_regs);
    put(o, "        if (threadIdx.x == 0) {\n");
    put_tile_loop(bl, g, at_pipe, true, "            ");
    if (p->pre_bytes) { /* once the consumers have handed back the last grid iteration's */
        putf(o, "                {\n                    const int tile_s = tile_pre.produce(%lld);\n", p->pre_bytes);
        for (int i = 0; i < p->tiles.len; i++)
            if (((const Sm90Tile *)p->tiles.items[i])->preload)
                put_tma_load(o, p->tiles.items[i], i, "0", "tile_pre.full(tile_s)", "                    ");
        put(o, "                }\n");
    }
    put(o, "                for (long long tile_i = 0; tile_i < tile_pl.count; tile_i++) {\n");
    putf(o, "                    const int tile_stage = tile_pipe.produce(%lld);\n", p->stage_bytes);
    put_loop_var(o, &pipe->loop, "tile_pl", "tile_i", "                    ");
    for (int i = 0; i < p->tiles.len; i++)
        if (!((const Sm90Tile *)p->tiles.items[i])->preload)
            put_tma_load(o, p->tiles.items[i], i, "tile_stage", "tile_pipe.full(tile_stage)", "                    ");
    put(o, "                }\n            }\n        }\n");
}

/* A shared operand of a product: its stage in the loop, its one copy if
 * preloaded. */
/* A shared tile operand of a product: the preload's one copy, or the
 * tile in the stage named by `stage`. */
static const char *operand(const Block *bl, const IrBuffer *t, const char *stage)
{
    const Sm90Tile *st = sm90_tile(bl->sm90, t);
    return aprintf("%s(%s)", t->name, st->preload ? "0" : stage);
}

/* wgmma: A from shared memory (tile90::mma) or from registers (mma_rs). */
static void put_product(Block *bl, const IrTileOp *g, const char *stage, const char *in)
{
    Out *o = bl->o;
    line_to_source(o, g->loc);
    if (g->a->space == SPACE_FRAGMENT)
        putf(o, "%stile90::mma_rs<%s, %s>(%s, %s, %s);\n", in, g->b_trans ? "true" : "false", elem(g->b), g->a->name,
             operand(bl, g->b, stage), g->c->name);
    else
        putf(o, "%stile90::mma<%s, %s, %s, %lld, %lld, %lld>(%s, %s, %s);\n", in, g->a_trans ? "false" : "true",
             g->b_trans ? "true" : "false", elem(g->a), g->c->dims[0], g->c->dims[1],
             g->a_trans ? g->a->dims[0] : g->a->dims[1], operand(bl, g->a, stage), operand(bl, g->b, stage),
             g->c->name);
    line_to_self(o);
}

/* Statements first..last of the loop's body (the loads are the
 * producer's), each after its planned wait: the planned count of products
 * left running, or none (`all`: the first iteration of a rotated loop,
 * which has fewer products in flight than the planned counts assume). */
static void put_body(Block *bl, const IrPipelined *pipe, int first, int last, bool all, const char *in)
{
    Out *o = bl->o;
    for (int i = first; i <= last; i++) {
        const IrStmt *s = pipe->body.items[i];
        if ((s->kind == STMT_TILE_OP && s->op->kind == TILE_LOAD) || vec_contains(&bl->sm90->under_head, s))
            continue;
        const Sm90Wait *w = sm90_wait_before(bl->sm90, s);
        for (int f = 0; w && f < w->pinned.len; f++)
            putf(o, "%stile90::ptx::fence_operands(%s.v); /* computed under the products in flight */\n", in,
                 ((const IrBuffer *)w->pinned.items[f])->name);
        if (w && w->held && !all)
            putf(o, "%stile90::ptx::hold_wait(tile_i); /* the work above runs under the products */\n", in);
        if (w)
            putf(o, "%stile90::ptx::wgmma_wait<%d>(); /* the products in flight touch what comes next */\n", in,
                 all ? 0 : w->pending);
        for (int f = 0; w && f < w->after.len; f++)
            putf(o, "%stile90::ptx::fence_operands(%s.v); /* read after the wait */\n", in,
                 ((const IrBuffer *)w->after.items[f])->name);
        if (s->kind == STMT_PARALLEL)
            put_fragment_loop(o, block_parallel(bl->gp, s->par), in);
        else if (s->op->kind == TILE_GEMM)
            put_product(bl, s->op, "tile_stage", in);
        else
            put_op(bl, s->op, in);
    }
}

/* One iteration of the consumers' loop up to its body: the stage it
 * takes, and the loop's variable where the body reads it. */
static void put_iteration_start(Out *o, const IrPipelined *pipe, bool plain, const char *in)
{
    putf(o, "%sconst int tile_stage = tile_pipe.consume();\n", in);
    if (!plain)
        put_loop_var(o, &pipe->loop, "tile_pl", "tile_i", in);
}

/* The previous iteration's work that runs under the head (Sm90Plan.
 * under_head), then its tail; each statement after the fences of the
 * products' registers it touches (Sm90Plan.under_head_fenced). */
static void put_tail(Block *bl, const IrTileOp *tail, const char *in)
{
    const Vec *late = &bl->sm90->under_head;
    for (int i = 0; i < late->len; i++) {
        const IrStmt *s = late->items[i];
        Vec frags = {0};
        for (int a = 0; a < s->par->accesses.len; a++) {
            const IrBuffer *b = ((const IrAccess *)s->par->accesses.items[a])->buf;
            if (!vec_contains(&frags, b) && vec_contains(&bl->sm90->under_head_fenced, b)) {
                vec_push(&frags, (void *)b);
                putf(bl->o, "%stile90::ptx::fence_operands(%s.v); /* the previous iteration's, complete */\n", in,
                     b->name);
            }
        }
        put_fragment_loop(bl->o, block_parallel(bl->gp, s->par), in);
    }
    put_product(bl, tail, "tile_prev", in);
}

/* A rotated loop (Sm90Plan.rotated). The first iteration, peeled before
 * the loop, runs its body with no tail before it; each later one issues
 * its head, then the previous iteration's work under the head and its
 * tail on the previous stage, then the rest of its body, ends with every
 * product complete and hands the previous stage back. After the loop, the
 * last work under the head and tail. Peeled rather than
 * a branch on the first iteration inside the loop: with both bodies in the
 * loop, ptxas kept a second set of registers for the tail's register
 * operand (FlashAttention's P: it wrote each step's P while the product in
 * flight read the last one), or copied it into one set before each tail,
 * and serialized the products where the registers did not allow the
 * second set (bench/RESULTS.md). */
static void put_rotated_loop(Block *bl, const IrPipelined *pipe)
{
    Out *o = bl->o;
    const Sm90Plan *p = bl->sm90;
    const char *in = "                    ";
    const IrTileOp *tail = ((const IrStmt *)pipe->body.items[p->tail])->op;
    put(o, "                int tile_prev = 0; /* the previous iteration's stage */\n");
    put(o, "                if (tile_pl.count > 0) { /* the first iteration: no tail before its body */\n");
    put(o, "                    [[maybe_unused]] const long long tile_i = 0;\n");
    put_iteration_start(o, pipe, false, in);
    put_body(bl, pipe, 0, p->head, false, in);
    put_body(bl, pipe, p->head + 1, p->tail - 1, true, in);
    putf(o, "%stile90::ptx::wgmma_wait<0>();\n%stile_prev = tile_stage;\n", in, in);
    put(o, "                }\n");
    put(o, "                for (long long tile_i = 1; tile_i < tile_pl.count; tile_i++) {\n");
    put_iteration_start(o, pipe, false, in);
    put_body(bl, pipe, 0, p->head, false, in);
    put_tail(bl, tail, in);
    put_body(bl, pipe, p->head + 1, p->tail - 1, false, in);
    putf(o, "%stile90::ptx::wgmma_wait<0>();\n", in);
    putf(o, "%stile_pipe.give_back(tile_prev);\n%stile_prev = tile_stage;\n", in, in);
    put(o, "                }\n");
    put(o, "                if (tile_pl.count > 0) { /* the last iteration's tail */\n");
    put_tail(bl, tail, in);
    putf(o, "%stile90::ptx::wgmma_wait<0>();\n%stile_pipe.give_back(tile_prev);\n", in, in);
    put(o, "                }\n");
}

/* The consumers' pipelined loop: for each iteration, wait for the stage,
 * run the body's products and fragment work in order (waiting for the
 * products in flight where lowering planned it), hand the stage back (the
 * last product stays in flight); then wait for everything. Rotated, in
 * the order put_rotated_loop prints. */
static void put_consumer_loop(Block *bl, const IrPipelined *pipe)
{
    Out *o = bl->o;
    const Sm90Plan *p = bl->sm90;
    const char *in = "                    ";
    bool plain = true; /* loads and products only: the loop variable is the producer's */
    for (int i = 0; i < pipe->body.len; i++) {
        const IrStmt *s = pipe->body.items[i];
        plain &= s->kind == STMT_TILE_OP && (s->op->kind == TILE_LOAD || s->op->kind == TILE_GEMM);
    }
    putf(o, "            { // #pragma tile pipelined stages(%d) at %s:%d%s\n", pipe->stages, o->names->source_name,
         pipe->loc.line,
         p->rotated ? ": software-pipelined, each iteration's first product before the previous one's last" : "");
    if (p->rotated) {
        put_rotated_loop(bl, pipe);
    } else {
        if (p->pingpong)
            put(o,
                "                tile_turns.wait(tile_turn_mine); /* the other warpgroup's products are issued */\n");
        put(o, "                for (long long tile_i = 0; tile_i < tile_pl.count; tile_i++) {\n");
        put_iteration_start(o, pipe, plain, in);
        put_body(bl, pipe, 0, pipe->body.len - 1, false, in);
        put(o, "                    tile_pipe.release(tile_stage);\n                }\n");
        if (p->pingpong)
            put(o, "                tile_turns.pass(tile_turn_mine); /* every stage of the tile has landed */\n");
        put(o, "                tile_pipe.drain();\n");
    }
    if (p->pre_bytes)
        put(o, "                tile_pre.give_back(0); /* the preloaded tiles, to the producer's next iteration */\n");
    put(o, "            }\n");
}

/* A fragment store through the staging buffers and TMA, where the launcher
 * could make the matrix's tensor map and the window starts where lowering
 * says TMA can take it; from registers otherwise. */
static void put_store(Block *bl, const Sm90Store *st, int index, const char *in)
{
    Out *o = bl->o;
    const Sm90Plan *p = bl->sm90;
    const IrTileOp *op = st->op;
    line_to_source(o, op->loc);
    putf(o, "%sif (tile_out%d_ok", in, index);
    if (st->origin_test)
        putf(o, " && (%s) >= 0 && (%s) >= 0", op->r0, op->c0);
    putf(o, " && (%s) %% %d == 0)\n", op->c0, st->c0_multiple);
    putf(o,
         "%s    tile90::store_tma<%s>(tile_smem + %lld, tile_chunks, &tile_out%d, (long long)(%s), (long long)(%s), %s",
         in, elem(op->mat.buf), p->epilogue, index, op->r0, op->c0, op->src->name);
    for (int l = 0; l < op->mat.nlead; l++)
        putf(o, ", (long long)(%s)", op->mat.lead[l]);
    put(o, ");\n");
    line_to_self(o);
    putf(o, "%selse\n", in);
    put_op(bl, op, aprintf("%s    ", in));
}

/* The grid body's statements of the consumers, per iteration: all but the
 * scalar declarations before the loop (already emitted) and the shared
 * tiles. */
static void put_consumer(Block *bl, const IrGrid *g, int at_pipe)
{
    Out *o = bl->o;
    const Sm90Plan *p = bl->sm90;
    putf(o, "    } else {\n        tile90::consumer_setmaxnreg<%d>();\n", p->consumer_regs);
    if (p->stores.len)
        put(o, "        int tile_chunks = 0; /* epilogue chunks so far: they take turns in the staging buffers */\n");
    if (p->pingpong)
        put(o,
            "        const int tile_turn_mine = tile90::consumer_group(); /* the iterations this warpgroup takes */\n");
    put_tile_loop(bl, g, at_pipe, false, "        ");
    const char *in = "            ";
    if (p->pingpong)
        putf(o,
             "%sif (tile_turn != tile_turn_mine) { /* the other warpgroup's tile: its stages go by */\n"
             "%s    tile_pipe.skip(tile_pl.count);\n%s    continue;\n%s}\n",
             in, in, in, in);
    for (int i = 0; i < g->body.len; i++) {
        const IrStmt *s = g->body.items[i];
        switch (s->kind) {
        case STMT_TILE_DECL:
            if (s->tile->space == SPACE_FRAGMENT)
                put_tile_decl(bl, s->tile);
            break;
        case STMT_TILE_OP: {
            int store = sm90_store_index(p, s->op);
            if (s->op->kind == TILE_LOAD && s->op->dst->space == SPACE_SHARED)
                putf(o, "%stile_pre.consume(); /* %s, preloaded by the producer */\n", in, s->op->dst->name);
            else if (store >= 0)
                put_store(bl, p->stores.items[store], store, in);
            else
                put_op(bl, s->op, in);
            break;
        }
        case STMT_PIPELINED:
            put_consumer_loop(bl, s->pipe);
            break;
        case STMT_PARALLEL: /* over a fragment's layout (lower_sm90.c) */
            put_fragment_loop(o, block_parallel(bl->gp, s->par), in);
            break;
        case STMT_DECL:
            if (i > at_pipe)
                put_code(o, s->code, NULL, false);
            break;
        default:
            break;
        }
    }
    put(o, "        }\n");
    if (p->stores.len)
        put(o, "        tile90::store_tma_finish();\n");
    put(o, "    }\n");
}

/* Parameters the #else branch does not read. */
static void put_unused(Out *o, const IrKernel *k, const GridPlan *gp)
{
    put(o, "#else\n");
    for (int i = 0; i < k->params.len; i++)
        putf(o, "    (void)%s;\n", kernel_param_name(k->params.items[i]));
    for (int d = 0; d < gp->grid->depth; d++)
        putf(o, "    (void)tile_l%d;\n", d);
    for (int i = 0; i < gp->sm90->tiles.len; i++)
        putf(o, "    (void)tile_map%d;\n", i);
    for (int i = 0; i < gp->sm90->stores.len; i++)
        putf(o, "    (void)tile_out%d;\n    (void)tile_out%d_ok;\n", i, i);
    if (gp->sm90->dynamic)
        put(o, "    (void)tile_counter;\n");
    put(o, "#endif\n}\n\n");
}

void put_grid_kernel_sm90(Out *o, const IrKernel *k, const GridPlan *gp)
{
    const IrGrid *g = gp->grid;
    const Sm90Plan *p = gp->sm90;
    Block bl = {o, NULL, k, gp, "tile_stage", p};
    int at_pipe = p->pipe_at;
    put_comment(o, gp);
    putf(o, "__global__ void __launch_bounds__(%d, %d) %s_sm90(", p->threads, p->min_blocks, gp->kernel_name);
    put_params(o, k, gp);
    put(o, ")\n{\n#if TILE90_DEVICE\n");
    put(o, "    extern __shared__ __align__(1024) unsigned char tile_smem_raw[];\n");
    put(o, "    unsigned char *const tile_smem = tile90::align_smem(tile_smem_raw);\n");
    put_decls(o, &gp->decls);
    put_views(o, &gp->views, "    ");
    for (int i = 0; i < g->body.len; i++) {
        const IrStmt *s = g->body.items[i];
        if (s->kind == STMT_TILE_DECL && s->tile->space == SPACE_SHARED)
            put_tile_decl(&bl, s->tile);
    }
    putf(o, "    tile90::pipeline<%d> tile_pipe{reinterpret_cast<uint64_t *>(tile_smem + %lld)};\n", p->pipe->stages,
         p->barriers);
    putf(o, "    tile_pipe.init(%d);\n", 4 * p->groups_m * p->groups_n);
    if (p->pre_bytes)
        putf(o,
             "    tile90::pipeline<1> tile_pre{reinterpret_cast<uint64_t *>(tile_smem + %lld)}; /* the preloads */\n"
             "    tile_pre.init(%d);\n",
             p->pre_barriers, 4 * p->groups_m * p->groups_n);
    if (p->pingpong)
        putf(o,
             "    tile90::turns tile_turns{reinterpret_cast<uint64_t *>(tile_smem + %lld)};\n    tile_turns.init();\n",
             p->pre_barriers);
    if (p->dynamic)
        putf(
            o,
            "    tile90::iter_queue<%d> tile_queue{reinterpret_cast<uint64_t *>(tile_smem + %lld)}; /* the iterations, "
            "for the consumers */\n    tile_queue.init(%d);\n",
            SM90_QUEUE_SLOTS, p->queue, 4 * p->consumers);
    put(o, "    __syncthreads();\n");
    put(o, "    const long long tile_blocks = tile_l0.count");
    for (int d = 1; d < g->depth; d++)
        putf(o, " * tile_l%d.count", d);
    put(o, ";\n");
    put_producer(&bl, g, at_pipe);
    put_consumer(&bl, g, at_pipe);
    put_unused(o, k, gp);
}

/* ---- the launcher ---- */

/* make_tmap's arguments after the map and the tile type: base, rows, cols,
 * leading dimension and, for slices, the leading subscripts' extents and
 * strides. */
static void put_tmap_args(Out *o, const IrTileOp *op)
{
    const IrBuffer *buf = op->mat.buf;
    const char *cols = buf->extents[buf->rank - 1];
    const char *rows = op->rows ? op->rows : buf->extents[buf->rank - 2] ? buf->extents[buf->rank - 2] : "INT_MAX";
    putf(o, "%s, (long long)(%s), (long long)(%s), (long long)(%s)", buf->name, rows, op->rows ? op->cols : cols, cols);
    if (!op->mat.nlead)
        return;
    putf(o, ", tile90::lead_dims{%d, {", op->mat.nlead);
    for (int d = 0; d < op->mat.nlead; d++)
        putf(o, "%s(long long)(%s)", d ? ", " : "", buf->extents[d] ? buf->extents[d] : "INT_MAX");
    put(o, "}, {");
    for (int d = 0; d < op->mat.nlead; d++) {
        put(o, d ? ", 1LL" : "1LL");
        for (int e = d + 1; e < buf->rank; e++)
            putf(o, " * (long long)(%s)", buf->extents[e]);
    }
    put(o, "}}");
}

void put_grid_launch_sm90(Out *o, const IrKernel *k, const GridPlan *gp)
{
    const Sm90Plan *p = gp->sm90;
    const char *kernel = aprintf("%s_sm90", gp->kernel_name);
    put(o, "            const tile90::path_choice tile_path = tile90::path_from_env();\n");
    put(o, "            bool tile_launched = false;\n");
    putf(o,
         "            if (tile_path %s && tile90::device_is_sm90(&tile_dev) && tile90::has_sm90a<%s>(&tile_dev)) {\n",
         p->shallow ? "== tile90::PATH_SM90" : "!= tile90::PATH_SM80", kernel);
    put(o, "                CUtensorMap");
    for (int i = 0; i < p->tiles.len; i++)
        putf(o, "%s tile_map%d", i ? "," : "", i);
    put(o, ";\n                if (true");
    for (int i = 0; i < p->tiles.len; i++) {
        const Sm90Tile *t = p->tiles.items[i];
        putf(o, "\n                    && tile90::make_tmap<%s>(&tile_map%d, ", tile_type(t), i);
        put_tmap_args(o, t->load);
        put(o, ")");
    }
    put(o, ") {\n");
    for (int i = 0; i < p->stores.len; i++) { /* without its map, a store goes out from registers */
        const IrTileOp *op = ((const Sm90Store *)p->stores.items[i])->op;
        putf(o, "                    CUtensorMap tile_out%d;\n", i);
        putf(o,
             "                    const bool tile_out%d_ok = "
             "tile90::make_tmap<tile90::epilogue_chunk<%s>::tile>(&tile_out%d, ",
             i, elem(op->mat.buf), i);
        put_tmap_args(o, op);
        put(o, ");\n");
    }
    putf(o,
         "                    tile_err = tile_allow_smem(&tile_dev, %s, %lld);\n"
         "                    if (tile_err != cudaSuccess)\n                        return tile_prof.failed(&tile_dev, "
         "tile_err);\n",
         kernel, p->smem_bytes);
    put(o, "                    long long tile_grid = 0;\n");
    putf(
        o,
        "                    tile_err = tile90::persistent_blocks(&tile_dev, %s, %d, %lld, tile_blocks, &tile_grid);\n",
        kernel, p->threads, p->smem_bytes);
    put(o,
        "                    if (tile_err != cudaSuccess)\n                        return tile_prof.failed(&tile_dev, "
        "tile_err);\n");
    if (p->dynamic) /* the iterations' work varies: blocks take them from a counter as they finish */
        put(o, "                    tile90::iter_counter tile_ctr; /* none when each block has one iteration */\n"
               "                    tile_err = tile_ctr.init(&tile_dev, tile_stream, tile_blocks > tile_grid);\n"
               "                    if (tile_err != cudaSuccess)\n                        return "
               "tile_prof.failed(&tile_dev, tile_err);\n");
    putf(o, "                    tile_err = tile_launch_blocks(%s, tile_grid, %d, %lld, tile_stream, ", kernel,
         p->threads, p->smem_bytes);
    put_arg_names(o, k);
    for (int d = 0; d < gp->grid->depth; d++)
        putf(o, ", tile_l%d", d);
    for (int i = 0; i < p->tiles.len; i++)
        putf(o, ", tile_map%d", i);
    for (int i = 0; i < p->stores.len; i++)
        putf(o, ", tile_out%d, tile_out%d_ok", i, i);
    if (p->dynamic)
        put(o, ", tile_ctr.ptr");
    put(o, ");\n                    if (tile_err != cudaSuccess)\n                        return "
           "tile_prof.failed(&tile_dev, tile_err);\n");
    put(o, "                    tile_launched = true;\n                    tile_prof.path = \"sm_90a\";\n              "
           "  }\n"
           "            }\n");
    put(o, "            if (!tile_launched && tile_path == tile90::PATH_SM90)\n");
    put(o,
        "                return tile_prof.failed(&tile_dev, cudaErrorNotSupported, \"TILEPP_PATH=sm90, and the sm_90a "
        "variant cannot run here\");\n");
}

/* emit_sm90.c — CUDA for the sm_90a variant of a grid (lower_sm90.c), a
 * warp-specialized, persistent kernel composed of tile_mma_sm90.cuh's
 * primitives. Each block walks the grid's iterations blockIdx.x, +gridDim.x,
 * ...; for each:
 *
 *   warpgroup 0, one thread   for each iteration of the pipelined loop: wait
 *                             for a free stage, TMA-copy its tiles into it;
 *   warpgroups 1..            the fragments; for each iteration: wait for the
 *                             stage, wgmma, hand the previous stage back;
 *                             then the work after the loop (the epilogue,
 *                             fragment stores through TMA where planned).
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
    if (l && l->kind == LAYOUT_ROWS) {
        putf(o, "            tile80::rows_frag<tile90::accum<%lld, %lld, %d, %d>> %s;\n", l->of->dims[0],
             l->of->dims[1], p->groups_m, p->groups_n, t->name);
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
    putf(o,
         "// The sm_90a variant of %s: warpgroup 0 copies the tiles with TMA (one thread), %d consumer warpgroup%s "
         "(%dx%d over the fragments) multiply with wgmma;\n// persistent blocks (%d or more per SM); %d stages handed "
         "over through mbarriers; shared memory %lld bytes (",
         gp->kernel_name, p->groups_m * p->groups_n, p->groups_m * p->groups_n > 1 ? "s" : "", p->groups_m, p->groups_n,
         p->min_blocks, p->pipe->stages, p->smem_bytes);
    for (int i = 0; i < p->tiles.len; i++) {
        const Sm90Tile *t = p->tiles.items[i];
        putf(o, "%s%s %d x %lld, %d-byte swizzle", i ? "; " : "", t->buf->name, p->pipe->stages, t->bytes, t->swizzle);
    }
    putf(o, "; barriers at %lld).\n", p->barriers);
    if (p->shallow)
        putf(o,
             "// The launcher takes it only with TILEPP_PATH=sm90: its pipeline keeps %lld KB of copies in flight per "
             "SM,\n// too few to feed wgmma (%d KB or more do), where the sm_80 kernel is faster. Deepen stages or "
             "BK for this variant.\n",
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
}

/* Each block takes the grid's iterations blockIdx.x, + gridDim.x, ...: the
 * producer runs ahead into the next one while the consumers finish the last. */
static void put_tile_loop(Block *bl, const IrGrid *g, int at_pipe, const char *in)
{
    Out *o = bl->o;
    putf(o, "%sfor (long long tile_t = blockIdx.x; tile_t < tile_blocks; tile_t += gridDim.x) {\n", in);
    const char *body = aprintf("%s    ", in);
    put_block_index(o, g, "tile_t", body);
    for (int i = 0; i < at_pipe; i++) { /* the scalars the copies may read */
        const IrStmt *s = g->body.items[i];
        if (s->kind == STMT_DECL)
            put_code(o, s->code, NULL, false);
    }
    const IrLoop *l = &bl->sm90->pipe->loop;
    putf(o, "%sconst tile_loop tile_pl = tile_make_loop((long long)(%s), (long long)(%s), (long long)(%s), %s);\n",
         body, l->lo, l->hi, l->step, l->inclusive ? "true" : "false");
}

static void put_producer(Block *bl, const IrGrid *g, int at_pipe)
{
    Out *o = bl->o;
    const Sm90Plan *p = bl->sm90;
    const IrPipelined *pipe = p->pipe;
    putf(o, "    if (tile90::producer()) {\n        tile90::producer_setmaxnreg<%d>();\n", p->consumer_regs);
    put(o, "        if (threadIdx.x == 0) {\n");
    put_tile_loop(bl, g, at_pipe, "            ");
    put(o, "                for (long long tile_i = 0; tile_i < tile_pl.count; tile_i++) {\n");
    putf(o, "                    const int tile_stage = tile_pipe.produce(%lld);\n", p->stage_bytes);
    put_loop_var(o, &pipe->loop, "tile_pl", "tile_i", "                    ");
    for (int i = 0; i < p->tiles.len; i++) {
        const Sm90Tile *t = p->tiles.items[i];
        const IrTileOp *op = t->load;
        line_to_source(o, op->loc);
        putf(o,
             "                    tile90::tma_load(%s(tile_stage), &tile_map%d, tile_pipe.full(tile_stage), "
             "(long long)(%s), (long long)(%s)",
             t->buf->name, i, op->r0, op->c0);
        for (int l = 0; l < op->mat.nlead; l++)
            putf(o, ", (long long)(%s)", op->mat.lead[l]);
        put(o, ");\n");
        line_to_self(o);
    }
    put(o, "                }\n            }\n        }\n");
}

static void put_consumer_loop(Block *bl, const IrPipelined *pipe)
{
    Out *o = bl->o;
    const IrTileOp *g = bl->sm90->gemm;
    long long bk = g->a_trans ? g->a->dims[0] : g->a->dims[1];
    putf(o, "            { // #pragma tile pipelined stages(%d) at %s:%d\n", pipe->stages, o->names->source_name,
         pipe->loc.line);
    put(o, "                for (long long tile_i = 0; tile_i < tile_pl.count; tile_i++) {\n");
    put(o, "                    const int tile_stage = tile_pipe.consume();\n");
    line_to_source(o, g->loc);
    putf(o, "                    tile90::mma<%s, %s, %s, %lld, %lld, %lld>(%s(tile_stage), %s(tile_stage), %s);\n",
         g->a_trans ? "false" : "true", g->b_trans ? "true" : "false", elem(g->a), g->c->dims[0], g->c->dims[1], bk,
         g->a->name, g->b->name, g->c->name);
    line_to_self(o);
    put(o, "                    tile_pipe.release(tile_stage);\n                }\n");
    put(o, "                tile_pipe.drain();\n            }\n");
}

/* A fragment store through the staging buffers and TMA, where the launcher
 * could make the matrix's tensor map; from registers otherwise. */
static void put_store(Block *bl, const IrTileOp *op, int index, const char *in)
{
    Out *o = bl->o;
    const Sm90Plan *p = bl->sm90;
    line_to_source(o, op->loc);
    putf(o, "%sif (tile_out%d_ok)\n", in, index);
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
    put_tile_loop(bl, g, at_pipe, "        ");
    const char *in = "            ";
    for (int i = 0; i < g->body.len; i++) {
        const IrStmt *s = g->body.items[i];
        switch (s->kind) {
        case STMT_TILE_DECL:
            if (s->tile->space == SPACE_FRAGMENT)
                put_tile_decl(bl, s->tile);
            break;
        case STMT_TILE_OP: {
            int store = sm90_store_index(p, s->op);
            if (store >= 0)
                put_store(bl, s->op, store, in);
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
    putf(o, "    tile_pipe.init(%d);\n    __syncthreads();\n", 4 * p->groups_m * p->groups_n);
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
    putf(o, "            if (tile_path %s && tile90::device_is_sm90() && tile90::has_sm90a<%s>()) {\n",
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
         "                    tile_err = cudaFuncSetAttribute(%s, cudaFuncAttributeMaxDynamicSharedMemorySize, %lld);\n"
         "                    if (tile_err != cudaSuccess)\n                        return tile_err;\n",
         kernel, p->smem_bytes);
    put(o, "                    long long tile_grid = 0;\n");
    putf(o, "                    tile_err = tile90::persistent_blocks(%s, %d, %lld, tile_blocks, &tile_grid);\n",
         kernel, p->threads, p->smem_bytes);
    put(o, "                    if (tile_err != cudaSuccess)\n                        return tile_err;\n");
    putf(o, "                    tile_err = tile_launch_blocks(%s, tile_grid, %d, %lld, tile_stream, ", kernel,
         p->threads, p->smem_bytes);
    put_arg_names(o, k);
    for (int d = 0; d < gp->grid->depth; d++)
        putf(o, ", tile_l%d", d);
    for (int i = 0; i < p->tiles.len; i++)
        putf(o, ", tile_map%d", i);
    for (int i = 0; i < p->stores.len; i++)
        putf(o, ", tile_out%d, tile_out%d_ok", i, i);
    put(o, ");\n                    if (tile_err != cudaSuccess)\n                        return tile_err;\n");
    put(o, "                    tile_launched = true;\n                }\n            }\n");
    put(o, "            if (!tile_launched && tile_path == tile90::PATH_SM90)\n");
    put(o, "                return cudaErrorNotSupported; /* TILEPP_PATH=sm90 and the sm_90a variant cannot run */\n");
}

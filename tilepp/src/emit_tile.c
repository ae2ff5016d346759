/* emit_tile.c — CUDA for grids: one thread block per iteration of the grid
 * nest, tiles in shared memory and registers, tile operations as calls of
 * the sm_80 tensor-core primitives (tile_mma_sm80.cuh), pipelined loops as
 * multi-stage cp.async pipelines; and the grids' launches, which pick the
 * sm_90a variant (emit_sm90.c) where there is one and it can run. */
#include "emit_internal.h"

#include <string.h>

MatrixRef matrix_ref(const Block *bl, const IrTileOp *op)
{
    const IrMatrix *m = &op->mat;
    const IrBuffer *buf = m->buf;
    const IrParam *p = ir_param_of_buffer(bl->k, buf);
    Str offset = {0};
    for (int d = 0; d < m->nlead; d++) {
        str_addf(&offset, " + (long long)(%s)", m->lead[d]);
        for (int e = d + 1; e < buf->rank; e++)
            str_addf(&offset, " * (long long)(%s)", buf->extents[e]);
    }
    if (m->shift) /* a vector `x + off`: its window and edges are measured from x + off */
        str_addf(&offset, " + (long long)(%s)", m->shift);
    MatrixRef r;
    const char *name = p && buf->rank >= 2 ? aprintf("tile_p_%s", buf->name) : buf->name;
    r.ptr = aprintf("(%s%s)", name, str_cstr(&offset));
    str_free(&offset);
    const IrBuffer *tile = op->kind == TILE_LOAD ? op->dst : op->src;
    if (tile->rank == 1) { /* a vector: row 0 of a one-row matrix */
        r.ld = "0LL";
        r.rows = "1LL";
        r.cols = op->cols ? aprintf("(long long)(%s)", op->cols) : "LLONG_MAX";
        return r;
    }
    r.ld = aprintf("(long long)(%s)", buf->extents[buf->rank - 1]);
    if (op->rows) {
        r.rows = aprintf("(long long)(%s)", op->rows);
        r.cols = aprintf("(long long)(%s)", op->cols);
    } else { /* the 4-argument form promises the tile is inside the matrix */
        const char *rows = buf->extents[buf->rank - 2];
        r.rows = rows ? aprintf("(long long)(%s)", rows) : "LLONG_MAX";
        r.cols = r.ld;
    }
    return r;
}

const char *elem(const IrBuffer *b) { return unqualified(b->elem.spelling); }

/* The sm_80 type of a 2-D fragment's layout. */
static const char *layout_type(const FragLayout *l)
{
    const IrBuffer *t = l->frag;
    if (l->kind == LAYOUT_STRIPS)
        return aprintf("tile80::strips<%lld, %lld, %d, %d, %d, %d>", t->dims[0], t->dims[1], l->warps_m, l->warps_n,
                       l->vec, l->lanes);
    return aprintf("tile80::accum<%lld, %lld, %d, %d>", t->dims[0], t->dims[1], l->warps_m, l->warps_n);
}

void put_tile_decl(Block *bl, const IrBuffer *t)
{
    Out *o = bl->o;
    const GridPlan *gp = bl->gp;
    if (bl->sm90) {
        put_tile_decl_sm90(bl, t);
        return;
    }
    const FragLayout *l = t->space == SPACE_FRAGMENT ? fragment_layout(gp, t) : NULL;
    if (l && (l->kind == LAYOUT_ROWS || l->kind == LAYOUT_COLS))
        putf(o, "    tile80::%s_frag<%s> %s;\n", l->kind == LAYOUT_ROWS ? "rows" : "cols",
             layout_type(fragment_layout(gp, l->of)), t->name);
    else if (l && l->kind == LAYOUT_SPREAD)
        putf(o, "    tile80::vec_frag<%lld, %d> %s;\n", t->dims[0], bl->k->threads, t->name);
    else if (l && l->packed) /* only a product's A operand: as the products read it */
        putf(o, "    tile80::packed_a<%s, %s> %s;\n", layout_type(l), elem(t), t->name);
    else if (l)
        putf(o, "    %s %s;\n", layout_type(l), t->name);
    else {
        const SharedPlan *sp = grid_shared(gp, t);
        const char *type = t->rank == 1 ? aprintf("tile80::smem_vec<%s, %lld>", elem(t), t->dims[0])
                                        : aprintf("tile80::smem_tile<%s, %lld, %lld>", elem(t), t->dims[0], t->dims[1]);
        put_staged_tile(o, t, type, sp->offset, sp->bytes);
    }
}

/* Stage s of the tile, computed rather than kept in an array: an array
 * indexed by the run-time stage would live in local memory. */
void put_staged_tile(Out *o, const IrBuffer *t, const char *type, long long offset, long long bytes)
{
    putf(o,
         "    const auto %s = [&](int tile_s) {\n"
         "        return %s{reinterpret_cast<%s *>(tile_smem + %lld + tile_s * %lld)};\n"
         "    };\n",
         t->name, type, elem(t), offset, bytes);
}

/* A shared tile in the current stage. */
static char *staged(const Block *bl, const IrBuffer *t)
{
    const SharedPlan *sp = grid_shared(bl->gp, t);
    return aprintf("%s(%s)", t->name, sp && sp->stages > 1 ? bl->stage : "0");
}

/* The element (tile_r, tile_c) of a load's window, converted to `to`. */
static char *window_element(const Block *bl, const IrTileOp *op, const char *to)
{
    MatrixRef m = matrix_ref(bl, op);
    return aprintf("tile80::read_or_zero<%s>(%s, %s, (long long)(%s) + tile_r, (long long)(%s) + tile_c, %s, %s)", to,
                   m.ptr, m.ld, op->r0, op->c0, m.rows, m.cols);
}

/* A load into shared memory: cp.async, or (converting, or 1-D) element by
 * element through registers. Either way the caller's wait and barrier make
 * it visible to the block. */
static void put_load(Block *bl, const IrTileOp *op, const char *indent)
{
    if (!tile_load_is_async(op)) {
        putf(bl->o, "%stile80::for_each_shared<%d>(%s, [&](%s &tile_e, int tile_r, int tile_c) { tile_e = %s; });\n",
             indent, bl->k->threads, staged(bl, op->dst), elem(op->dst), window_element(bl, op, elem(op->dst)));
        return;
    }
    MatrixRef m = matrix_ref(bl, op);
    putf(bl->o, "%stile80::load_async<%d, %s>(%s, %s, %s, (long long)(%s), (long long)(%s), %s, %s);\n", indent,
         bl->k->threads, bl->gp->align_variants ? "TILE_ALIGN" : "0", staged(bl, op->dst), m.ptr, m.ld, op->r0, op->c0,
         m.rows, m.cols);
}

/* A load into a fragment: each thread reads its own elements (a 2-D
 * fragment's layout picks how: strips whole where it can). */
static void put_fragment_load(Block *bl, const IrTileOp *op, const char *indent)
{
    if (op->dst->rank == 2) {
        MatrixRef m = matrix_ref(bl, op);
        putf(bl->o, "%stile80::load<%s>(%s, %s, %s, (long long)(%s), (long long)(%s), %s, %s);\n", indent,
             elem(op->dst), op->dst->name, m.ptr, m.ld, op->r0, op->c0, m.rows, m.cols);
        return;
    }
    putf(bl->o, "%s%s.for_each([&](float &tile_v, int tile_r, int tile_c) { tile_v = (float)%s; });\n", indent,
         op->dst->name, window_element(bl, op, elem(op->dst)));
}

/* A store of a 1-D fragment or of a shared tile: element by element. */
static void put_element_store(Block *bl, const IrTileOp *op, const char *indent)
{
    Out *o = bl->o;
    MatrixRef m = matrix_ref(bl, op);
    const char *write = aprintf("tile80::write_inside(%s, %s, (long long)(%s) + tile_r, (long long)(%s) + tile_c, %s, "
                                "%s, tile_v);",
                                m.ptr, m.ld, op->r0, op->c0, m.rows, m.cols);
    if (op->src->space == SPACE_FRAGMENT) { /* a row's (column's) value once, though several threads hold it */
        const FragLayout *l = fragment_layout(bl->gp, op->src);
        bool owned = l->kind == LAYOUT_ROWS || l->kind == LAYOUT_COLS;
        putf(o, "%s%s.%s([&](float &tile_v, int tile_r, int tile_c) { %s });\n", indent, op->src->name,
             owned ? "for_each_owned" : "for_each", write);
        return;
    }
    putf(o, "%stile80::for_each_shared<%d>(%s, [&](%s &tile_v, int tile_r, int tile_c) { %s });\n", indent,
         bl->k->threads, staged(bl, op->src), elem(op->src), write);
}

/* tile_clear and tile_fill: the value rounded to the element type, as C's
 * store into the tile. Shared tiles: between barriers, since other threads
 * may still read the old values and will read the new ones. */
static void put_fill(Block *bl, const IrTileOp *op, const char *indent)
{
    Out *o = bl->o;
    const IrBuffer *t = op->dst;
    if (t->space == SPACE_FRAGMENT && op->kind == TILE_CLEAR)
        putf(o, "%s%s.clear();\n", indent, t->name);
    else if (t->space == SPACE_FRAGMENT)
        putf(o, "%s%s.for_each([&](float &tile_v, int, int) { tile_v = (float)(%s)(%s); });\n", indent, t->name,
             elem(t), op->value);
    else
        putf(o, "%stile80::for_each_shared<%d>(%s, [&](%s &tile_e, int, int) { tile_e = (%s)(%s); });\n", indent,
             bl->k->threads, staged(bl, t), elem(t), elem(t), op->kind == TILE_CLEAR ? "0" : op->value);
}

static void put_gemm(Block *bl, const IrTileOp *op, const char *indent)
{
    const IrBuffer *a = op->a, *b = op->b, *c = op->c;
    long long bk = op->a_trans ? a->dims[0] : a->dims[1];
    if (a->space == SPACE_FRAGMENT) { /* A from registers: warps hold whole rows (lower_tile.c) */
        putf(bl->o, "%stile80::mma_rs<%s, %s>(%s, %s, %s);\n", indent, op->b_trans ? "true" : "false", elem(b), a->name,
             staged(bl, b), c->name);
        return;
    }
    putf(bl->o, "%stile80::mma<%s, %s, %s, %lld, %lld, %lld, %d, %d, %lld, %lld, %lld, %lld>(%s, %s, %s);\n", indent,
         op->a_trans ? "false" : "true", op->b_trans ? "true" : "false", elem(a), c->dims[0], c->dims[1], bk,
         bl->gp->warps_m, bl->gp->warps_n, a->dims[0], a->dims[1], b->dims[0], b->dims[1], staged(bl, a), staged(bl, b),
         c->name);
}

/* The shared scratch of the block's column reductions (lowering's), or a
 * null pointer where one warp holds each column's rows. */
static const char *cols_scratch(const Block *bl)
{
    long long offset = bl->sm90 ? bl->sm90->cols_scratch : bl->gp->cols_bytes ? bl->gp->cols_offset : -1;
    return offset < 0 ? "nullptr" : aprintf("reinterpret_cast<float *>(tile_smem + %lld)", offset);
}

/* Fragments of every element type are float registers holding values of the
 * fragment's type: a copy into a half fragment rounds, as C's does. */
static void put_copy(Block *bl, const IrTileOp *op, const char *indent)
{
    Out *o = bl->o;
    const IrBuffer *d = op->dst, *s = op->src;
    const FragLayout *dl = d->space == SPACE_FRAGMENT ? fragment_layout(bl->gp, d) : NULL;
    if (dl && dl->packed) {
        putf(o, "%s%s.pack(%s); /* rounded and packed for the products it feeds */\n", indent, d->name, s->name);
    } else if (d->space == SPACE_FRAGMENT && s->space == SPACE_FRAGMENT) {
        /* tile_x: not tile_i, the pipelined loop's iteration, which the consumers' code after it reads */
        putf(o, "%sfor (int tile_x = 0; tile_x < (int)(sizeof %s.v / sizeof %s.v[0]); tile_x++)\n", indent, d->name,
             d->name);
        putf(o, "%s    %s.v[tile_x] = (float)(%s)%s.v[tile_x];\n", indent, d->name, elem(d), s->name);
    } else if (s->space == SPACE_FRAGMENT) { /* to shared memory: written by threads, read by the block */
        putf(o, "%s{\n%s    const auto tile_d = %s;\n", indent, indent, staged(bl, d));
        putf(
            o,
            "%s    %s.for_each([&](float &tile_v, int tile_r, int tile_c) { tile_d(tile_r, tile_c) = (%s)tile_v; });\n",
            indent, s->name, elem(d));
        putf(o, "%s}\n", indent);
    } else if (d->space == SPACE_SHARED) { /* shared to shared: between barriers */
        putf(o, "%s{\n%s    const auto tile_s = %s;\n", indent, indent, staged(bl, s));
        const char *assign = aprintf("tile_e = (%s)tile_s(tile_r, tile_c);", elem(d));
        putf(o, "%s    tile80::for_each_shared<%d>(%s, [&](%s &tile_e, int tile_r, int tile_c) { %s });\n", indent,
             bl->k->threads, staged(bl, d), elem(d), assign);
        putf(o, "%s}\n", indent);
    } else { /* from shared memory */
        putf(o, "%s{\n%s    const auto tile_s = %s;\n", indent, indent, staged(bl, s));
        putf(o,
             "%s    %s.for_each([&](float &tile_v, int tile_r, int tile_c) { tile_v = (float)(%s)(float)tile_s(tile_r, "
             "tile_c); });\n",
             indent, d->name, elem(d));
        putf(o, "%s}\n", indent);
    }
}

/* ---- tile_print ---- */

/* Whether this block prints (TILEPP_PRINT_BLOCK, read by the launcher). */
static char *print_selected(const IrGrid *g)
{
    Str s = {0};
    str_add(&s, "tile_print_selected(tile_psel, ");
    for (int d = 0; d < g->depth; d++)
        str_addf(&s, "%stile_b%d == 0", d ? " && " : "", d);
    for (int d = 0; d < g->depth; d++)
        str_addf(&s, ", (long long)(%s)", g->loops[d].var);
    str_add(&s, ")");
    return atake(&s);
}

/* Thread 0 of a selected block: takes the device's print lock and names the block. */
static void put_print_open(Block *bl, const char *in)
{
    const IrGrid *g = bl->gp->grid;
    putf(bl->o, "%s    tile_print_acquire();\n%s    printf(\"-- block (", in, in);
    for (int d = 0; d < g->depth; d++)
        putf(bl->o, "%s%s=%%lld", d ? ", " : "", g->loops[d].var);
    put(bl->o, ")\\n\"");
    for (int d = 0; d < g->depth; d++)
        putf(bl->o, ", (long long)(%s)", g->loops[d].var);
    put(bl->o, ");\n");
}

/* The cast that gives a scalar of type t the overload of tile_print_elem
 * that prints it as tile.h does. */
static const char *print_cast(const IrType *t)
{
    switch (t->kind) {
    case SCALAR_BOOL:
        return "bool";
    case SCALAR_INT:
        return t->is_signed ? "long long" : "unsigned long long";
    case SCALAR_DOUBLE:
        return "double";
    default:
        return "float";
    }
}

/* tile_print(x): one thread of each selected block prints (lower_block.c's
 * barriers around a shared tile's print; a fragment's goes through the
 * grid's print scratch, some rows at a time, between barriers). */
static void put_print(Block *bl, const IrTileOp *op, const char *in)
{
    Out *o = bl->o;
    const IrBuffer *t = op->src;
    const char *name = aprintf("\"%s\"", c_string(op->print_name));
    if (!t) {
        putf(o, "%sif (threadIdx.x == 0 && %s) {\n", in, print_selected(bl->gp->grid));
        put_print_open(bl, in);
        putf(o, "%s    tile_print_scalar(%s, (%s)(%s));\n", in, name, print_cast(&op->print_type), op->value);
        putf(o, "%s    tile_print_release();\n%s}\n", in, in);
        return;
    }
    long long rows = t->rank == 2 ? t->dims[0] : 1, cols = t->dims[t->rank - 1];
    const char *title = aprintf("tile_print_title(%s, \"%s\", %lld, %lld, %d);", name, elem(t), rows, cols, t->rank);
    if (t->space == SPACE_SHARED) {
        putf(o, "%sif (threadIdx.x == 0 && %s) {\n", in, print_selected(bl->gp->grid));
        put_print_open(bl, in);
        putf(o, "%s    const auto tile_t = %s;\n%s    %s\n", in, staged(bl, t), in, title);
        putf(o,
             "%s    tile_print_rows<%s>(%lld, %lld, [&](int tile_r, int tile_c) { return tile_t(tile_r, tile_c); });\n",
             in, elem(t), rows, cols);
        putf(o, "%s    tile_print_release();\n%s}\n", in, in);
        return;
    }
    long long chunk = print_chunk_rows(t);
    putf(o, "%sif (%s) { /* the block passes the fragment's rows through shared memory */\n", in,
         print_selected(bl->gp->grid));
    putf(o, "%s    float *const tile_ps = reinterpret_cast<float *>(tile_smem + %lld);\n", in, bl->gp->print_offset);
    putf(o, "%s    if (threadIdx.x == 0) {\n", in);
    put_print_open(bl, aprintf("%s    ", in));
    putf(o, "%s        %s\n%s    }\n", in, title, in);
    putf(o, "%s    for (int tile_p0 = 0; tile_p0 < %lld; tile_p0 += %lld) {\n", in, rows, chunk);
    putf(o, "%s        __syncthreads(); /* thread 0 printed the previous rows */\n", in);
    putf(o,
         "%s        %s.for_each([&](float &tile_v, int tile_r, int tile_c) {\n"
         "%s            if (tile_r >= tile_p0 && tile_r < tile_p0 + %lld)\n"
         "%s                tile_ps[(tile_r - tile_p0) * %lld + tile_c] = tile_v;\n"
         "%s        });\n",
         in, t->name, in, chunk, in, cols, in);
    putf(o, "%s        __syncthreads();\n", in);
    putf(o, "%s        if (threadIdx.x == 0)\n", in);
    putf(o,
         "%s            tile_print_rows<%s>(%lld - tile_p0 < %lld ? %lld - tile_p0 : %lld, %lld, [&](int tile_r, int "
         "tile_c) { return tile_ps[tile_r * %lld + tile_c]; });\n",
         in, elem(t), rows, chunk, rows, chunk, cols, cols);
    putf(o, "%s    }\n%s    if (threadIdx.x == 0)\n%s        tile_print_release();\n%s}\n", in, in, in, in);
}

/* -g: the test of a checked load or store (lower_debug.c), opening the
 * block that holds the access; NULL without a check. The test is the same
 * on every thread of the block (the operands of tile operations are), so a
 * violation skips the whole access and no barrier is left unmatched. */
static const TileCheck *put_check_open(Block *bl, const IrTileOp *op, const char *indent)
{
    const TileCheck *c = bl->kp ? tile_check_of(bl->kp, op) : NULL; /* sm_90a variants have no checks */
    if (!c)
        return NULL;
    const IrBuffer *tile = op->kind == TILE_LOAD ? op->dst : op->src;
    const char *rows = c->rows ? aprintf("(long long)(%s)", c->rows) : "LLONG_MAX";
    const char *cols = c->cols ? aprintf("(long long)(%s)", c->cols) : "LLONG_MAX";
    if (c->kind == CHECK_WINDOW)
        putf(bl->o, "%sif (tile_debug_window(%d, (long long)(%s), (long long)(%s), %lldLL, %lldLL, %s, %s", indent,
             c->site, op->r0, op->c0, tile->rank == 1 ? 1 : tile->dims[0], tile->dims[tile->rank - 1], rows, cols);
    else
        putf(bl->o, "%sif (tile_debug_bounds(%d, (long long)(%s), (long long)(%s), %s, %s", indent, c->site, op->rows,
             op->cols, rows, cols);
    for (int d = 0; d < 3; d++)
        putf(bl->o, ", %s", d < c->grid->depth ? aprintf("(long long)(%s)", c->grid->loops[d].var) : "0LL");
    put(bl->o, ")) {\n");
    return c;
}

static void put_check_close(Block *bl, const TileCheck *c, const char *indent)
{
    if (c)
        putf(bl->o, "%s}\n", indent);
}

void put_op(Block *bl, const IrTileOp *op, const char *indent)
{
    Out *o = bl->o;
    line_to_source(o, op->loc);
    TileSyncs syncs = tile_op_syncs(op);
    if (syncs.before && !block_sync_shared(bl->gp, op))
        putf(o, "%s__syncthreads();\n", indent);
    const char *outer = indent;
    const TileCheck *check = put_check_open(bl, op, outer);
    if (check)
        indent = aprintf("%s    ", outer);
    switch (op->kind) {
    case TILE_CLEAR:
    case TILE_FILL:
        put_fill(bl, op, indent);
        break;
    case TILE_LOAD:
        if (op->dst->space == SPACE_FRAGMENT) {
            put_fragment_load(bl, op, indent);
            break;
        }
        /* outside a pipeline: load, wait, and make it visible to the block */
        put_load(bl, op, indent);
        if (tile_load_is_async(op))
            putf(o, "%stile80::commit();\n%stile80::wait<0>();\n", indent, indent);
        break;
    case TILE_STORE: {
        if (op->src->space != SPACE_FRAGMENT || op->src->rank == 1) {
            put_element_store(bl, op, indent);
            break;
        }
        MatrixRef m = matrix_ref(bl, op);
        putf(o, "%stile80::store<%s>(%s, %s, (long long)(%s), (long long)(%s), %s, %s, %s);\n", indent,
             elem(op->mat.buf), m.ptr, m.ld, op->r0, op->c0, m.rows, m.cols, op->src->name);
        break;
    }
    case TILE_GEMM:
        put_gemm(bl, op, indent);
        break;
    case TILE_COPY:
        put_copy(bl, op, indent);
        break;
    case TILE_REDUCE:
        if (op->src->space == SPACE_SHARED)
            putf(o, "%stile80::reduce_shared<%s, %s, %d, %s, %d>(%s, %s, (%s) != 0);\n", indent,
                 reduce_op_enum(op->reduce), op->reduce_abs ? "true" : "false", op->dim, elem(op->dst), bl->k->threads,
                 staged(bl, op->src), op->dst->space == SPACE_SHARED ? staged(bl, op->dst) : op->dst->name, op->clear);
        else if (op->dst->space == SPACE_SHARED)
            putf(o, "%stile80::reduce_into_shared<%s, %s, %d>(%s, %s, (%s) != 0, %s);\n", indent,
                 reduce_op_enum(op->reduce), op->reduce_abs ? "true" : "false", op->dim, op->src->name,
                 staged(bl, op->dst), op->clear, op->dim == 0 ? cols_scratch(bl) : "nullptr");
        else if (op->dim == 1) /* into a 1-D fragment, rounded to its element type */
            putf(o, "%stile80::reduce_rows<%s, %s, %s>(%s, %s, (%s) != 0);\n", indent, reduce_op_enum(op->reduce),
                 op->reduce_abs ? "true" : "false", elem(op->dst), op->src->name, op->dst->name, op->clear);
        else
            putf(o, "%stile80::reduce_cols<%s, %s, %s>(%s, %s, (%s) != 0, %s);\n", indent,
                 reduce_op_enum(op->reduce), op->reduce_abs ? "true" : "false", elem(op->dst), op->src->name,
                 op->dst->name, op->clear, cols_scratch(bl));
        break;
    case TILE_PRINT:
        put_print(bl, op, indent);
        break;
    }
    put_check_close(bl, check, outer);
    if (syncs.after)
        putf(o, "%s__syncthreads();\n", outer);
    line_to_self(o);
}

/* ---- pipelined loops ---- */

/* The asynchronous loads of a pipelined loop read one matrix each time:
 * a tile80::copier (tile_c<n>) works out each thread's part of the
 * addresses once, before the loop. */
static void put_copiers(Block *bl, const IrPipelined *pipe, const char *in)
{
    for (int i = 0; i < pipe->body.len; i++) {
        const IrStmt *s = pipe->body.items[i];
        if (s->kind != STMT_TILE_OP || s->op->kind != TILE_LOAD || !tile_load_is_async(s->op))
            continue;
        const IrBuffer *t = s->op->dst;
        MatrixRef m = matrix_ref(bl, s->op);
        putf(bl->o, "%sconst tile80::copier<%d, %s, %s, %lld, %lld> tile_c%d(%s, %s);\n", in, bl->k->threads,
             bl->gp->align_variants ? "TILE_ALIGN" : "0", elem(t), t->dims[0], t->dims[1], i, m.ptr, m.ld);
    }
}

/* The loads of an iteration into the stage tile_stage. */
static void put_pipe_loads(Block *bl, const IrPipelined *pipe, const char *indent)
{
    for (int i = 0; i < pipe->body.len; i++) {
        const IrStmt *s = pipe->body.items[i];
        if (s->kind != STMT_TILE_OP || s->op->kind != TILE_LOAD)
            continue;
        const IrTileOp *op = s->op;
        const TileCheck *check = put_check_open(bl, op, indent);
        const char *in = check ? aprintf("%s    ", indent) : indent;
        if (!tile_load_is_async(op))
            put_load(bl, op, in);
        else {
            MatrixRef m = matrix_ref(bl, op);
            putf(bl->o, "%stile_c%d.load(%s, %s, %s, (long long)(%s), (long long)(%s), %s, %s);\n", in, i,
                 staged(bl, op->dst), m.ptr, m.ld, op->r0, op->c0, m.rows, m.cols);
        }
        put_check_close(bl, check, indent);
    }
}

static void put_pipe_compute(Block *bl, const IrPipelined *pipe, const char *indent)
{
    for (int i = 0; i < pipe->body.len; i++) {
        const IrStmt *s = pipe->body.items[i];
        if (s->kind == STMT_TILE_OP && s->op->kind != TILE_LOAD)
            put_op(bl, s->op, indent);
        else if (s->kind == STMT_PARALLEL) /* over fragments (lower_block.c) */
            put_fragment_loop(bl->o, block_parallel(bl->gp, s->par), indent);
    }
}

/* Loads of iteration i + S - 1 are issued while iteration i computes: the
 * stage they fill was read in iteration i - 1, which every thread finished
 * before the barrier at the top of iteration i. */
static void put_pipelined(Block *bl, const IrPipelined *pipe)
{
    Out *o = bl->o;
    const IrLoop *l = &pipe->loop;
    int stages = pipe->stages;
    putf(o, "    { // #pragma tile pipelined stages(%d) at %s:%d\n", stages, o->names->source_name, pipe->loc.line);
    putf(o,
         "        const tile_loop tile_pl = tile_make_loop((long long)(%s), (long long)(%s), (long long)(%s), %s);\n",
         l->lo, l->hi, l->step, l->inclusive ? "true" : "false");
    bl->stage = "tile_stage";
    put_copiers(bl, pipe, "        ");
    if (stages == 1) {
        put(o, "        for (long long tile_i = 0; tile_i < tile_pl.count; tile_i++) {\n");
        put(o, "            __syncthreads();\n");
        put_loop_var(bl->o, l, "tile_pl", "tile_i", "            ");
        put_pipe_loads(bl, pipe, "            ");
        put(o, "            tile80::commit();\n            tile80::wait<0>();\n            __syncthreads();\n");
        put_pipe_compute(bl, pipe, "            ");
        put(o, "        }\n");
    } else {
        putf(o, "        for (int tile_stage = 0; tile_stage < %d; tile_stage++) {\n", stages - 1);
        put(o, "            if (tile_stage < tile_pl.count) {\n");
        put_loop_var(bl->o, l, "tile_pl", "tile_stage", "                ");
        put_pipe_loads(bl, pipe, "                ");
        put(o, "            }\n            tile80::commit();\n        }\n");
        /* the stages read and written next, counted round (no division) */
        putf(o, "        int tile_read = 0, tile_write = %d;\n", stages - 1);
        put(o, "        for (long long tile_i = 0; tile_i < tile_pl.count; tile_i++) {\n");
        putf(o, "            tile80::wait<%d>();\n            __syncthreads();\n", stages - 2);
        putf(o, "            {\n                const long long tile_next = tile_i + %d;\n", stages - 1);
        put(o, "                const int tile_stage = tile_write;\n");
        putf(o, "                tile_write = tile_write == %d ? 0 : tile_write + 1;\n", stages - 1);
        put(o, "                if (tile_next < tile_pl.count) {\n");
        put_loop_var(bl->o, l, "tile_pl", "tile_next", "                    ");
        put_pipe_loads(bl, pipe, "                    ");
        put(o, "                }\n                tile80::commit();\n            }\n");
        put(o, "            const int tile_stage = tile_read;\n");
        putf(o, "            tile_read = tile_read == %d ? 0 : tile_read + 1;\n", stages - 1);
        put_loop_var(bl->o, l, "tile_pl", "tile_i", "            ");
        put_pipe_compute(bl, pipe, "            ");
        put(o, "        }\n");
    }
    put(o, "        tile80::wait<0>();\n        __syncthreads();\n    }\n");
    bl->stage = "0";
}

/* ---- the kernel ---- */

/* The grid's loop variables for block number `id` (C text). */
void put_block_index(Out *o, const IrGrid *g, const char *id, const char *in)
{
    switch (g->depth) {
    case 1:
        putf(o, "%sconst long long tile_b0 = %s;\n", in, id);
        break;
    case 2:
        putf(o, "%slong long tile_b0, tile_b1;\n", in);
        putf(o, "%stile_grid_index(%s, tile_l0.count, tile_l1.count, %d, tile_b0, tile_b1);\n", in, id, g->swizzle);
        break;
    default:
        putf(o, "%sconst long long tile_b0 = %s / (tile_l1.count * tile_l2.count);\n", in, id);
        putf(o, "%slong long tile_b1, tile_b2;\n", in);
        putf(o,
             "%stile_grid_index(%s %% (tile_l1.count * tile_l2.count), tile_l1.count, tile_l2.count, %d, tile_b1, "
             "tile_b2);\n",
             in, id, g->swizzle);
    }
    for (int d = 0; d < g->depth; d++)
        put_loop_var(o, &g->loops[d], aprintf("tile_l%d", d), aprintf("tile_b%d", d), in);
}

static void put_grid_comment(Out *o, const IrKernel *k, const GridPlan *gp)
{
    const IrGrid *g = gp->grid;
    putf(o, "// #pragma tile grid at %s:%d: one block of %d threads per (", o->names->source_name, g->loc.line,
         k->threads);
    for (int d = 0; d < g->depth; d++)
        putf(o, "%s%s", d ? ", " : "", g->loops[d].var);
    putf(o, ")%s; warps %dx%d over the fragments;\n// shared memory %lld bytes", g->swizzle ? ", L2 swizzle panel" : "",
         gp->warps_m, gp->warps_n, gp->smem_bytes);
    for (int i = 0; i < gp->shared.len; i++) {
        const SharedPlan *sp = gp->shared.items[i];
        putf(o, "%s%s %d x %lld", i ? ", " : " (", sp->buf->name, sp->stages, sp->bytes);
    }
    if (gp->print_bytes)
        putf(o, "%stile_print scratch %lld", gp->shared.len ? ", " : " (", gp->print_bytes);
    put(o, gp->shared.len || gp->print_bytes ? ").\n" : ".\n");
    if (gp->sm90_why)
        putf(o, "// On sm_90a this kernel runs too: no warp-specialized variant, because %s.\n", gp->sm90_why);
}

static void put_block_stmts(Block *bl, const Vec *body, const char *in);

/* A parallel loop over fragments' layout: each thread walks the elements
 * its registers hold, with the loop's variables at their coordinates. */
void put_fragment_loop(Out *o, const ParallelPlan *pp, const char *in)
{
    const IrParallel *par = pp->par;
    const FragLayout *l = pp->layout;
    const char *f = l->frag->name;
    bool slices = l->kind == LAYOUT_ROWS || l->kind == LAYOUT_COLS;
    const char *over = l->kind == LAYOUT_ROWS     ? "rows"
                       : l->kind == LAYOUT_COLS   ? "columns"
                       : l->kind == LAYOUT_STRIPS ? "strips layout"
                                                  : "accumulator layout";
    put_guard_open(o, par->guard, in);
    putf(o, "%s{ // #pragma tile parallel at %s:%d: over the %s of '%s': each thread\n", in, o->names->source_name,
         par->loc.line, over, slices ? l->of->name : f);
    putf(o, "%s  // visits the elements its registers hold.\n", in);
    putf(o, "#pragma unroll\n%s    for (int tile_e = 0; tile_e < decltype(%s)::COUNT; tile_e++) {\n", in, f);
    for (int d = 0; d < par->depth; d++) {
        const IrLoop *lp = &par->loops[d];
        const char *t = unqualified(lp->var_type.spelling);
        putf(o, "%s        [[maybe_unused]] const %s %s = (%s)%s.%s(tile_e);\n", in, t, lp->var, t, f,
             slices   ? "index_of"
             : d == 0 ? "row_of"
                      : "col_of");
    }
    put_code_form(o, par->body, pp, FORM_FRAGMENT, true);
    putf(o, "%s    }\n%s}\n", in, in);
    put_guard_close(o, par->guard, in);
}

/* A statement of the block. Statements every thread runs alike keep their
 * text; one that writes memory runs on thread 0. */
static void put_block_stmt(Block *bl, const IrStmt *s, const char *in)
{
    Out *o = bl->o;
    bool teams = bl->gp->unroll_variants;
    if (block_sync_before(bl->gp, s) && teams)
        putf(o, "%stile_team_sync<TILE_TEAM, %d>(); /* what the team wrote before is read or written next */\n", in,
             bl->k->threads);
    else if (block_sync_before(bl->gp, s))
        putf(o, "%s__syncthreads(); /* what the block wrote before is read or written next */\n", in);
    switch (s->kind) {
    case STMT_TILE_DECL:
        put_tile_decl(bl, s->tile);
        break;
    case STMT_TILE_OP:
        put_op(bl, s->op, in);
        break;
    case STMT_PIPELINED:
        put_pipelined(bl, s->pipe);
        break;
    case STMT_DECL:
        put_code(o, s->code, NULL, false);
        break;
    case STMT_SCALAR:
        if (s->writes_memory && teams)
            putf(o, "%sif (tile_lane == 0) { /* writes memory: once for the team */\n", in);
        else if (s->writes_memory)
            putf(o, "%sif (threadIdx.x == 0) { /* writes memory: once for the block */\n", in);
        put_code(o, s->code, NULL, false);
        if (s->writes_memory)
            putf(o, "%s}\n", in);
        break;
    case STMT_SEQ:
        put_code(o, s->seq->header, NULL, false);
        putf(o, "%s{\n", in);
        put_block_stmts(bl, &s->seq->body, aprintf("%s    ", in));
        putf(o, "%s}\n", in);
        break;
    case STMT_PARALLEL: {
        const ParallelPlan *pp = block_parallel(bl->gp, s->par);
        if (pp->layout) {
            put_fragment_loop(o, pp, in);
            break;
        }
        for (int i = 0; i < pp->fills.len; i++) { /* registers this loop loads for later ones */
            const RegCache *c = pp->fills.items[i];
            putf(o, "%s%s tile_c%d[%d][%d]; /* %s, kept for the loops after this one */\n", in, elem(c->buf), c->index,
                 c->groups, c->vector, c->buf->name);
        }
        put_block_parallel(o, bl->k, pp, bl->gp->unroll_variants, in);
        break;
    }
    case STMT_GRID:
        break; /* grids do not nest */
    }
}

static void put_block_stmts(Block *bl, const Vec *body, const char *in)
{
    for (int i = 0; i < body->len; i++)
        put_block_stmt(bl, body->items[i], in);
}

void put_grid_kernel(Out *o, const KernelPlan *kp, const GridPlan *gp)
{
    const IrKernel *k = kp->k;
    const IrGrid *g = gp->grid;
    Block bl = {o, kp, k, gp, "0", NULL};
    put_grid_comment(o, k, gp);
    if (gp->align_variants)
        put(o, "template <int TILE_ALIGN>\n");
    if (gp->unroll_variants) {
        const int *b = gp->variant_blocks;
        putf(o,
             "template <int TILE_K, int TILE_TEAM>\n__global__ void __launch_bounds__(%d, TILE_K <= 1 ? %d : TILE_K <= "
             "2 ? %d : TILE_K <= 4 ? %d : %d) %s(",
             k->threads, b[0], b[1], b[2], b[3], gp->kernel_name);
    } else
        putf(o, "__global__ void __launch_bounds__(%d, %d) %s(", k->threads, gp->min_blocks, gp->kernel_name);
    put_param_list(o, k, kernel_param);
    for (int d = 0; d < g->depth; d++)
        putf(o, ", tile_loop tile_l%d", d);
    put_scratch_params(o, kp);
    if (gp->prints)
        put(o, ", tile_print_sel tile_psel");
    put(o, ")\n{\n    extern __shared__ __align__(128) unsigned char tile_smem[];\n");
    if (gp->block_reductions)
        put(o, "    __shared__ alignas(16) unsigned char tile_red_smem[TILE_REDUCE_SCRATCH];\n");
    put_views(o, &gp->views, "    ");
    put_kernel_decls(o, kp, &gp->decls, gp->stmt_index, "    ");
    if (gp->unroll_variants) {
        putf(o, "    const int tile_lane = threadIdx.x %% TILE_TEAM; /* a team of TILE_TEAM threads runs an iteration "
                "*/\n");
        putf(o, "    const long long tile_item = (long long)blockIdx.x * (%d / TILE_TEAM) + threadIdx.x / TILE_TEAM;\n",
             k->threads);
        put(o, "    if (tile_item >= ");
        for (int d = 0; d < g->depth; d++)
            putf(o, "%stile_l%d.count", d ? " * " : "", d);
        put(o, ")\n        return; /* past the last iteration: teams never wait for each other */\n");
        put_block_index(o, g, "tile_item", "    ");
    } else
        put_block_index(o, g, "blockIdx.x", "    ");
    put_block_stmts(&bl, &g->body, "    ");
    put(o, "}\n\n");
    if (gp->sm90)
        put_grid_kernel_sm90(o, k, gp);
}

/* The 16-byte variant needs every loaded matrix, and each of its rows, to
 * start on a 16-byte boundary (slices start on rows, so they do too). */
static void put_alignment_test(Out *o, const GridPlan *gp, const char *in)
{
    putf(o, "%sconst bool tile_aligned = true", in);
    for (int i = 0; i < gp->loads.len; i++) {
        const IrTileOp *op = gp->loads.items[i];
        const IrBuffer *buf = op->mat.buf;
        putf(o, "\n%s    && tile_aligned_host<16>(%s) && (long long)(%s) * (long long)sizeof(%s) %% 16 == 0", in,
             buf->name, buf->extents[buf->rank - 1], elem(buf));
    }
    put(o, ";\n");
}

/* The groups of iterations in the block's widest unrolled loop, from the
 * loops' bounds. */
static void put_widest_loop(Out *o, const GridPlan *gp, const char *in)
{
    putf(o, "%slong long tile_widest = 0; /* groups of iterations in the block's widest unrolled loop */\n", in);
    for (int i = 0; i < gp->parallels.len; i++) {
        const ParallelPlan *pp = gp->parallels.items[i];
        if (!pp->unroll)
            continue;
        const IrLoop *l = &pp->par->loops[0];
        putf(o,
             "%s{\n%s    const tile_loop tile_u = tile_make_loop((long long)(%s), (long long)(%s), (long long)(%s), "
             "%s);\n",
             in, in, l->lo, l->hi, l->step, l->inclusive ? "true" : "false");
        putf(o, "%s    const long long tile_n = tile_u.count > 0 ? (tile_u.count + %d) / %d : 0;\n", in,
             pp->par->vector - 1, pp->par->vector);
        putf(o, "%s    tile_widest = tile_n > tile_widest ? tile_n : tile_widest;\n%s}\n", in, in);
    }
}

/* The launcher's choice among the kernel's variants (GridPlan.variants):
 * the first that covers the widest loop, the last one otherwise. */
static void put_variant_choice(Out *o, const GridPlan *gp, const char *in)
{
    put_widest_loop(o, gp, in);
    const BlockVariant *last = &gp->variants[gp->nvariants - 1];
    putf(o, "%sint tile_team = %d;\n%stile_kernel = %s<%d, %d>;\n", in, last->team, in, gp->kernel_name, last->groups,
         last->team);
    for (int i = 0; i < gp->nvariants - 1; i++) {
        const BlockVariant *v = &gp->variants[i];
        putf(o, "%s%sif (tile_widest <= %lld) {\n", in, i ? "} else " : "", (long long)v->groups * v->team);
        putf(o, "%s    tile_team = %d;\n%s    tile_kernel = %s<%d, %d>;\n", in, v->team, in, gp->kernel_name, v->groups,
             v->team);
    }
    if (gp->nvariants > 1)
        putf(o, "%s}\n", in);
}

/* The sm_80 kernel: on sm_80 and newer, and on Hopper where the sm_90a
 * variant does not apply. */
static void put_sm80_launch(Out *o, const KernelPlan *kp, const GridPlan *gp, const char *in)
{
    const IrKernel *k = kp->k;
    const IrGrid *g = gp->grid;
    const char *kernel = gp->kernel_name, *blocks = "tile_blocks";
    if (gp->align_variants)
        put_alignment_test(o, gp, in);
    if (gp->align_variants || gp->unroll_variants) {
        putf(o, "%svoid (*tile_kernel)(", in);
        put_param_list(o, k, kernel_param);
        for (int d = 0; d < g->depth; d++)
            put(o, ", tile_loop");
        if (kp->slots.len)
            put(o, ", unsigned char *, unsigned char *");
        if (gp->prints)
            put(o, ", tile_print_sel");
        if (gp->align_variants)
            putf(o, ") = tile_aligned ? %s<16> : %s<0>;\n", gp->kernel_name, gp->kernel_name);
        else
            put(o, ");\n");
        kernel = "tile_kernel";
    }
    if (gp->unroll_variants) {
        put_variant_choice(o, gp, in);
        blocks = aprintf("(tile_blocks + %d / tile_team - 1) / (%d / tile_team)", k->threads, k->threads);
    }
    putf(o,
         "%stile_err = tile_allow_smem(&tile_dev, %s, %lld);\n"
         "%sif (tile_err != cudaSuccess)\n%s    return tile_prof.failed(&tile_dev, tile_err);\n",
         in, kernel, gp->smem_bytes, in, in);
    putf(o, "%stile_err = tile_launch_blocks(%s, %s, %d, %lld, tile_stream, ", in, kernel, blocks, k->threads,
         gp->smem_bytes);
    put_arg_names(o, k);
    for (int d = 0; d < g->depth; d++)
        putf(o, ", tile_l%d", d);
    put_scratch_args(o, kp);
    if (gp->prints)
        put(o, ", tile_print_select()");
    putf(o, ");\n%sif (tile_err != cudaSuccess)\n%s    return tile_prof.failed(&tile_dev, tile_err);\n", in, in);
}

void put_grid_launch(Out *o, const KernelPlan *kp, const GridPlan *gp)
{
    const IrKernel *k = kp->k;
    const IrGrid *g = gp->grid;
    putf(o, "    { // %s:%d\n", o->names->source_name, g->loc.line);
    put(o, "        long long tile_blocks = 1;\n");
    for (int d = 0; d < g->depth; d++) {
        put_loop_descriptor(o, &g->loops[d], d);
        putf(o, "        tile_blocks *= tile_l%d.count;\n", d);
    }
    put(o, "        if (tile_blocks > INT_MAX)\n            return tile_prof.failed(&tile_dev, "
           "cudaErrorInvalidConfiguration, "
           "\"more blocks than CUDA can launch\");\n");
    put(o, "        if (tile_blocks > 0) {\n");
    if (gp->sm90) {
        put_grid_launch_sm90(o, k, gp);
        put(o, "            if (!tile_launched) {\n");
        put_sm80_launch(o, kp, gp, "                ");
        put(o, "            }\n");
    } else
        put_sm80_launch(o, kp, gp, "            ");
    put(o, "        }\n    }\n");
}

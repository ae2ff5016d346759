/* lower_tile.c — lowering of grids: shared-memory layout and budget, the
 * stages of pipelined tiles, and how the block's warps share its fragments
 * (from the mma instruction shape and the gemm's warp policy). */
#include "lower.h"

#include <stdlib.h>
#include <string.h>

/* The mma.sync m16n8k16 path: each warp's share of an accumulator is a
 * multiple of 16 x 16 (two n8 halves, so ldmatrix.x4 feeds B). */
enum { WARP_TILE_M = 16, WARP_TILE_N = 16 };

/* Fragment registers a thread may hold before the kernel spills: a GEMM's
 * 128 accumulators beside its double-buffered operands, or an attention
 * block's output, scores and probabilities (samples/flash_attention.c at
 * head dim 64: 165 values in 256 threads, 214 registers and no spills with
 * ptxas on either path). */
enum { MAX_ACCUM_PER_THREAD = 176 };

static long long smem_limit(unsigned archs, const char **arch_name)
{
    if (archs & ARCH_SM80) {
        *arch_name = "sm_80";
        return SMEM_LIMIT_SM80;
    }
    *arch_name = "sm_90a";
    return SMEM_LIMIT_SM90A;
}

bool tile_load_is_async(const IrTileOp *op)
{
    const IrBuffer *t = op->dst, *m = op->mat.buf;
    return op->kind == TILE_LOAD && t->space == SPACE_SHARED && t->rank == 2 && t->elem.kind == m->elem.kind &&
           t->elem.size == m->elem.size && op->origin_nonneg;
}

long long fragment_values_per_thread(const IrBuffer *t, int threads)
{
    return t->rank == 1 ? (t->dims[0] + threads - 1) / threads : t->dims[0] * t->dims[1] / threads;
}

const SharedPlan *grid_shared(const GridPlan *gp, const IrBuffer *buf)
{
    for (int i = 0; i < gp->shared.len; i++) {
        const SharedPlan *sp = gp->shared.items[i];
        if (sp->buf == buf)
            return sp;
    }
    return NULL;
}

static const IrPipelined *pipeline_of(const IrGrid *g)
{
    for (int i = 0; i < g->body.len; i++) {
        const IrStmt *s = g->body.items[i];
        if (s->kind == STMT_PIPELINED)
            return s->pipe;
    }
    return NULL;
}

static bool loaded_in(const IrPipelined *pipe, const IrBuffer *buf)
{
    for (int i = 0; pipe && i < pipe->body.len; i++) {
        const IrStmt *s = pipe->body.items[i];
        if (s->kind == STMT_TILE_OP && s->op->kind == TILE_LOAD && s->op->dst == buf)
            return true;
    }
    return false;
}

long long print_chunk_rows(const IrBuffer *t)
{
    long long rows = t->rank == 2 ? t->dims[0] : 1, cols = t->dims[t->rank - 1];
    long long chunk = 8192 / (cols * 4);
    return chunk < 1 ? 1 : chunk < rows ? chunk : rows;
}

/* tile_print of a fragment: its elements sit in the threads' registers, so
 * the block writes them, some rows at a time, to a scratch buffer in shared
 * memory that thread 0 prints from (between barriers: emit_tile.c). */
static void find_prints(GridPlan *gp, const Vec *body)
{
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        if (stmt_nested(s))
            find_prints(gp, stmt_nested(s));
        if (s->kind != STMT_TILE_OP || s->op->kind != TILE_PRINT)
            continue;
        gp->prints = true;
        const IrBuffer *t = s->op->src;
        if (!t || t->space != SPACE_FRAGMENT)
            continue;
        long long bytes = (print_chunk_rows(t) * t->dims[t->rank - 1] * 4 + 127) / 128 * 128;
        gp->print_bytes = bytes > gp->print_bytes ? bytes : gp->print_bytes;
    }
}

static void plan_print_scratch(GridPlan *gp, Str *detail)
{
    find_prints(gp, &gp->grid->body);
    if (!gp->print_bytes)
        return;
    gp->print_offset = gp->smem_bytes;
    gp->smem_bytes += gp->print_bytes;
    str_addf(detail, "%stile_print scratch: %lld", detail->len ? ", " : "", gp->print_bytes);
}

/* Whether the block's shared memory so far fits on every arch asked for;
 * refuses it otherwise, `detail` saying what takes the room. */
static bool smem_fits(const GridPlan *gp, unsigned archs, const char *detail)
{
    const char *arch;
    long long limit = smem_limit(archs, &arch);
    if (gp->smem_bytes <= limit)
        return true;
    error_at(gp->grid->loc,
             "this block needs %lld bytes of shared memory (%s), more than the %lld a block may have on %s: use "
             "smaller tiles or fewer stages",
             gp->smem_bytes, detail, limit, arch);
    return false;
}

/* A column reduction of a fragment (tile80::reduce_cols) combines the
 * partials of the warps stacked over the rows in shared memory: warps_m
 * floats a column, one scratch for every such reduction of the block (each
 * waits for the readers of the one before). Needs the warps (plan_warps). */
static bool plan_cols_scratch(GridPlan *gp, unsigned archs)
{
    long long cols = block_cols_width(&gp->grid->body);
    if (!cols || gp->warps_m < 2)
        return true;
    gp->cols_bytes = (gp->warps_m * cols * 4 + 127) / 128 * 128;
    gp->cols_offset = gp->smem_bytes;
    gp->smem_bytes += gp->cols_bytes;
    return smem_fits(
        gp, archs,
        aprintf("column reductions' scratch: %lld, %d warps x %lld columns", gp->cols_bytes, gp->warps_m, cols));
}

static bool plan_shared(GridPlan *gp, unsigned archs)
{
    const IrGrid *g = gp->grid;
    const IrPipelined *pipe = pipeline_of(g);
    Str detail = {0};
    for (int i = 0; i < g->tiles.len; i++) {
        const IrBuffer *t = g->tiles.items[i];
        if (t->space != SPACE_SHARED)
            continue;
        SharedPlan *sp = anew(sizeof *sp);
        sp->buf = t;
        sp->stages = loaded_in(pipe, t) ? pipe->stages : 1;
        sp->bytes = t->elem.size;
        for (int d = 0; d < t->rank; d++)
            sp->bytes *= t->dims[d];
        sp->bytes = (sp->bytes + 127) / 128 * 128;
        sp->offset = gp->smem_bytes;
        gp->smem_bytes += sp->stages * sp->bytes;
        str_addf(&detail, "%s%s: %d x %lld", detail.len ? ", " : "", t->name, sp->stages, sp->bytes);
        if (t->rank == 1) { /* a plain array */
            vec_push(&gp->shared, sp);
            continue;
        }
        long long row_bytes = t->dims[1] * t->elem.size;
        if (row_bytes % 64) {
            error_at(t->loc,
                     "shared tile '%s': 2-D shared tiles are stored in swizzled 16-byte chunks (free of bank "
                     "conflicts for cp.async and ldmatrix), in rows of a multiple of 64 bytes (%lld bytes here)",
                     t->name, row_bytes);
            str_free(&detail);
            return false;
        }
        /* A row of 64, 192, 320, ... bytes leaves half a 128-byte bank line:
         * the swizzle pairs such rows (tile80::smem_tile). */
        bool paired = row_bytes % 128 == 0 || t->dims[0] % 2 == 0;
        if (!paired) {
            error_at(t->loc,
                     "shared tile '%s': rows of %lld bytes (half a 128-byte line left over) come in pairs in the "
                     "swizzled layout; give it an even number of rows",
                     t->name, row_bytes);
            str_free(&detail);
            return false;
        }
        vec_push(&gp->shared, sp);
    }
    plan_print_scratch(gp, &detail);
    bool ok = smem_fits(gp, archs, str_cstr(&detail));
    str_free(&detail);
    return ok;
}

static const IrTileOp *first_gemm(const Vec *body)
{
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        if (s->kind == STMT_TILE_OP && s->op->kind == TILE_GEMM)
            return s->op;
        if (stmt_nested(s)) {
            const IrTileOp *op = first_gemm(stmt_nested(s));
            if (op)
                return op;
        }
    }
    return NULL;
}

/* Warps over an m x n accumulator: `row` gives each warp whole rows of
 * warp tiles (warps stacked along m), `col` whole columns, `square` the most
 * square warp tile (the least shared-memory traffic per mma). */
static bool arrange_warps(GridPlan *gp, long long m, long long n, int warps, const char *policy)
{
    long long best = -1;
    for (int wm = 1; wm <= warps; wm++) {
        if (warps % wm)
            continue;
        int wn = warps / wm;
        if (m % (wm * WARP_TILE_M) || n % (wn * WARP_TILE_N))
            continue;
        if (policy && strcmp(policy, "row") == 0 && wn != 1)
            continue;
        if (policy && strcmp(policy, "col") == 0 && wm != 1)
            continue;
        long long diff = llabs(m / wm - n / wn);
        if (best < 0 || diff < best) {
            best = diff;
            gp->warps_m = wm;
            gp->warps_n = wn;
        }
    }
    return best >= 0;
}

/* The registers each of `threads` threads has: the 64K-register file shared
 * by the block's threads, at most 255 each. */
static long long thread_regs(int threads)
{
    long long regs = 65536 / threads;
    return regs > 255 ? 255 : regs;
}

/* Registers a thread may spend on fragments: its share of the register
 * file less 64 (half when that leaves less) for addresses and operands, at
 * most MAX_ACCUM_PER_THREAD. pragmas/README.md ("#pragma tile grid") gives
 * the numbers. */
static long long accum_budget(int threads)
{
    long long regs = thread_regs(threads);
    long long budget = regs - 64 > regs / 2 ? regs - 64 : regs / 2;
    return budget < MAX_ACCUM_PER_THREAD ? budget : MAX_ACCUM_PER_THREAD;
}

/* The fragment values each of `threads` threads would hold in this block,
 * in registers: a packed 16-bit fragment's values two to a register. */
static long long block_fragment_values(const IrGrid *g, int threads)
{
    long long per_thread = 0;
    for (int i = 0; i < g->tiles.len; i++) {
        const IrBuffer *t = g->tiles.items[i];
        if (t->space != SPACE_FRAGMENT)
            continue;
        long long values = fragment_values_per_thread(t, threads);
        per_thread += fragment_packs(g, t) ? (values + 1) / 2 : values;
    }
    return per_thread;
}

/* Why at most accum_budget(threads) values fit, in words. */
static char *budget_reason(int threads)
{
    long long regs = thread_regs(threads), budget = accum_budget(threads);
    if (budget == MAX_ACCUM_PER_THREAD)
        return aprintf("of a thread's %lld registers, tilepp gives fragments at most %d, up to 256 threads", regs,
                       MAX_ACCUM_PER_THREAD);
    return aprintf("65536 registers / %d threads = %lld a thread, %lld of them kept for addresses and operands",
                   threads, regs, regs - budget);
}

/* What to change when the fragments do not fit: the thread count nearest
 * the block's at which they would (powers of two, which the warps'
 * arrangements split best; more threads leave each fewer registers, so
 * above 256 that is fewer threads), or the tiles. */
static char *budget_advice(const IrGrid *g, int threads)
{
    int best = 0;
    for (int t = 32; t <= MAX_BLOCK_THREADS; t *= 2)
        if (t != threads && block_fragment_values(g, t) <= accum_budget(t) &&
            (!best || abs(t - threads) < abs(best - threads)))
            best = t;
    if (!best)
        return "use smaller tiles";
    return aprintf("use %s threads (with threads(%d): %lld values a thread, of at most %lld) or smaller tiles",
                   best < threads ? "fewer" : "more", best, block_fragment_values(g, best), accum_budget(best));
}

/* Whether some tile operation of the block (pipelined loops included)
 * needs whole rows of its fragments on each warp: a reduction of rows into
 * a 1-D fragment (which combines within its quad, lower_block.c's
 * LAYOUT_ROWS), or a product whose A operand is a fragment (its rows are
 * the A operand of the warp that holds them). */
static bool needs_whole_rows(const Vec *body)
{
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        if (stmt_nested(s) && needs_whole_rows(stmt_nested(s)))
            return true;
        if (s->kind != STMT_TILE_OP)
            continue;
        if (s->op->kind == TILE_REDUCE && s->op->dim == 1 && s->op->src->space == SPACE_FRAGMENT)
            return true;
        if (s->op->kind == TILE_GEMM && s->op->a->space == SPACE_FRAGMENT)
            return true;
    }
    return false;
}

static const IrTileOp *gemm_from_registers(const Vec *body)
{
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        const IrTileOp *op = stmt_nested(s)            ? gemm_from_registers(stmt_nested(s))
                             : s->kind == STMT_TILE_OP ? s->op
                                                       : NULL;
        if (op && op->kind == TILE_GEMM && op->a->space == SPACE_FRAGMENT)
            return op;
    }
    return NULL;
}

/* The fragment the block's warps are arranged for: the first product's
 * accumulator, else the first 2-D fragment; NULL when there is neither. */
static const IrBuffer *lead_fragment(const IrGrid *g)
{
    const IrTileOp *gemm = first_gemm(&g->body);
    if (gemm)
        return gemm->c;
    for (int i = 0; i < g->tiles.len; i++) {
        const IrBuffer *t = g->tiles.items[i];
        if (t->space == SPACE_FRAGMENT && t->rank == 2)
            return t;
    }
    return NULL;
}

/* Whether the sm_80 kernel's fragments fit its threads' registers
 * (accum_budget); an error at the first fragment (the product's
 * accumulator, when there is one) when they do not, with `sm90_why`, the
 * sm_90a variant's reason for refusing the grid too, when there is one. */
static bool fits_registers(GridPlan *gp, const IrKernel *k, const char *sm90_why)
{
    const IrGrid *g = gp->grid;
    long long budget = accum_budget(k->threads);
    if (gp->fragment_values <= budget)
        return true;
    const IrBuffer *first = lead_fragment(g);
    for (int i = 0; !first && i < g->tiles.len; i++)
        if (((const IrBuffer *)g->tiles.items[i])->space == SPACE_FRAGMENT)
            first = g->tiles.items[i];
    error_at(first->loc,
             "the block's fragments would hold %lld values in each of the %d threads' registers; at most %lld fit "
             "without spilling (%s): %s%s%s",
             gp->fragment_values, k->threads, budget, budget_reason(k->threads), budget_advice(g, k->threads),
             sm90_why ? "; nor does the sm_90a variant take the block: " : "", sm90_why ? sm90_why : "");
    return false;
}

/* One warp arrangement for the block, chosen for the gemm's accumulator (or
 * the first fragment), which every fragment must be able to use: fragments
 * share a layout so that copies between them stay in registers. */
static bool plan_warps(GridPlan *gp, const IrKernel *k)
{
    const IrGrid *g = gp->grid;
    const IrTileOp *gemm = first_gemm(&g->body);
    int warps = k->threads / 32;
    const IrBuffer *lead = lead_fragment(g);
    if (!lead)
        return true;
    if (block_strips(gp, k->threads, &gp->strips)) { /* no product: the warps stand as the strips need */
        gp->warps_m = gp->strips.warps_m, gp->warps_n = gp->strips.warps_n;
        return true;
    }
    const char *policy = gemm ? gemm->policy : NULL;
    const IrTileOp *rs = gemm_from_registers(&g->body);
    if (rs && policy && strcmp(policy, "row") != 0) {
        error_at(rs->loc,
                 "the A operand '%s' of this product is a fragment, which each warp holds whole rows of; the block's "
                 "warp policy '%s' (from its first product) splits rows: use policy(row) or none",
                 rs->a->name, policy);
        return false;
    }
    bool row_warps =
        !policy && needs_whole_rows(&g->body) && arrange_warps(gp, lead->dims[0], lead->dims[1], warps, "row");
    if (rs && !row_warps && !policy) {
        error_at(rs->loc,
                 "the A operand '%s' of this product is a fragment, which each warp must hold whole rows of: "
                 "%lld rows do not split into multiples of %d over the block's %d warps",
                 rs->a->name, lead->dims[0], WARP_TILE_M, warps);
        return false;
    }
    if (!row_warps && !arrange_warps(gp, lead->dims[0], lead->dims[1], warps, policy)) {
        error_at(lead->loc,
                 "cannot share the %lldx%lld fragment '%s' among %d warps%s%s: each warp needs a multiple of %dx%d",
                 lead->dims[0], lead->dims[1], lead->name, warps, policy ? " with policy " : "", policy ? policy : "",
                 WARP_TILE_M, WARP_TILE_N);
        return false;
    }
    for (int i = 0; i < g->tiles.len; i++) {
        const IrBuffer *t = g->tiles.items[i];
        if (t->space != SPACE_FRAGMENT || t->rank != 2 || t == lead)
            continue;
        if (t->dims[0] % (gp->warps_m * WARP_TILE_M) || t->dims[1] % (gp->warps_n * WARP_TILE_N)) {
            error_at(t->loc,
                     "fragment '%s' (%lldx%lld) cannot use the block's warp arrangement %dx%d (from '%s'): each warp "
                     "needs a multiple of %dx%d",
                     t->name, t->dims[0], t->dims[1], gp->warps_m, gp->warps_n, lead->name, WARP_TILE_M, WARP_TILE_N);
            return false;
        }
    }
    return true;
}

/* Every piece of C text a grid evaluates, to find the declarations it needs. */
static bool block_mentions(const Vec *body, const char *name)
{
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        if (s->kind == STMT_DECL || s->kind == STMT_SCALAR) {
            if (code_mentions(s->code, name))
                return true;
        } else if (s->kind == STMT_PARALLEL) {
            if (parallel_mentions(s->par, name) || loops_mention(s->par->loops, s->par->depth, name))
                return true;
        } else if (s->kind == STMT_SEQ) {
            if (code_mentions(s->seq->header, name) || block_mentions(&s->seq->body, name))
                return true;
        } else if (s->kind == STMT_TILE_OP) {
            const IrTileOp *op = s->op;
            const char *texts[] = {op->r0, op->c0, op->rows, op->cols, op->value, op->mat.shift};
            for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++)
                if (texts[t] && text_mentions(texts[t], name))
                    return true;
            for (int l = 0; l < op->mat.nlead; l++)
                if (text_mentions(op->mat.lead[l], name))
                    return true;
        } else if (s->kind == STMT_PIPELINED) {
            const IrLoop *l = &s->pipe->loop;
            if (text_mentions(l->lo, name) || text_mentions(l->hi, name) || text_mentions(l->step, name) ||
                block_mentions(&s->pipe->body, name))
                return true;
        }
    }
    return false;
}

static bool block_reads(const void *ctx, const char *name)
{
    const GridPlan *gp = ctx;
    return block_mentions(&gp->grid->body, name);
}

/* The kernel-level declarations the block reads, directly or through others. */
static void plan_decls(GridPlan *gp, const IrKernel *k)
{
    needed_decls(k, gp->stmt_index, block_reads, gp, &gp->decls);
}

/* Two blocks per multiprocessor hide one block's barriers behind the other's
 * tensor-core work. When the fragments are small enough (64 values a thread),
 * ask the compiler to fit two blocks' registers; larger fragments need the
 * registers more than the second block. */
static void plan_occupancy(GridPlan *gp, const IrKernel *k, unsigned archs)
{
    long long per_thread = gp->fragment_values;
    const char *arch;
    long long limit = smem_limit(archs, &arch);
    long long regs_two_blocks = 65536 / (2LL * k->threads);
    gp->min_blocks = per_thread <= 64 && per_thread + 64 <= regs_two_blocks && 2 * gp->smem_bytes <= limit ? 2 : 1;
}

/* The loads of the block. When every one starts at a column that is a
 * multiple of 16 bytes, the kernel also comes in a variant whose loads are
 * all whole 16-byte copies, which the launcher picks when the matrices and
 * their rows are 16-byte aligned: no alignment tests in the mainloop. */
static void plan_alignment(GridPlan *gp, const Vec *body)
{
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        if (s->kind == STMT_TILE_OP && tile_load_is_async(s->op))
            vec_push(&gp->loads, s->op);
        else if (stmt_nested(s))
            plan_alignment(gp, stmt_nested(s));
    }
}

GridPlan *lower_grid(const IrKernel *k, int stmt_index, unsigned archs)
{
    GridPlan *gp = anew(sizeof *gp);
    const IrStmt *s = k->stmts.items[stmt_index];
    gp->grid = s->grid;
    gp->stmt_index = stmt_index;
    gp->kernel_name = aprintf("tile_%s_grid%d", k->name, stmt_index);
    gp->warps_m = k->threads / 32;
    gp->warps_n = 1;
    /* Asked for sm_90a alone (a tuned point only Hopper takes, tune.c), the
     * sm_80 kernel's register budget binds only where the sm_90a kernel,
     * with its own (lower_grid_sm90), refuses the grid. */
    bool sm90a_alone = !(archs & ARCH_SM80);
    gp->fragment_values = block_fragment_values(gp->grid, k->threads);
    if (!plan_shared(gp, archs) || !(sm90a_alone || fits_registers(gp, k, NULL)) || !plan_warps(gp, k) ||
        !plan_cols_scratch(gp, archs))
        return NULL;
    plan_occupancy(gp, k, archs);
    plan_alignment(gp, &gp->grid->body);
    gp->align_variants = gp->loads.len > 0;
    for (int i = 0; i < gp->loads.len; i++)
        gp->align_variants &= ((const IrTileOp *)gp->loads.items[i])->c0_aligned;
    plan_decls(gp, k);
    if (!lower_block(gp, k))
        return NULL;
    if (archs & ARCH_SM90A)
        gp->sm90 = lower_grid_sm90(k, gp, &gp->sm90_why);
    if (sm90a_alone && !gp->sm90 && !fits_registers(gp, k, gp->sm90_why))
        return NULL;
    return gp;
}

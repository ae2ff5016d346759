#define _XOPEN_SOURCE 700 /* realpath */
#include "emit_cuda.h"
#include "emit_internal.h"

#include <ctype.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void put(Out *o, const char *text)
{
    for (const char *p = text; *p; p++)
        o->line += *p == '\n';
    str_add(&o->s, text);
}

void putf(Out *o, const char *fmt, ...)
{
    Str tmp = {0};
    va_list ap;
    va_start(ap, fmt);
    str_vaddf(&tmp, fmt, ap);
    va_end(ap);
    put(o, str_cstr(&tmp));
    str_free(&tmp);
}

/* #line back to the user's file before user text ... */
void line_to_source(Out *o, SrcLoc loc) { putf(o, "#line %d \"%s\"\n", loc.line, o->names->source_name); }

/* ... and back to the generated file after it. */
void line_to_self(Out *o) { putf(o, "#line %d \"%s\"\n", o->line + 1, o->names->cu_name); }

/* ------------------------------------------------------------------------ */
/* Parameters                                                                */
/* ------------------------------------------------------------------------ */

static bool is_view(const IrParam *p) { return p->kind == PARAM_BUFFER && p->buf->rank >= 2; }

/* The launcher's (and the C header's) form of a parameter. */
char *launcher_param(const IrParam *p)
{
    if (p->kind == PARAM_SCALAR)
        return aprintf("%s %s", p->type.spelling, p->name);
    return aprintf("%s *%s", p->buf->elem.spelling, p->name);
}

char *kernel_param_name(const IrParam *p) { return is_view(p) ? aprintf("tile_p_%s", p->name) : p->name; }

char *kernel_param(const IrParam *p)
{
    if (is_view(p))
        return aprintf("%s *%s", p->buf->elem.spelling, kernel_param_name(p));
    return launcher_param(p);
}

void put_param_list(Out *o, const IrKernel *k, char *(*form)(const IrParam *))
{
    for (int i = 0; i < k->params.len; i++)
        putf(o, "%s%s", i ? ", " : "", form(k->params.items[i]));
}

void put_arg_names(Out *o, const IrKernel *k)
{
    for (int i = 0; i < k->params.len; i++)
        putf(o, "%s%s", i ? ", " : "", ((const IrParam *)k->params.items[i])->name);
}

/* Views that give the C99 array parameters of `params` (const IrParam*)
 * their meaning in code that indexes them. */
void put_views(Out *o, const Vec *params, const char *indent)
{
    for (int i = 0; i < params->len; i++) {
        const IrParam *p = params->items[i];
        if (!is_view(p))
            continue;
        const IrBuffer *b = p->buf;
        putf(o, "%sconst tile_view<%s, %d> %s = {tile_p_%s, {", indent, b->elem.spelling, b->rank, p->name, p->name);
        for (int d = 1; d < b->rank; d++)
            putf(o, "%s(long long)(%s)", d > 1 ? ", " : "", b->extents[d]);
        put(o, "}};\n");
    }
}

/* ------------------------------------------------------------------------ */
/* Code with accesses                                                        */
/* ------------------------------------------------------------------------ */

static const VecBuffer *vec_buffer_of(const ParallelPlan *pp, const IrBuffer *buf)
{
    for (int i = 0; pp && i < pp->vec_buffers.len; i++) {
        const VecBuffer *vb = pp->vec_buffers.items[i];
        if (vb->buf == buf)
            return vb;
    }
    return NULL;
}

static const RegCache *cache_of(const ParallelPlan *pp, const IrBuffer *buf)
{
    for (int i = 0; pp && i < pp->caches.len; i++) {
        const RegCache *c = pp->caches.items[i];
        if (c->buf == buf)
            return c;
    }
    return NULL;
}

/* User code. Accesses of vectorised buffers become register reads/writes
 * with FORM_WIDE, those of cached buffers the cache's registers with
 * FORM_CACHED; shared tiles are called; the rest stays as written. */
/* Element tile_e of a fragment's registers (which hold floats): a write
 * rounds to the fragment's element type, as the C assignment does, for 1-D
 * fragments as for 2-D ones. */
static void put_fragment_element(Out *o, const IrAccess *a, const ParallelPlan *pp)
{
    const char *t = unqualified(a->buf->elem.spelling);
    const IrBuffer *looped = pp->layout->frag;
    const bool rounds = a->is_write && strcmp(t, "float") != 0;
    if (rounds)
        putf(o, "tile_round_ref<%s>(", t);
    if (a->buf->rank == 1 && looped->rank == 2) /* one value per row (column) of the loop's fragment */
        putf(o, "%s.v[decltype(%s)::%s_slot(tile_e)]", a->buf->name, looped->name,
             vec_contains(&pp->col_reads, a->buf) ? "col" : "row");
    else /* the loop's own fragment, or a 1-D fragment in a loop over its rows (columns) */
        putf(o, "%s.v[tile_e]", a->buf->name);
    if (rounds)
        put(o, ")");
}

void put_code_form(Out *o, const IrCode *code, const ParallelPlan *pp, int form, bool statement)
{
    line_to_source(o, code->loc);
    for (int c = 1; c < code->loc.col; c++)
        put(o, " ");
    for (int i = 0; i < code->nsegs; i++) {
        const IrSeg *s = &code->segs[i];
        const RegCache *cache = form & FORM_CACHED && s->kind == SEG_ACCESS ? cache_of(pp, s->access->buf) : NULL;
        if (s->kind == SEG_TEXT)
            put(o, s->text);
        else if (cache)
            putf(o, "tile_c%d[tile_k][tile_j]", cache->index);
        else if (form & FORM_FRAGMENT && s->access->buf->space == SPACE_FRAGMENT)
            put_fragment_element(o, s->access, pp);
        else if (form & FORM_WIDE && vec_buffer_of(pp, s->access->buf))
            putf(o, form & FORM_GROUPED ? "tile_v_%s[tile_k][tile_j]" : "tile_v_%s[tile_j]", s->access->buf->name);
        else if (s->access->buf->space == SPACE_SHARED) /* a shared tile (emit_tile.c) */
            putf(o, "%s(0)(%s, %s)", s->access->buf->name, s->access->buf->rank == 1 ? "0" : s->access->subs[0],
                 s->access->subs[s->access->buf->rank - 1]);
        else
            put(o, s->access->text);
    }
    /* An expression body's extent stops before its ';'. */
    put(o, statement ? ";\n" : "\n");
    line_to_self(o);
}

void put_code(Out *o, const IrCode *code, const ParallelPlan *pp, bool statement)
{
    put_code_form(o, code, pp, pp ? FORM_WIDE : 0, statement);
}

/* `if (` the guards of a parallel loop of a block `) {`, each condition
 * with its #line; nothing for a loop without. */
void put_guard_open(Out *o, const IrGuard *guard, const char *in)
{
    if (!guard)
        return;
    putf(o, "%sif (", in);
    for (const IrGuard *g = guard; g; g = g->inner) {
        putf(o, "%s(\n", g->negate ? "!" : "");
        put_code(o, g->cond, NULL, false);
        putf(o, "%s    )%s", in, g->inner ? " && " : ") { /* the if around the loop */\n");
    }
}

void put_guard_close(Out *o, const IrGuard *guard, const char *in)
{
    if (guard)
        putf(o, "%s}\n", in);
}

/* ------------------------------------------------------------------------ */
/* Kernels                                                                   */
/* ------------------------------------------------------------------------ */

void put_decls(Out *o, const Vec *decls)
{
    for (int i = 0; i < decls->len; i++)
        put_code(o, ((const IrStmt *)decls->items[i])->code, NULL, false);
}

/* `const T v = lo + k * step;` from the loop descriptor `desc` (tile_l0,
 * tile_pl, ...) at iteration k_expr. */
void put_loop_var(Out *o, const IrLoop *l, const char *desc, const char *k_expr, const char *indent)
{
    const char *t = unqualified(l->var_type.spelling);
    putf(o, "%s[[maybe_unused]] const %s %s = (%s)(%s.lo + (%s) * %s.step);\n", indent, t, l->var, t, desc, k_expr,
         desc);
}

/* Iteration numbers of the outer loops, from the linear row index. */
static void put_outer_vars(Out *o, const IrParallel *par, const LoopForm *f)
{
    if (par->depth == 1)
        return;
    putf(o, "%slong long tile_rest = tile_row;\n", f->in);
    for (int d = par->depth - 2; d > 0; d--) {
        putf(o, "%sconst long long tile_k%d = tile_rest - tile_div(tile_rest, %s%d.count) * %s%d.count;\n", f->in, d,
             f->desc, d, f->desc, d);
        putf(o, "%stile_rest = tile_div(tile_rest, %s%d.count);\n", f->in, f->desc, d);
    }
    putf(o, "%sconst long long tile_k0 = tile_rest;\n", f->in);
    for (int d = 0; d < par->depth - 1; d++)
        put_loop_var(o, &par->loops[d], aprintf("%s%d", f->desc, d), aprintf("tile_k%d", d), f->in);
}

static void put_scalar_group(Out *o, const ParallelPlan *pp, const LoopForm *f, const char *indent)
{
    const IrParallel *par = pp->par;
    int inner = par->depth - 1;
    putf(o, "%sfor (int tile_j = 0; tile_j < %d; tile_j++) {\n", indent, par->vector);
    putf(o, "%s    if (tile_first + tile_j >= %s%d.count)\n%s        break;\n", indent, f->desc, inner, indent);
    put_loop_var(o, &par->loops[inner], aprintf("%s%d", f->desc, inner), "tile_first + tile_j",
                 aprintf("%s    ", indent));
    put_code(o, par->body, NULL, true);
    putf(o, "%s}\n", indent);
}

static void put_vector_group(Out *o, const ParallelPlan *pp, const LoopForm *f)
{
    const IrParallel *par = pp->par;
    int inner = par->depth - 1, v = par->vector;
    const IrLoop *l = &par->loops[inner];
    const char *in = f->in, *in4 = aprintf("%s    ", f->in), *in8 = aprintf("%s        ", f->in);
    const char *desc = aprintf("%s%d", f->desc, inner);
    putf(o, "%sbool tile_wide = tile_first + %d <= %s.count;\n", in, v, desc);
    putf(o, "%sif (tile_wide) {\n", in);
    put_loop_var(o, l, desc, "tile_first", in4);
    for (int i = 0; i < pp->vec_buffers.len; i++) {
        const VecBuffer *vb = pp->vec_buffers.items[i];
        putf(o, "%stile_wide = tile_wide && tile_aligned<tile_vec_align<%s, %d>()>(&(%s));\n", in4,
             unqualified(vb->buf->elem.spelling), v, vb->access->text);
    }
    putf(o, "%s}\n%sif (tile_wide) {\n", in, in);
    put_loop_var(o, l, desc, "tile_first", in4);
    for (int i = 0; i < pp->vec_buffers.len; i++) {
        const VecBuffer *vb = pp->vec_buffers.items[i];
        const char *t = unqualified(vb->buf->elem.spelling);
        putf(o, "%s%s tile_v_%s[%d];\n", in4, t, vb->buf->name, v);
        if (vb->load)
            putf(o, "%stile_vec_load<%s, %d>(tile_v_%s, &(%s));\n", in4, t, v, vb->buf->name, vb->access->text);
    }
    putf(o, "#pragma unroll\n%sfor (int tile_j = 0; tile_j < %d; tile_j++) {\n", in4, v);
    put_loop_var(o, l, desc, "tile_first + tile_j", in8);
    put_code(o, par->body, pp, true);
    putf(o, "%s}\n", in4);
    for (int i = 0; i < pp->vec_buffers.len; i++) {
        const VecBuffer *vb = pp->vec_buffers.items[i];
        if (vb->store)
            putf(o, "%stile_vec_store<%s, %d>(&(%s), tile_v_%s);\n", in4, unqualified(vb->buf->elem.spelling), v,
                 vb->access->text, vb->buf->name);
    }
    putf(o, "%s} else {\n", in);
    put_scalar_group(o, pp, f, in4);
    putf(o, "%s}\n", in);
}

const char *reduce_op_enum(IrReduceOp op)
{
    static const char *names[] = {"TILE_RED_SUM", "TILE_RED_PROD", "TILE_RED_MAX",  "TILE_RED_MIN", "TILE_RED_AND",
                                  "TILE_RED_OR",  "TILE_RED_XOR",  "TILE_RED_LAND", "TILE_RED_LOR"};
    return names[op];
}

/* The plain loop over a thread's groups of iterations, at f->base. */
static void put_thread_loop_body(Out *o, const ParallelPlan *pp, const LoopForm *f)
{
    const IrParallel *par = pp->par;
    if (f->unroll_plain) /* loads of several groups in flight */
        put(o, "#pragma unroll 4\n");
    putf(o, "%sfor (long long tile_t = %s; tile_t < tile_total;\n%s     tile_t += %s) {\n", f->base, f->first, f->base,
         f->stride);
    if (par->depth > 1)
        putf(o,
             "%sconst long long tile_row = tile_div(tile_t, tile_groups);\n"
             "%sconst long long tile_first = (tile_t - tile_row * tile_groups) * %d;\n",
             f->in, f->in, par->vector);
    else
        putf(o, "%sconst long long tile_first = tile_t * %d;\n", f->in, par->vector);
    put_outer_vars(o, par, f);
    if (pp->vec_buffers.len)
        put_vector_group(o, pp, f);
    else
        put_scalar_group(o, pp, f, f->in);
    putf(o, "%s}\n", f->base);
}

static void put_unrolled(Out *o, const ParallelPlan *pp, const LoopForm *f);

/* The loops over a thread's groups (the unrolled form first, in blocks),
 * with each reduction variable standing for the thread's part inside. */
static void put_thread_loop(Out *o, const ParallelPlan *pp, const LoopForm *f)
{
    const IrParallel *par = pp->par;
    LoopForm inner = *f;
    if (par->reduces.len) {
        for (int i = 0; i < par->reduces.len; i++) {
            const IrReduce *r = par->reduces.items[i];
            const char *t = unqualified(r->type.spelling);
            putf(o, "%s%s tile_part%d = tile_identity<%s, %s>();\n", f->base, t, i, reduce_op_enum(r->op), t);
        }
        putf(o, "%s{\n", f->base);
        inner.base = aprintf("%s    ", f->base);
        inner.in = aprintf("%s    ", f->in);
        for (int i = 0; i < par->reduces.len; i++)
            putf(o, "%sauto &%s = tile_part%d; /* this thread's part */\n", inner.base,
                 ((const IrReduce *)par->reduces.items[i])->var, i);
    }
    if (pp->unroll)
        put_unrolled(o, pp, &inner);
    else
        put_thread_loop_body(o, pp, &inner);
    if (par->reduces.len)
        putf(o, "%s}\n", f->base);
}

static void put_loop_comment(Out *o, const ParallelPlan *pp, const char *over)
{
    const IrParallel *par = pp->par;
    putf(o, "// #pragma tile parallel at %s:%d: ", o->names->source_name, par->loc.line);
    for (int d = 0; d < par->depth; d++)
        putf(o, "%s%s", d ? " x " : "", par->loops[d].var);
    putf(o, "%s over %s; each thread takes %d consecutive iteration%s of '%s'", par->depth > 1 ? " collapsed" : "",
         over, par->vector, par->vector > 1 ? "s" : "", par->loops[par->depth - 1].var);
    if (pp->vec_buffers.len) {
        put(o, ",\n// moving ");
        for (int i = 0; i < pp->vec_buffers.len; i++) {
            const VecBuffer *vb = pp->vec_buffers.items[i];
            putf(o, "%s%s", i ? ", " : "", vb->buf->name);
        }
        put(o, " in wide accesses when aligned (scalar otherwise)");
    }
    for (int i = 0; i < par->reduces.len; i++) {
        const IrReduce *r = par->reduces.items[i];
        putf(o, "%s %s: %s", i ? "," : ";\n// reduce", r->op_text, r->var);
    }
    put(o, ".\n");
}

/* Declarations of the kernel that a __global__ function placed at
 * statement `at` of the kernel needs; a variable that an earlier loop
 * reduced over the grid takes its value from the launcher's slots. */
void put_kernel_decls(Out *o, const KernelPlan *kp, const Vec *decls, int at, const char *indent)
{
    for (int i = 0; i < decls->len; i++) {
        const IrStmt *s = decls->items[i];
        put_code(o, s->code, NULL, false);
        for (int n = 0; n < s->decl_names.len; n++)
            for (int j = 0; j < kp->slots.len; j++) {
                const ReduceSlot *slot = kp->slots.items[j];
                if (slot->first_stmt < at && strcmp(slot->var, s->decl_names.items[n]) == 0)
                    putf(o, "%s%s = tile_slot<%s>(tile_slots, %d); /* reduced on the GPU */\n", indent, slot->var,
                         unqualified(slot->type.spelling), slot->index);
            }
    }
}

/* The launcher's scratch for reductions over the grid, as parameters of
 * every __global__ function of a kernel that has them, and as arguments. */
void put_scratch_params(Out *o, const KernelPlan *kp)
{
    if (kp->slots.len)
        put(o, ", unsigned char *tile_slots, unsigned char *tile_parts");
}

void put_scratch_args(Out *o, const KernelPlan *kp)
{
    if (kp->slots.len)
        put(o, ", tile_red.slots.ptr, tile_red.parts.ptr");
}

static void put_parallel_kernel(Out *o, const KernelPlan *kp, const ParallelPlan *pp)
{
    const IrKernel *k = kp->k;
    const IrParallel *par = pp->par;
    put_loop_comment(o, pp, "the grid");
    putf(o, "__global__ void __launch_bounds__(%d) %s(", k->threads, pp->kernel_name);
    put_param_list(o, k, kernel_param);
    for (int d = 0; d < par->depth; d++)
        putf(o, ", tile_loop tile_l%d", d);
    put(o, ", long long tile_groups, long long tile_total");
    put_scratch_params(o, kp);
    put(o, ")\n{\n");
    put_views(o, &pp->params_used, "    ");
    put_kernel_decls(o, kp, &pp->decls, pp->stmt_index, "    ");
    LoopForm f = {"tile_l",
                  "    ",
                  "        ",
                  "blockIdx.x * (long long)blockDim.x + threadIdx.x",
                  "(long long)gridDim.x * blockDim.x",
                  false,
                  false};
    put_thread_loop(o, pp, &f);
    if (par->reduces.len) { /* the block's part of each variable, for the combining kernel */
        put(o, "    __shared__ alignas(16) unsigned char tile_red_smem[TILE_REDUCE_SCRATCH];\n");
        for (int i = 0; i < par->reduces.len; i++) {
            const IrReduce *r = par->reduces.items[i];
            const char *t = unqualified(r->type.spelling);
            putf(o, "    tile_part%d = tile_block_reduce<%s, %d>(tile_part%d, tile_red_smem);\n", i,
                 reduce_op_enum(r->op), k->threads, i);
            putf(o, "    if (threadIdx.x == 0)\n        tile_part<%s>(tile_parts, %d)[blockIdx.x] = tile_part%d;\n", t,
                 i, i);
        }
    }
    put(o, "}\n\n");
    if (!par->reduces.len)
        return;
    putf(o, "// Combines the blocks' parts of the reduction at %s:%d, in block order, with the values before it.\n",
         o->names->source_name, par->loc.line);
    putf(o, "__global__ void __launch_bounds__(%d) %s(", k->threads, pp->combine_name);
    put_param_list(o, k, kernel_param);
    put_scratch_params(o, kp);
    put(o, ", int tile_nparts)\n{\n");
    put_views(o, &pp->combine_params, "    ");
    put_kernel_decls(o, kp, &pp->combine_decls, pp->stmt_index, "    ");
    put(o, "    __shared__ alignas(16) unsigned char tile_red_smem[TILE_REDUCE_SCRATCH];\n");
    for (int i = 0; i < par->reduces.len; i++) {
        const IrReduce *r = par->reduces.items[i];
        const char *t = unqualified(r->type.spelling), *op = reduce_op_enum(r->op);
        putf(o, "    {\n        %s tile_acc = tile_identity<%s, %s>();\n", t, op, t);
        putf(o, "        for (int tile_p = threadIdx.x; tile_p < tile_nparts; tile_p += %d)\n", k->threads);
        putf(o, "            tile_acc = tile_combine<%s>(tile_acc, tile_part<%s>(tile_parts, %d)[tile_p]);\n", op, t,
             i);
        putf(o, "        tile_acc = tile_block_reduce<%s, %d>(tile_acc, tile_red_smem);\n", op, k->threads);
        putf(o,
             "        if (threadIdx.x == 0)\n            *reinterpret_cast<%s *>(tile_slots + 8 * %d) = "
             "tile_combine<%s>(%s, tile_acc);\n",
             t, pp->slots[i], op, r->var);
        put(o, "    }\n");
    }
    put(o, "}\n\n");
}

static bool is_filled(const ParallelPlan *pp, const RegCache *c) { return vec_contains(&pp->fills, c); }

/* The wide buffers of the unrolled form that are not in a cache's
 * registers: one register array a group, tile_v_NAME[tile_k]. */
static void put_group_arrays(Out *o, const ParallelPlan *pp, const char *groups, const char *in)
{
    for (int i = 0; i < pp->vec_buffers.len; i++) {
        const VecBuffer *vb = pp->vec_buffers.items[i];
        if (!cache_of(pp, vb->buf))
            putf(o, "%s%s tile_v_%s[%s][%d];\n", in, unqualified(vb->buf->elem.spelling), vb->buf->name, groups,
                 pp->par->vector);
    }
}

/* Does the unrolled form load buffer vb for all groups up front
 * (put_group_loads): a cache this loop fills, or a streamed buffer no
 * cache holds? */
static bool loaded_up_front(const ParallelPlan *pp, const VecBuffer *vb)
{
    const RegCache *c = cache_of(pp, vb->buf);
    return c ? is_filled(pp, c) : vb->load && vb->streamed;
}

static bool loads_up_front(const ParallelPlan *pp)
{
    for (int i = 0; i < pp->vec_buffers.len; i++)
        if (loaded_up_front(pp, pp->vec_buffers.items[i]))
            return true;
    return false;
}

/* The loads of every whole group of a thread, before any group computes,
 * so that they are in flight together: a cache's registers for the loop
 * that fills it, the group's arrays for the others. */
static void put_group_loads(Out *o, const ParallelPlan *pp, const char *in)
{
    const IrLoop *l = &pp->par->loops[0];
    int v = pp->par->vector;
    putf(o, "%sif (tile_t < tile_n && tile_aligned_loop && tile_first + %d <= tile_count) {\n", in, v);
    const char *in4 = aprintf("%s    ", in);
    put_loop_var(o, l, "tile_q0", "tile_first", in4);
    for (int i = 0; i < pp->vec_buffers.len; i++) {
        const VecBuffer *vb = pp->vec_buffers.items[i];
        if (!loaded_up_front(pp, vb))
            continue;
        const char *t = unqualified(vb->buf->elem.spelling);
        const RegCache *c = cache_of(pp, vb->buf);
        if (c)
            putf(o, "%stile_vec_load<%s, %d>(tile_c%d[tile_k], &(%s));\n", in4, t, v, c->index, vb->access->text);
        else
            putf(o, "%stile_vec_load<%s, %d>(tile_v_%s[tile_k], &(%s));\n", in4, t, v, vb->buf->name, vb->access->text);
    }
    putf(o, "%s}\n", in);
}

/* Group tile_k of a thread in the unrolled form of a block's loop, once
 * its loads are in (put_group_loads): its caches' registers and arrays
 * stand for their buffers, whole 16-byte stores where aligned. A group at
 * the end of the loop, or any group when some buffer is not aligned, goes
 * element by element. */
static void put_cached_group(Out *o, const ParallelPlan *pp, const char *in)
{
    const IrParallel *par = pp->par;
    const IrLoop *l = &par->loops[0];
    int v = par->vector;
    const char *in4 = aprintf("%s    ", in), *in8 = aprintf("%s        ", in);
    putf(o, "%sif (tile_aligned_loop && tile_first + %d <= tile_count) {\n", in, v);
    bool shared_loads = false; /* what every grid iteration reads: in cache, loaded here */
    for (int i = 0; i < pp->vec_buffers.len; i++) {
        const VecBuffer *vb = pp->vec_buffers.items[i];
        if (vb->load && !vb->streamed && !cache_of(pp, vb->buf)) {
            if (!shared_loads)
                put_loop_var(o, l, "tile_q0", "tile_first", in4);
            shared_loads = true;
            putf(o, "%stile_vec_load<%s, %d>(tile_v_%s[tile_k], &(%s));\n", in4, unqualified(vb->buf->elem.spelling), v,
                 vb->buf->name, vb->access->text);
        }
    }
    putf(o, "#pragma unroll\n%sfor (int tile_j = 0; tile_j < %d; tile_j++) {\n", in4, v);
    put_loop_var(o, l, "tile_q0", "tile_first + tile_j", in8);
    put_code_form(o, par->body, pp, FORM_WIDE | FORM_CACHED | FORM_GROUPED, true);
    putf(o, "%s}\n", in4);
    bool stores = false;
    for (int i = 0; i < pp->vec_buffers.len; i++)
        stores |= ((const VecBuffer *)pp->vec_buffers.items[i])->store;
    if (stores && !shared_loads)
        put_loop_var(o, l, "tile_q0", "tile_first", in4);
    for (int i = 0; i < pp->vec_buffers.len; i++) {
        const VecBuffer *vb = pp->vec_buffers.items[i];
        if (vb->store && !cache_of(pp, vb->buf))
            putf(o, "%stile_vec_store<%s, %d>(&(%s), tile_v_%s[tile_k]);\n", in4, unqualified(vb->buf->elem.spelling),
                 v, vb->access->text, vb->buf->name);
    }
    putf(o, "%s} else {\n#pragma unroll\n%sfor (int tile_j = 0; tile_j < %d; tile_j++) {\n", in, in4, v);
    putf(o, "%sif (tile_first + tile_j < tile_count) {\n", in8);
    const char *in12 = aprintf("%s    ", in8);
    put_loop_var(o, l, "tile_q0", "tile_first + tile_j", in12);
    for (int i = 0; i < pp->fills.len; i++) {
        const RegCache *c = pp->fills.items[i];
        putf(o, "%stile_c%d[tile_k][tile_j] = %s;\n", in12, c->index, c->access->text);
    }
    put_code_form(o, par->body, pp, FORM_CACHED, true);
    putf(o, "%s}\n%s}\n%s}\n", in8, in4, in);
}

/* The unrolled form of a block's loop: when the thread has at most
 * pp->unroll groups, they run unrolled, in two passes: every group's loads
 * (in flight together), then every group's work (the caches in registers);
 * otherwise the plain loop. */
static void put_unrolled(Out *o, const ParallelPlan *pp, const LoopForm *f)
{
    const char *in = f->base, *in4 = aprintf("%s    ", in), *in8 = aprintf("%s        ", in);
    const char *groups =
        f->variants ? aprintf("(TILE_K < %d ? TILE_K : %d)", pp->unroll, pp->unroll) : aprintf("%d", pp->unroll);
    /* Groups start V elements apart (step 1, a vector's bytes a power of two
     * up to 16): all are aligned for wide moves when the first is. */
    putf(o, "%sbool tile_aligned_loop = true;\n%s{\n", in, in);
    put_loop_var(o, &pp->par->loops[0], "tile_q0", "0", in4);
    for (int i = 0; i < pp->vec_buffers.len; i++) {
        const VecBuffer *vb = pp->vec_buffers.items[i];
        const RegCache *c = cache_of(pp, vb->buf);
        if (c && !is_filled(pp, c))
            continue; /* in registers already */
        putf(o, "%s    tile_aligned_loop = tile_aligned_loop && tile_aligned<tile_vec_align<%s, %d>()>(&(%s));\n", in,
             unqualified(vb->buf->elem.spelling), pp->par->vector, vb->access->text);
    }
    putf(o, "%s}\n", in);
    putf(o, "%sif (tile_total <= %s * %s) {\n", in, groups, f->stride);
    putf(o, "%sconst int tile_n = (int)tile_total, tile_count = (int)tile_q0.count; /* small: 32-bit */\n", in4);
    put_group_arrays(o, pp, groups, in4);
    for (int pass = loads_up_front(pp) ? 0 : 1; pass < 2; pass++) {
        putf(o, "#pragma unroll\n%sfor (int tile_k = 0; tile_k < %s; tile_k++) {\n", in4, groups);
        putf(o, "%sconst int tile_t = (int)%s + tile_k * %s;\n", in8, f->first, f->stride);
        putf(o, "%sconst int tile_first = tile_t * %d;\n", in8, pp->par->vector);
        if (pass == 0)
            put_group_loads(o, pp, in8);
        else {
            putf(o, "%sif (tile_t < tile_n) {\n", in8);
            put_cached_group(o, pp, aprintf("%s    ", in8));
            putf(o, "%s}\n", in8);
        }
        putf(o, "%s}\n", in4);
    }
    putf(o, "%s} else {\n", in);
    LoopForm plain = *f;
    plain.base = in4;
    plain.in = in8;
    put_thread_loop_body(o, pp, &plain);
    putf(o, "%s}\n", in);
}

/* The per-thread loop of a parallel loop inside a grid block (emit_tile.c):
 * the block's threads take its groups of iterations in turn; each
 * reduction ends in a block reduction that every thread sees. In a kernel
 * with variants, "the block" is the team that runs the grid iteration
 * (TILE_TEAM threads, lane tile_lane). */
void put_block_parallel(Out *o, const IrKernel *k, const ParallelPlan *pp, bool variants, const char *in)
{
    const IrParallel *par = pp->par;
    put_guard_open(o, par->guard, in);
    putf(o, "%s{ ", in);
    put_loop_comment(o, pp, "the block's threads");
    const char *in4 = aprintf("%s    ", in);
    for (int d = 0; d < par->depth; d++) {
        const IrLoop *l = &par->loops[d];
        putf(o, "%sconst tile_loop tile_q%d = tile_make_loop((long long)(%s), (long long)(%s), (long long)(%s), %s);\n",
             in4, d, l->lo, l->hi, l->step, l->inclusive ? "true" : "false");
    }
    int inner = par->depth - 1;
    putf(o, "%sconst long long tile_groups = tile_q%d.count > 0 ? (tile_q%d.count + %d) / %d : 0;\n", in4, inner, inner,
         par->vector - 1, par->vector);
    putf(o, "%sconst long long tile_total = tile_groups", in4);
    for (int d = 0; d < inner; d++)
        putf(o, " * (tile_q%d.count > 0 ? tile_q%d.count : 0)", d, d);
    put(o, ";\n");
    const char *first = variants ? "(long long)tile_lane" : "(long long)threadIdx.x";
    const char *stride = variants ? "TILE_TEAM" : aprintf("%d", k->threads);
    LoopForm f = {"tile_q", in4, aprintf("%s    ", in4), first, stride, true, variants};
    put_thread_loop(o, pp, &f);
    for (int i = 0; i < par->reduces.len; i++) {
        const IrReduce *r = par->reduces.items[i];
        const char *op = reduce_op_enum(r->op);
        if (variants)
            putf(o, "%s%s = tile_combine<%s>(%s, tile_team_reduce<%s, TILE_TEAM, %d>(tile_part%d, tile_red_smem));\n",
                 in4, r->var, op, r->var, op, k->threads, i);
        else
            putf(o, "%s%s = tile_combine<%s>(%s, tile_block_reduce<%s, %d>(tile_part%d, tile_red_smem));\n", in4,
                 r->var, op, r->var, op, k->threads, i);
    }
    putf(o, "%s}\n", in);
    put_guard_close(o, par->guard, in);
}

/* ------------------------------------------------------------------------ */
/* Launchers                                                                 */
/* ------------------------------------------------------------------------ */

/* The launcher's view of a loop: evaluated once, before the kernel runs. */
void put_loop_descriptor(Out *o, const IrLoop *l, int d)
{
    putf(o,
         "        const tile_loop tile_l%d = tile_make_loop((long long)(%s), (long long)(%s), (long long)(%s), %s);\n",
         d, l->lo, l->hi, l->step, l->inclusive ? "true" : "false");
    putf(o,
         "        if (tile_l%d.count < 0) /* the C loop would never end */\n            return "
         "tile_prof.failed(&tile_dev, "
         "cudaErrorInvalidValue, \"the loop at line %d would never end\");\n",
         d, l->loc.line);
}

static void put_launch(Out *o, const KernelPlan *kp, const ParallelPlan *pp)
{
    const IrKernel *k = kp->k;
    const IrParallel *par = pp->par;
    putf(o, "    { // %s:%d\n", o->names->source_name, par->loc.line);
    for (int d = 0; d < par->depth; d++)
        put_loop_descriptor(o, &par->loops[d], d);
    int inner = par->depth - 1;
    putf(o, "        const long long tile_groups = (tile_l%d.count + %d) / %d;\n", inner, par->vector - 1, par->vector);
    put(o, "        long long tile_total = tile_groups");
    for (int d = 0; d < inner; d++)
        putf(o, " * tile_l%d.count", d);
    put(o, ";\n");
    if (par->reduces.len)
        put(o, "        int tile_nparts = 0; /* no iteration: the parts are the identity */\n");
    put(o, "        if (tile_total > 0) {\n");
    if (par->reduces.len)
        putf(o,
             "            tile_err = tile_launch_parts(%s, tile_total, %d, TILE_MAX_PARTS, &tile_nparts, "
             "tile_stream, ",
             pp->kernel_name, k->threads);
    else
        putf(o, "            tile_err = tile_launch(%s, tile_total, %d, tile_stream, ", pp->kernel_name, k->threads);
    put_arg_names(o, k);
    for (int d = 0; d < par->depth; d++)
        putf(o, ", tile_l%d", d);
    put(o, ", tile_groups, tile_total");
    put_scratch_args(o, kp);
    put(o, ");\n");
    put(o, "            if (tile_err != cudaSuccess)\n                return tile_prof.failed(&tile_dev, tile_err);\n"
           "        }\n");
    if (par->reduces.len) {
        putf(o, "        tile_err = tile_launch_blocks(%s, 1, %d, 0, tile_stream, ", pp->combine_name, k->threads);
        put_arg_names(o, k);
        put_scratch_args(o, kp);
        put(o, ", tile_nparts);\n        if (tile_err != cudaSuccess)\n            return tile_prof.failed(&tile_dev, "
               "tile_err);\n");
    }
    put(o, "    }\n");
}

/* A C string literal's body: quotes, backslashes and control bytes escaped. */
char *c_string(const char *text)
{
    Str s = {0};
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\')
            str_addf(&s, "\\%c", *c);
        else if (*c < 0x20 || *c == 0x7f)
            str_addf(&s, "\\%03o", *c);
        else
            str_addc(&s, (char)*c);
    }
    return atake(&s);
}

/* The launcher's profiler scope (tile_profile.cuh): its name, source line
 * and declared work; with TILEPP_PROFILE unset it costs one test. */
static void put_profile_scope(Out *o, const IrKernel *k)
{
    const char *slash = strrchr(o->names->source_name, '/');
    const char *where = c_string(aprintf("%s:%d", slash ? slash + 1 : o->names->source_name, k->loc.line));
    /* a variant is a row of its own in the profiler's table */
    const char *name = o->variant ? aprintf("%s [%s]", k->name, o->variant) : k->name;
    putf(o, "    static tile_kernel_info tile_info = {\"%s\", \"%s\", \"%s (%s)\", {false}};\n", name, where, name,
         where);
    put(o, "    tile_profile_scope tile_prof(&tile_info, tile_stream);\n");
    if (k->flops || k->bytes)
        putf(o, "    if (tile_prof.timing)\n        tile_prof.work(%s, %s);\n",
             k->flops ? aprintf("(double)(%s)", k->flops) : "-1.0",
             k->bytes ? aprintf("(double)(%s)", k->bytes) : "-1.0");
}

/* -g: the launcher waits for its kernels and reads the record of a failed
 * bounds check (tile_debug.cuh), which its table of checks turns into a
 * report: where the operation is, what it moves, the block's coordinates. */
static void put_debug_collect(Out *o, const KernelPlan *kp)
{
    const char *slash = strrchr(o->names->source_name, '/');
    const char *file = slash ? slash + 1 : o->names->source_name;
    if (kp->checks.len)
        put(o, "    static const tile_debug_site tile_debug_sites[] = {\n");
    for (int i = 0; i < kp->checks.len; i++) {
        const TileCheck *c = kp->checks.items[i];
        const IrTileOp *op = c->op;
        bool load = op->kind == TILE_LOAD;
        const IrBuffer *tile = load ? op->dst : op->src;
        putf(o, "        {%d, \"%s\", \"%s of '%s' %s '%s'\", %s, %d, {", c->site,
             c_string(aprintf("%s:%d:%d", file, op->loc.line, op->loc.col)), load ? "tile_load" : "tile_store",
             tile->name, load ? "from" : "to", op->mat.buf->name,
             c->kind == CHECK_WINDOW ? "TILE_DEBUG_WINDOW" : "TILE_DEBUG_BOUNDS", tile->rank);
        for (int d = 0; d < 3; d++)
            putf(o, "%s%s", d ? ", " : "", d < c->grid->depth ? aprintf("\"%s\"", c->grid->loops[d].var) : "nullptr");
        put(o, "}},\n");
    }
    if (kp->checks.len)
        put(o, "    };\n");
    putf(o, "    tile_err = tile_debug_collect(tile_prof, &tile_dev, tile_stream, %s, %d);\n",
         kp->checks.len ? "tile_debug_sites" : "nullptr", kp->checks.len);
    put(o, "    if (tile_err != cudaSuccess)\n        return tile_err;\n");
}

static void put_launcher(Out *o, const KernelPlan *kp)
{
    const IrKernel *k = kp->k;
    if (o->variant)
        putf(o, "// Launches %s() of %s:%d with %s on `tile_stream`; returns the first error.\n", k->name,
             o->names->source_name, k->loc.line, o->variant);
    else
        putf(o, "// Launches %s() of %s:%d on `tile_stream`; returns the first error.\n", k->name,
             o->names->source_name, k->loc.line);
    putf(o, "%scudaError_t %s_gpu_stream(", o->variant ? "" : "extern \"C\" ", k->name);
    put_param_list(o, k, launcher_param);
    putf(o, "%scudaStream_t tile_stream)\n{\n", k->params.len ? ", " : "");
    put(o, "    tile_device tile_dev;\n    cudaError_t tile_err = tile_check_device(&tile_dev);\n"
           "    if (tile_err != cudaSuccess)\n        return tile_err;\n");
    put_profile_scope(o, k);
    put_decls(o, &kp->host_decls);
    if (kp->slots.len) { /* the values reduced over the grid, and the blocks' parts */
        putf(o, "    tile_scratch tile_red;\n    tile_err = tile_red.init(tile_stream, %d, %d);\n", kp->slots.len,
             kp->max_reduces);
        put(o, "    if (tile_err != cudaSuccess)\n        return tile_prof.failed(&tile_dev, tile_err);\n");
    }
    for (int j = 0; j < k->stmts.len; j++) { /* in the kernel's order: each sees what the last wrote */
        for (int i = 0; i < kp->parallels.len; i++)
            if (((const ParallelPlan *)kp->parallels.items[i])->stmt_index == j)
                put_launch(o, kp, kp->parallels.items[i]);
        for (int i = 0; i < kp->grids.len; i++)
            if (((const GridPlan *)kp->grids.items[i])->stmt_index == j)
                put_grid_launch(o, kp, kp->grids.items[i]);
    }
    if (kp->debug)
        put_debug_collect(o, kp);
    put(o, "    return tile_prof.done();\n}\n\n");
    if (o->variant) /* the tuned launcher is the only caller */
        return;
    putf(o, "extern \"C\" cudaError_t %s_gpu(", k->name);
    put_param_list(o, k, launcher_param);
    putf(o, ")\n{\n    return %s_gpu_stream(", k->name);
    put_arg_names(o, k);
    putf(o, "%s0);\n}\n\n", k->params.len ? ", " : "");
}

/* ------------------------------------------------------------------------ */
/* The prelude                                                               */
/* ------------------------------------------------------------------------ */

static const char *strip_static(const char *text, bool is_static)
{
    if (is_static && str_starts_with(text, "static") && isspace((unsigned char)text[6]))
        return text + 7;
    return text;
}

/* Does the declaration, before its parameter list, say `inline`? */
static bool declared_inline(const char *text)
{
    const char *paren = strchr(text, '(');
    size_t n = paren ? (size_t)(paren - text) : strlen(text);
    for (const char *p = text; p + 6 <= text + n; p++)
        if (strncmp(p, "inline", 6) == 0 && (p == text || !isalnum((unsigned char)p[-1])) &&
            !isalnum((unsigned char)p[6]) && p[6] != '_')
            return true;
    return false;
}

/* `#define NAME ...` -> "NAME" */
static char *macro_name(const char *text)
{
    const char *p = text + strlen("#define");
    while (*p == ' ' || *p == '\t')
        p++;
    const char *end = p;
    while (isalnum((unsigned char)*end) || *end == '_')
        end++;
    return astrndup(p, (size_t)(end - p));
}

void put_prelude_item(Out *o, const IrPrelude *p)
{
    line_to_source(o, p->loc);
    switch (p->kind) {
    case PRELUDE_INCLUDE:
        putf(o, "%s\n", p->text);
        break;
    case PRELUDE_MACRO:
        /* a redefinition later in the file replaces it here too, from here on */
        putf(o, "#undef %s\n", macro_name(p->text));
        line_to_source(o, p->loc);
        putf(o, "%s\n", p->text);
        break;
    case PRELUDE_FUNCTION:
        /* internal linkage: the CPU reference of the same file may be linked beside it;
         * inline: a helper the host side does not call draws no unused-function warning */
        putf(o, "static %s__host__ __device__ %s\n", declared_inline(p->text) ? "" : "inline ",
             strip_static(p->text, p->is_static));
        break;
    case PRELUDE_VARIABLE:
        /* a constant in device memory for device code, and in host memory for
         * the host side of the __host__ __device__ helpers that read it */
        putf(o, "#ifdef __CUDA_ARCH__\nstatic __device__ %s;\n#else\n", strip_static(p->text, p->is_static));
        line_to_source(o, p->loc);
        putf(o, "static %s;\n#endif\n", strip_static(p->text, p->is_static));
        break;
    case PRELUDE_DECL:
        putf(o, "%s;\n", p->text);
        break;
    }
}

void put_kernel(Out *o, const KernelPlan *kp)
{
    line_to_self(o);
    putf(o, "\n// ==== kernel %s, %s:%d, threads(%d) ====\n\n", kp->k->name, o->names->source_name, kp->k->loc.line,
         kp->k->threads);
    for (int j = 0; j < kp->parallels.len; j++)
        put_parallel_kernel(o, kp, kp->parallels.items[j]);
    for (int j = 0; j < kp->grids.len; j++)
        put_grid_kernel(o, kp, kp->grids.items[j]);
    put_launcher(o, kp);
}

/* The kernels, tuned or not, in the file's order. */
typedef struct KernelWalk {
    const Plan *plan;
    int next, next_tuned;
} KernelWalk;

/* The next kernel of the walk, which moves on: one of *kp and *tk is set. */
static void walk_next(KernelWalk *w, const KernelPlan **kp, const TunedKernel **tk)
{
    *kp = w->next < w->plan->kernels.len ? w->plan->kernels.items[w->next] : NULL;
    *tk = w->next_tuned < w->plan->tuned.len ? w->plan->tuned.items[w->next_tuned] : NULL;
    if (*kp && (!*tk || (*kp)->k->loc.line < (*tk)->k->loc.line)) {
        *tk = NULL;
        w->next++;
    } else {
        *kp = NULL;
        w->next_tuned++;
    }
}

/* The line of the walk's next kernel; INT_MAX at the end. */
static int walk_line(const KernelWalk *w)
{
    int line = INT_MAX;
    if (w->next < w->plan->kernels.len)
        line = ((const KernelPlan *)w->plan->kernels.items[w->next])->k->loc.line;
    if (w->next_tuned < w->plan->tuned.len) {
        int tuned = ((const TunedKernel *)w->plan->tuned.items[w->next_tuned])->k->loc.line;
        line = tuned < line ? tuned : line;
    }
    return line;
}

static void put_next_kernel(Out *o, KernelWalk *w)
{
    const KernelPlan *kp;
    const TunedKernel *tk;
    walk_next(w, &kp, &tk);
    if (kp)
        put_kernel(o, kp);
    else
        put_tuned_kernel(o, tk);
}

static const IrKernel *next_kernel_ir(KernelWalk *w)
{
    const KernelPlan *kp;
    const TunedKernel *tk;
    walk_next(w, &kp, &tk);
    return kp ? kp->k : tk->k;
}

/* What the file declares and its kernels, in the file's order, so that each
 * kernel sees the macros as they are defined where it stands. */
static void put_body(Out *o, const Plan *plan)
{
    const IrModule *m = plan->m;
    KernelWalk w = {plan, 0, 0};
    if (m->prelude.len)
        putf(o, "// ---- from %s: what the kernels use, and the kernels, in its order ----\n", o->names->source_name);
    bool kernel_last = false;
    for (int i = 0; i < m->prelude.len; i++) {
        const IrPrelude *p = m->prelude.items[i];
        while (walk_line(&w) < p->loc.line)
            put_next_kernel(o, &w);
        put_prelude_item(o, p);
    }
    while (walk_line(&w) < INT_MAX) {
        put_next_kernel(o, &w);
        kernel_last = true;
    }
    bool prelude_last = m->prelude.len && !kernel_last;
    if (prelude_last)
        line_to_self(o);
}

/* "-DNAME=VALUE" -> "#define NAME VALUE" ("-DNAME": 1, as a compiler takes
 * it), "-UNAME" -> "#undef NAME", "-includeFILE" -> #include of FILE, in the
 * command line's order: nvcc then compiles the kernels with what the parse
 * had. Each macro is undefined first, so nvcc's own -D cannot clash. A
 * forced include found from the current directory is named by its absolute
 * path (nvcc runs elsewhere); otherwise nvcc searches its include path. */
/* The text of the command line's -D or -U at argument *i ("NAME=VALUE",
 * "NAME", "F(x)=..."), *i moved past a separate value; NULL for other
 * arguments. */
static const char *macro_arg(const EmitNames *names, int *i)
{
    const char *a = names->parse_args[*i];
    if (a[0] != '-' || (a[1] != 'D' && a[1] != 'U'))
        return NULL;
    return a[2] || *i + 1 >= names->nparse_args ? a + 2 : names->parse_args[++*i];
}

static void put_command_line_macros(Out *o, const EmitNames *names)
{
    for (int i = 0; i < names->nparse_args; i++) {
        const char *a = names->parse_args[i];
        if (str_starts_with(a, "-include") && a[8]) {
            char *abs = realpath(a + 8, NULL);
            putf(o, "#include \"%s\"\n", abs ? abs : a + 8);
            free(abs);
            continue;
        }
        const char *text = macro_arg(names, &i);
        if (!text)
            continue;
        const char *eq = strchr(text, '=');
        size_t name_len = strcspn(text, "=(");
        putf(o, "#undef %.*s\n", (int)name_len, text);
        if (a[1] == 'D')
            putf(o, "#define %.*s %s\n", (int)(eq ? eq - text : (ptrdiff_t)strlen(text)), text, eq ? eq + 1 : "1");
    }
}

/* `#pragma push_macro("NAME")` and `#undef NAME` for each macro of the
 * command line (push), or `#pragma pop_macro("NAME")`: around tilepp's own
 * headers. */
static void put_macro_shield(Out *o, const EmitNames *names, bool push)
{
    for (int i = 0; i < names->nparse_args; i++) {
        const char *text = macro_arg(names, &i);
        if (!text)
            continue;
        int name_len = (int)strcspn(text, "=(");
        putf(o, "#pragma %s(\"%.*s\")\n", push ? "push_macro" : "pop_macro", name_len, text);
        if (push)
            putf(o, "#undef %.*s\n", name_len, text);
    }
}

void put_file_head(Out *o, const Plan *plan)
{
    const EmitNames *names = o->names;
    const IrModule *m = plan->m;
    putf(o, "// Generated by tilepp %s from %s. Do not edit: edit %s and translate again.\n", TILEPP_VERSION,
         names->source_name, names->source_name);
    /* tile.h gives generated code its own half and bfloat16 (C's arithmetic);
     * other C++ and CUDA files that include it get CUDA's. */
    put(o, "#define TILEPP_GENERATED_CUDA 1\n");
    put_command_line_macros(o, names);
    put(o, "#include <tilepp/tile.h>\n");
    /* tilepp's device headers see none of the command line's macros (a
     * -DBM=64 would rename their own BM); tile.h and the file's code do */
    bool own_headers = plan_uses_tiles(plan) || plan_uses_sm90(plan) || m->debug || plan->tuned.len;
    if (own_headers)
        put_macro_shield(o, names, true);
    if (plan_uses_tiles(plan))
        put(o, "#include <tilepp/tile_mma_sm80.cuh>\n");
    if (plan_uses_sm90(plan))
        put(o, "#include <tilepp/tile_mma_sm90.cuh>\n");
    if (m->debug) /* -g: the bounds checks and their reports */
        put(o, "#include <tilepp/tile_debug.cuh>\n");
    if (plan->tuned.len) /* the autotuner the tuned launchers call */
        put(o, "#include <tilepp/tile_tune.cuh>\n");
    if (own_headers)
        put_macro_shield(o, names, false);
    putf(o, "#include \"%s\"\n\n", names->header_name);
    put(o, "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800\n");
    putf(o, "#error \"tilepp: %s was translated for sm_80 and newer (--arch", names->source_name);
    if (m->archs & ARCH_SM80)
        put(o, " 80");
    if (m->archs & ARCH_SM90A)
        put(o, " 90a");
    put(o, ")\"\n#endif\n\n");
}

char *emit_cuda(const Plan *plan, const EmitNames *names)
{
    Out o = {{0}, 1, names, NULL};
    put_file_head(&o, plan);
    put_body(&o, plan);
    if (names->parts == 0) /* the variants of tuned kernels: here, after everything they could change */
        put_tune_sections(&o, plan, 0, 1);
    return atake(&o.s);
}

static char *guard_name(const char *header_name)
{
    const char *base = strrchr(header_name, '/');
    base = base ? base + 1 : header_name;
    Str s = {0};
    str_add(&s, "TILEPP_GENERATED_");
    for (const char *p = base; *p; p++)
        str_addc(&s, isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_');
    return atake(&s);
}

char *emit_header(const Plan *plan, const EmitNames *names)
{
    Out o = {{0}, 1, names, NULL};
    char *guard = guard_name(names->header_name);
    putf(&o, "/* Generated by tilepp %s from %s: launchers for its kernels. Plain C. */\n", TILEPP_VERSION,
         names->source_name);
    putf(&o, "#ifndef %s\n#define %s\n\n", guard, guard);
    put(&o, "#include <cuda_runtime_api.h>\n#include <tilepp/tile.h>\n\n");
    put(&o, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
    for (KernelWalk w = {plan, 0, 0}; walk_line(&w) < INT_MAX;) {
        const IrKernel *k = next_kernel_ir(&w);
        putf(&o,
             "/* %s() of %s:%d on the GPU. Pointers are device pointers (C99 array\n"
             " * parameters become flat, row-major pointers); the launch is asynchronous.\n"
             " * Returns cudaSuccess or the first CUDA error. The CPU reference is %s(). */\n",
             k->name, names->source_name, k->loc.line, k->name);
        putf(&o, "cudaError_t %s_gpu(", k->name);
        put_param_list(&o, k, launcher_param);
        putf(&o, "%s);\n", k->params.len ? "" : "void");
        putf(&o, "cudaError_t %s_gpu_stream(", k->name);
        put_param_list(&o, k, launcher_param);
        putf(&o, "%scudaStream_t %s);\n", k->params.len ? ", " : "",
             ir_kernel_param(k, "stream") ? "tile_stream" : "stream");
        if (k->tune) {
            putf(&o,
                 "/* The variant of one point of %s's tune space, by name (\"BM=64,BN=128\", as\n"
                 " * tilepp --list-variants prints them), without tuning: cudaErrorInvalidValue\n"
                 " * when no valid point has that name. */\n",
                 k->name);
            putf(&o, "cudaError_t %s_gpu_point(const char *point, ", k->name);
            put_param_list(&o, k, launcher_param);
            putf(&o, "%scudaStream_t %s);\n", k->params.len ? ", " : "",
                 ir_kernel_param(k, "stream") ? "tile_stream" : "stream");
        }
        put(&o, "\n");
    }
    put(&o, "#ifdef __cplusplus\n}\n#endif\n\n");
    putf(&o, "#endif /* %s */\n", guard);
    return atake(&o.s);
}

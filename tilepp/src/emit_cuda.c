#include "emit_cuda.h"
#include "emit_internal.h"

#include <ctype.h>
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

const char *unqualified(const char *spelling) { return str_starts_with(spelling, "const ") ? spelling + 6 : spelling; }

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

/* Views that give the C99 array parameters a nest uses their meaning. */
static void put_views(Out *o, const ParallelPlan *pp, const char *indent)
{
    for (int i = 0; i < pp->params_used.len; i++) {
        const IrParam *p = pp->params_used.items[i];
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

/* User code; accesses of vectorised buffers become register reads/writes when
 * `pp` is given (the wide path), and stay as written otherwise. */
void put_code(Out *o, const IrCode *code, const ParallelPlan *pp, bool statement)
{
    line_to_source(o, code->loc);
    for (int c = 1; c < code->loc.col; c++)
        put(o, " ");
    for (int i = 0; i < code->nsegs; i++) {
        const IrSeg *s = &code->segs[i];
        if (s->kind == SEG_TEXT)
            put(o, s->text);
        else if (vec_buffer_of(pp, s->access->buf))
            putf(o, "tile_v_%s[tile_j]", s->access->buf->name);
        else
            put(o, s->access->text);
    }
    /* An expression body's extent stops before its ';'. */
    put(o, statement ? ";\n" : "\n");
    line_to_self(o);
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
static void put_outer_vars(Out *o, const IrParallel *par)
{
    if (par->depth == 1)
        return;
    put(o, "        long long tile_rest = tile_row;\n");
    for (int d = par->depth - 2; d > 0; d--) {
        putf(o,
             "        const long long tile_k%d = tile_rest - tile_div(tile_rest, tile_l%d.count) * tile_l%d.count;\n",
             d, d, d);
        putf(o, "        tile_rest = tile_div(tile_rest, tile_l%d.count);\n", d);
    }
    put(o, "        const long long tile_k0 = tile_rest;\n");
    for (int d = 0; d < par->depth - 1; d++) {
        char *k = aprintf("tile_k%d", d);
        put_loop_var(o, &par->loops[d], aprintf("tile_l%d", d), k, "        ");
    }
}

static void put_scalar_group(Out *o, const ParallelPlan *pp, const char *indent)
{
    const IrParallel *par = pp->par;
    int inner = par->depth - 1;
    putf(o, "%sfor (int tile_j = 0; tile_j < %d; tile_j++) {\n", indent, par->vector);
    putf(o, "%s    if (tile_first + tile_j >= tile_l%d.count)\n%s        break;\n", indent, inner, indent);
    put_loop_var(o, &par->loops[inner], aprintf("tile_l%d", inner), "tile_first + tile_j", aprintf("%s    ", indent));
    put_code(o, par->body, NULL, true);
    putf(o, "%s}\n", indent);
}

static void put_vector_group(Out *o, const ParallelPlan *pp)
{
    const IrParallel *par = pp->par;
    int inner = par->depth - 1, v = par->vector;
    const IrLoop *l = &par->loops[inner];
    putf(o, "        bool tile_wide = tile_first + %d <= tile_l%d.count;\n", v, inner);
    put(o, "        if (tile_wide) {\n");
    put_loop_var(o, l, aprintf("tile_l%d", inner), "tile_first", "            ");
    for (int i = 0; i < pp->vec_buffers.len; i++) {
        const VecBuffer *vb = pp->vec_buffers.items[i];
        putf(o, "            tile_wide = tile_wide && tile_aligned<tile_vec_align<%s, %d>()>(&(%s));\n",
             unqualified(vb->buf->elem.spelling), v, vb->access->text);
    }
    put(o, "        }\n");
    put(o, "        if (tile_wide) {\n");
    put_loop_var(o, l, aprintf("tile_l%d", inner), "tile_first", "            ");
    for (int i = 0; i < pp->vec_buffers.len; i++) {
        const VecBuffer *vb = pp->vec_buffers.items[i];
        const char *t = unqualified(vb->buf->elem.spelling);
        putf(o, "            %s tile_v_%s[%d];\n", t, vb->buf->name, v);
        if (vb->load)
            putf(o, "            tile_vec_load<%s, %d>(tile_v_%s, &(%s));\n", t, v, vb->buf->name, vb->access->text);
    }
    putf(o, "#pragma unroll\n            for (int tile_j = 0; tile_j < %d; tile_j++) {\n", v);
    put_loop_var(o, l, aprintf("tile_l%d", inner), "tile_first + tile_j", "                ");
    put_code(o, par->body, pp, true);
    put(o, "            }\n");
    for (int i = 0; i < pp->vec_buffers.len; i++) {
        const VecBuffer *vb = pp->vec_buffers.items[i];
        if (vb->store)
            putf(o, "            tile_vec_store<%s, %d>(&(%s), tile_v_%s);\n", unqualified(vb->buf->elem.spelling), v,
                 vb->access->text, vb->buf->name);
    }
    put(o, "        } else {\n");
    put_scalar_group(o, pp, "            ");
    put(o, "        }\n");
}

static void put_loop_comment(Out *o, const ParallelPlan *pp)
{
    const IrParallel *par = pp->par;
    putf(o, "// #pragma tile parallel at %s:%d: ", o->names->source_name, par->loc.line);
    for (int d = 0; d < par->depth; d++)
        putf(o, "%s%s", d ? " x " : "", par->loops[d].var);
    putf(o, "%s; each thread takes %d consecutive iteration%s of '%s'", par->depth > 1 ? " collapsed" : "", par->vector,
         par->vector > 1 ? "s" : "", par->loops[par->depth - 1].var);
    if (pp->vec_buffers.len) {
        put(o, ",\n// moving ");
        for (int i = 0; i < pp->vec_buffers.len; i++) {
            const VecBuffer *vb = pp->vec_buffers.items[i];
            putf(o, "%s%s", i ? ", " : "", vb->buf->name);
        }
        put(o, " in wide accesses when aligned (scalar otherwise)");
    }
    put(o, ".\n");
}

static void put_parallel_kernel(Out *o, const IrKernel *k, const ParallelPlan *pp)
{
    const IrParallel *par = pp->par;
    put_loop_comment(o, pp);
    putf(o, "__global__ void __launch_bounds__(%d) %s(", k->threads, pp->kernel_name);
    put_param_list(o, k, kernel_param);
    for (int d = 0; d < par->depth; d++)
        putf(o, ", tile_loop tile_l%d", d);
    put(o, ", long long tile_groups, long long tile_total)\n{\n");
    put_views(o, pp, "    ");
    put_decls(o, &pp->decls);
    put(o, "    for (long long tile_t = blockIdx.x * (long long)blockDim.x + threadIdx.x; tile_t < tile_total;\n"
           "         tile_t += (long long)gridDim.x * blockDim.x) {\n");
    if (par->depth > 1)
        put(o, "        const long long tile_row = tile_div(tile_t, tile_groups);\n"
               "        const long long tile_first = (tile_t - tile_row * tile_groups) * ");
    else
        put(o, "        const long long tile_first = tile_t * ");
    putf(o, "%d;\n", par->vector);
    put_outer_vars(o, par);
    if (pp->vec_buffers.len)
        put_vector_group(o, pp);
    else
        put_scalar_group(o, pp, "        ");
    put(o, "    }\n}\n\n");
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
    putf(
        o,
        "        if (tile_l%d.count < 0)\n            return cudaErrorInvalidValue; /* the C loop would never end */\n",
        d);
}

static void put_launch(Out *o, const IrKernel *k, const ParallelPlan *pp)
{
    const IrParallel *par = pp->par;
    putf(o, "    { // %s:%d\n", o->names->source_name, par->loc.line);
    for (int d = 0; d < par->depth; d++)
        put_loop_descriptor(o, &par->loops[d], d);
    int inner = par->depth - 1;
    putf(o, "        const long long tile_groups = (tile_l%d.count + %d) / %d;\n", inner, par->vector - 1, par->vector);
    put(o, "        long long tile_total = tile_groups");
    for (int d = 0; d < inner; d++)
        putf(o, " * tile_l%d.count", d);
    put(o, ";\n        if (tile_total > 0) {\n");
    putf(o, "            tile_err = tile_launch(%s, tile_total, %d, tile_stream, ", pp->kernel_name, k->threads);
    put_arg_names(o, k);
    for (int d = 0; d < par->depth; d++)
        putf(o, ", tile_l%d", d);
    put(o, ", tile_groups, tile_total);\n");
    put(o, "            if (tile_err != cudaSuccess)\n                return tile_err;\n        }\n    }\n");
}

static void put_launcher(Out *o, const KernelPlan *kp)
{
    const IrKernel *k = kp->k;
    putf(o, "// Launches %s() of %s:%d on `tile_stream`; returns the first error.\n", k->name, o->names->source_name,
         k->loc.line);
    putf(o, "extern \"C\" cudaError_t %s_gpu_stream(", k->name);
    put_param_list(o, k, launcher_param);
    putf(o, "%scudaStream_t tile_stream)\n{\n", k->params.len ? ", " : "");
    put(o, "    cudaError_t tile_err = tile_check_device();\n    if (tile_err != cudaSuccess)\n        return "
           "tile_err;\n");
    put_decls(o, &kp->host_decls);
    for (int j = 0; j < k->stmts.len; j++) { /* in the kernel's order: each sees what the last wrote */
        for (int i = 0; i < kp->parallels.len; i++)
            if (((const ParallelPlan *)kp->parallels.items[i])->stmt_index == j)
                put_launch(o, k, kp->parallels.items[i]);
        for (int i = 0; i < kp->grids.len; i++)
            if (((const GridPlan *)kp->grids.items[i])->stmt_index == j)
                put_grid_launch(o, k, kp->grids.items[i]);
    }
    put(o, "    return cudaSuccess;\n}\n\n");
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

static void put_prelude_item(Out *o, const IrPrelude *p)
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

static void put_kernel(Out *o, const KernelPlan *kp)
{
    line_to_self(o);
    putf(o, "\n// ==== kernel %s, %s:%d, threads(%d) ====\n\n", kp->k->name, o->names->source_name, kp->k->loc.line,
         kp->k->threads);
    for (int j = 0; j < kp->parallels.len; j++)
        put_parallel_kernel(o, kp->k, kp->parallels.items[j]);
    for (int j = 0; j < kp->grids.len; j++)
        put_grid_kernel(o, kp->k, kp->grids.items[j]);
    put_launcher(o, kp);
}

/* What the file declares and its kernels, in the file's order, so that each
 * kernel sees the macros as they are defined where it stands. */
static void put_body(Out *o, const Plan *plan)
{
    const IrModule *m = plan->m;
    int next = 0;
    if (m->prelude.len)
        putf(o, "// ---- from %s: what the kernels use, and the kernels, in its order ----\n", o->names->source_name);
    for (int i = 0; i < m->prelude.len; i++) {
        const IrPrelude *p = m->prelude.items[i];
        while (next < plan->kernels.len && ((const KernelPlan *)plan->kernels.items[next])->k->loc.line < p->loc.line)
            put_kernel(o, plan->kernels.items[next++]);
        put_prelude_item(o, p);
    }
    while (next < plan->kernels.len)
        put_kernel(o, plan->kernels.items[next++]);
    bool prelude_last =
        m->prelude.len &&
        (plan->kernels.len == 0 || ((const IrPrelude *)m->prelude.items[m->prelude.len - 1])->loc.line >
                                       ((const KernelPlan *)plan->kernels.items[plan->kernels.len - 1])->k->loc.line);
    if (prelude_last)
        line_to_self(o);
}

static bool uses_tiles(const Plan *plan)
{
    for (int i = 0; i < plan->kernels.len; i++)
        if (((const KernelPlan *)plan->kernels.items[i])->grids.len)
            return true;
    return false;
}

static bool uses_sm90(const Plan *plan)
{
    for (int i = 0; i < plan->kernels.len; i++) {
        const KernelPlan *kp = plan->kernels.items[i];
        for (int j = 0; j < kp->grids.len; j++)
            if (((const GridPlan *)kp->grids.items[j])->sm90)
                return true;
    }
    return false;
}

char *emit_cuda(const Plan *plan, const EmitNames *names)
{
    Out o = {{0}, 1, names};
    const IrModule *m = plan->m;
    putf(&o, "// Generated by tilepp %s from %s. Do not edit: edit %s and translate again.\n", TILEPP_VERSION,
         names->source_name, names->source_name);
    put(&o, "#include <tilepp/tile.h>\n");
    if (uses_tiles(plan))
        put(&o, "#include <tilepp/tile_mma_sm80.cuh>\n");
    if (uses_sm90(plan))
        put(&o, "#include <tilepp/tile_mma_sm90.cuh>\n");
    putf(&o, "#include \"%s\"\n\n", names->header_name);
    put(&o, "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800\n");
    putf(&o, "#error \"tilepp: %s was translated for sm_80 and newer (--arch", names->source_name);
    if (m->archs & ARCH_SM80)
        put(&o, " 80");
    if (m->archs & ARCH_SM90A)
        put(&o, " 90a");
    put(&o, ")\"\n#endif\n\n");
    put_body(&o, plan);
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
    Out o = {{0}, 1, names};
    char *guard = guard_name(names->header_name);
    putf(&o, "/* Generated by tilepp %s from %s: launchers for its kernels. Plain C. */\n", TILEPP_VERSION,
         names->source_name);
    putf(&o, "#ifndef %s\n#define %s\n\n", guard, guard);
    put(&o, "#include <cuda_runtime_api.h>\n#include <tilepp/tile.h>\n\n");
    put(&o, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
    for (int i = 0; i < plan->kernels.len; i++) {
        const IrKernel *k = ((const KernelPlan *)plan->kernels.items[i])->k;
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
        putf(&o, "%scudaStream_t %s);\n\n", k->params.len ? ", " : "",
             ir_kernel_param(k, "stream") ? "tile_stream" : "stream");
    }
    put(&o, "#ifdef __cplusplus\n}\n#endif\n\n");
    putf(&o, "#endif /* %s */\n", guard);
    return atake(&o.s);
}

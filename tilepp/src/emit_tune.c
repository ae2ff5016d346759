/* emit_tune.c — printing a tuned kernel (tune.h): each valid point as a
 * variant in a namespace of its own (the whole translation of the rewritten
 * file: its declarations, __global__ functions and launcher), and, where
 * the kernel stands in the file, the launcher that hands the variants to
 * the run-time tuner (tile_tune.cuh), the table of points, and the entry
 * tilepp-tune calls for offline tuning. */
#include "emit_internal.h"

#include <string.h>

/* A C string literal's body: quotes, backslashes and control bytes escaped. */
static char *c_string(const char *text)
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

static char *ns_name(const TunedKernel *tk, int point) { return aprintf("tile_tune_%s_v%d", tk->k->name, point); }

static const KernelPlan *point_kernel(const TunePoint *p) { return p->plan->kernels.items[0]; }

bool plan_uses_tiles(const Plan *plan)
{
    for (int i = 0; i < plan->kernels.len; i++)
        if (((const KernelPlan *)plan->kernels.items[i])->grids.len)
            return true;
    for (int i = 0; i < plan->tuned.len; i++) {
        const TunedKernel *tk = plan->tuned.items[i];
        for (int j = 0; j < tk->npoints; j++)
            if (tk->points[j].plan && plan_uses_tiles(tk->points[j].plan))
                return true;
    }
    return false;
}

bool plan_uses_sm90(const Plan *plan)
{
    for (int i = 0; i < plan->kernels.len; i++) {
        const KernelPlan *kp = plan->kernels.items[i];
        for (int j = 0; j < kp->grids.len; j++)
            if (((const GridPlan *)kp->grids.items[j])->sm90)
                return true;
    }
    for (int i = 0; i < plan->tuned.len; i++) {
        const TunedKernel *tk = plan->tuned.items[i];
        for (int j = 0; j < tk->npoints; j++)
            if (tk->points[j].plan && plan_uses_sm90(tk->points[j].plan))
                return true;
    }
    return false;
}

/* ------------------------------------------------------------------------ */
/* The variants                                                             */
/* ------------------------------------------------------------------------ */

/* One point: what its file declares before the kernel (its macros too,
 * which it defines again with its values; not its #includes, which the
 * file's head has and which cannot go inside a namespace), then the kernel
 * with a launcher of C++ linkage. */
static void put_section(Out *o, const TunedKernel *tk, int point)
{
    const TunePoint *p = &tk->points[point];
    const KernelPlan *kp = point_kernel(p);
    line_to_self(o);
    putf(o, "\n// ==== %s, tune point %d of %d: %s ====\n", tk->k->name, point + 1, tk->npoints, p->name);
    putf(o, "namespace %s {\n", ns_name(tk, point));
    const Vec *prelude = &p->plan->m->prelude;
    for (int i = 0; i < prelude->len; i++) {
        const IrPrelude *item = prelude->items[i];
        if (item->kind != PRELUDE_INCLUDE && item->loc.line < kp->k->loc.line)
            put_prelude_item(o, item);
    }
    o->variant = p->name;
    put_kernel(o, kp);
    o->variant = NULL;
    line_to_self(o);
    putf(o, "} // namespace %s\n", ns_name(tk, point));
}

void put_tune_sections(Out *o, const Plan *plan, int part, int nparts)
{
    int n = 0; /* the variants, numbered over all tuned kernels, are dealt out to the parts in turn */
    for (int i = 0; i < plan->tuned.len; i++) {
        const TunedKernel *tk = plan->tuned.items[i];
        for (int j = 0; j < tk->npoints; j++)
            if (tk->points[j].plan && n++ % nparts == part)
                put_section(o, tk, j);
    }
}

char *emit_tune_part(const Plan *plan, const EmitNames *names, int part)
{
    Out o = {{0}, 1, names, NULL};
    put_file_head(&o, plan);
    putf(&o, "// Part %d of %d of the variants of %s's tuned kernels: the launchers in %s choose among them.\n", part,
         names->parts, names->source_name, names->header_name);
    /* the file's #includes and macros, in its order: what the variants' declarations build on */
    const Vec *prelude = &plan->m->prelude;
    for (int i = 0; i < prelude->len; i++) {
        const IrPrelude *item = prelude->items[i];
        if (item->kind == PRELUDE_INCLUDE || item->kind == PRELUDE_MACRO)
            put_prelude_item(&o, item);
    }
    put_tune_sections(&o, plan, part - 1, names->parts);
    return atake(&o.s);
}

/* ------------------------------------------------------------------------ */
/* The tuned launcher                                                       */
/* ------------------------------------------------------------------------ */

static const char *tune_elem(const IrType *t)
{
    switch (t->kind) {
    case SCALAR_HALF:
        return "TILE_TUNE_F16";
    case SCALAR_BF16:
        return "TILE_TUNE_BF16";
    case SCALAR_FLOAT:
        return "TILE_TUNE_F32";
    case SCALAR_DOUBLE:
        return "TILE_TUNE_F64";
    default:
        return "TILE_TUNE_BYTES";
    }
}

/* The bytes of an array parameter from its declared extents (C over the
 * parameters), or NULL when one is not declared (`const float *x`). */
static char *buffer_bytes(const IrBuffer *b)
{
    Str s = {0};
    str_add(&s, "(size_t)(1LL");
    for (int d = 0; d < b->rank; d++) {
        if (!b->extents[d])
            return NULL;
        str_addf(&s, " * (long long)(%s)", b->extents[d]);
    }
    str_addf(&s, ") * sizeof(%s)", unqualified(b->elem.spelling));
    return atake(&s);
}

/* Every array parameter has its extent: the CPU reference and offline
 * tuning can copy and allocate them. */
static bool all_extents(const IrKernel *k)
{
    for (int i = 0; i < k->params.len; i++) {
        const IrParam *p = k->params.items[i];
        if (p->kind == PARAM_BUFFER && !buffer_bytes(p->buf))
            return false;
    }
    return true;
}

static int count_params(const IrKernel *k, IrParamKind kind, bool ints_only)
{
    int n = 0;
    for (int i = 0; i < k->params.len; i++) {
        const IrParam *p = k->params.items[i];
        n += p->kind == kind && (!ints_only || p->type.kind == SCALAR_INT);
    }
    return n;
}

/* The tile_tune_buf of each array parameter; `ptr` is how to name it. */
static void put_bufs(Out *o, const IrKernel *k, bool offline)
{
    if (count_params(k, PARAM_BUFFER, false) == 0) {
        put(o, "    tile_tune_buf *tile_bufs = nullptr;\n");
        return;
    }
    put(o, "    tile_tune_buf tile_bufs[] = {\n");
    for (int i = 0; i < k->params.len; i++) {
        const IrParam *p = k->params.items[i];
        if (p->kind != PARAM_BUFFER)
            continue;
        const char *bytes = buffer_bytes(p->buf);
        putf(o, "        {\"%s\", %s, %s, %s, %s},\n", p->name, offline ? "nullptr" : aprintf("(void *)%s", p->name),
             bytes ? bytes : "0", tune_elem(&p->buf->elem), p->buf->is_const ? "false" : "true");
    }
    put(o, "    };\n");
}

/* The integer parameters: the shape the tuner's choice is kept for. */
static void put_ints(Out *o, const IrKernel *k)
{
    if (count_params(k, PARAM_SCALAR, true) == 0) {
        put(o, "    const long long *tile_ints = nullptr;\n");
        return;
    }
    put(o, "    const long long tile_ints[] = {");
    int n = 0;
    for (int i = 0; i < k->params.len; i++) {
        const IrParam *p = k->params.items[i];
        if (p->kind == PARAM_SCALAR && p->type.kind == SCALAR_INT)
            putf(o, "%s(long long)(%s)", n++ ? ", " : "", p->name);
    }
    put(o, "};\n");
}

/* run(v, stream) and cpu(host pointers): the variants and the CPU
 * reference, called with the launcher's arguments (offline: the buffers the
 * tuner allocated). */
static void put_callables(Out *o, const TunedKernel *tk, bool offline)
{
    const IrKernel *k = tk->k;
    putf(o, "    auto tile_run = [&](int tile_v, cudaStream_t tile_s) { return tile_tune_%s_fns[tile_v](", k->name);
    int nbuf = 0;
    for (int i = 0; i < k->params.len; i++) {
        const IrParam *p = k->params.items[i];
        if (p->kind == PARAM_BUFFER && offline)
            putf(o, "(%s *)tile_bufs[%d].ptr, ", p->buf->elem.spelling, nbuf++);
        else
            putf(o, "%s, ", p->name);
    }
    put(o, "tile_s); };\n");
    if (!all_extents(k)) {
        put(o, "    auto tile_cpu = [](void *const *) {};\n");
        return;
    }
    putf(o, "    auto tile_cpu = [&](void *const *tile_h) { %s(", k->name);
    nbuf = 0;
    for (int i = 0; i < k->params.len; i++) {
        const IrParam *p = k->params.items[i];
        if (p->kind == PARAM_BUFFER)
            putf(o, "%stile_h[%d]", i ? ", " : "", nbuf++);
        else
            putf(o, "%s%s", i ? ", " : "", p->name);
    }
    put(o, "); };\n");
}

static const char *has_cpu(const IrKernel *k) { return all_extents(k) ? aprintf("&%s != nullptr", k->name) : "false"; }

static const char *flops_of(const IrKernel *k) { return k->flops ? aprintf("(double)(%s)", k->flops) : "0.0"; }

/* The points, the variants' launchers and the space the runtime reads. */
static void put_space(Out *o, const TunedKernel *tk)
{
    const IrKernel *k = tk->k;
    for (int i = 0; i < tk->npoints; i++) {
        if (!tk->points[i].plan)
            continue;
        putf(o, "namespace %s {\ncudaError_t %s_gpu_stream(", ns_name(tk, i), k->name);
        put_param_list(o, k, launcher_param);
        putf(o, "%scudaStream_t tile_stream);\n}\n", k->params.len ? ", " : "");
    }
    putf(o, "typedef cudaError_t (*tile_tune_%s_fn)(", k->name);
    put_param_list(o, k, launcher_param);
    putf(o, "%scudaStream_t tile_stream);\n", k->params.len ? ", " : "");
    putf(o, "static const tile_tune_%s_fn tile_tune_%s_fns[] = {\n", k->name, k->name);
    for (int i = 0; i < tk->npoints; i++)
        putf(o, "    %s,\n", tk->points[i].plan ? aprintf("%s::%s_gpu_stream", ns_name(tk, i), k->name) : "nullptr");
    putf(o, "};\nstatic const char *const tile_tune_%s_names[] = {\n", k->name);
    for (int i = 0; i < tk->npoints; i++)
        putf(o, "    \"%s\",\n", tk->points[i].name);
    putf(o,
         "};\n// Why lowering refused a point (nullptr: it is a variant above).\n"
         "static const char *const tile_tune_%s_pruned[] = {\n",
         k->name);
    for (int i = 0; i < tk->npoints; i++)
        putf(o, "    %s,\n", tk->points[i].plan ? "nullptr" : aprintf("\"%s\"", c_string(tk->points[i].pruned)));
    putf(o, "};\nstatic const char *const tile_tune_%s_ints[] = {", k->name);
    int n = 0;
    for (int i = 0; i < k->params.len; i++) {
        const IrParam *p = k->params.items[i];
        if (p->kind == PARAM_SCALAR && p->type.kind == SCALAR_INT)
            putf(o, "%s\"%s\"", n++ ? ", " : "", p->name);
    }
    if (n == 0)
        put(o, "nullptr");
    int source = tk->source_point >= 0 && tk->points[tk->source_point].plan ? tk->source_point : -1;
    const char *slash = strrchr(o->names->source_name, '/');
    putf(o,
         "};\nstatic const tile_tune_space tile_tune_%s_space = {\"%s\", \"%s:%d\", \"%s\", %d, tile_tune_%s_names, "
         "tile_tune_%s_pruned, %d, %d, tile_tune_%s_ints};\n",
         k->name, k->name, c_string(slash ? slash + 1 : o->names->source_name), k->loc.line, tk->key, tk->npoints,
         k->name, k->name, source, n, k->name);
}

/* The C function of the file, for TILEPP_TUNE_CHECK=cpu: weak, so a program
 * that does not link the CPU reference still links (its address is then
 * null). Arrays are pointers whatever their element type. */
static void put_cpu_declaration(Out *o, const IrKernel *k)
{
    if (!all_extents(k))
        return;
    putf(o, "extern \"C\" __attribute__((weak)) void %s(", k->name);
    for (int i = 0; i < k->params.len; i++) {
        const IrParam *p = k->params.items[i];
        const char *type =
            p->kind == PARAM_BUFFER ? (p->buf->is_const ? "const void *" : "void *") : unqualified(p->type.spelling);
        putf(o, "%s%s", i ? ", " : "", type);
    }
    putf(o, "%s);\n", k->params.len ? "" : "void");
}

static void put_launch_tuned(Out *o, const TunedKernel *tk)
{
    const IrKernel *k = tk->k;
    putf(o,
         "// Launches %s() of %s:%d on `tile_stream`: the variant the tuner chose for this GPU and shape class\n"
         "// (tile_tune.cuh; tuned on first use, then from the cache); returns the first error.\n",
         k->name, o->names->source_name, k->loc.line);
    putf(o, "extern \"C\" cudaError_t %s_gpu_stream(", k->name);
    put_param_list(o, k, launcher_param);
    putf(o, "%scudaStream_t tile_stream)\n{\n", k->params.len ? ", " : "");
    put_ints(o, k);
    put_bufs(o, k, false);
    put_callables(o, tk, false);
    putf(o,
         "    return tile_tune_launch(&tile_tune_%s_space, tile_ints, %d, tile_bufs, %d, %s, tile_stream, tile_run, "
         "tile_cpu, %s);\n}\n\n",
         k->name, count_params(k, PARAM_SCALAR, true), count_params(k, PARAM_BUFFER, false), flops_of(k), has_cpu(k));
    putf(o, "extern \"C\" cudaError_t %s_gpu(", k->name);
    put_param_list(o, k, launcher_param);
    putf(o, ")\n{\n    return %s_gpu_stream(", k->name);
    put_arg_names(o, k);
    putf(o, "%s0);\n}\n\n", k->params.len ? ", " : "");
}

/* One point by its name, for benchmarks and tests that compare points. */
static void put_launch_point(Out *o, const TunedKernel *tk)
{
    const IrKernel *k = tk->k;
    putf(o,
         "// Launches the variant of %s() of the point named `tile_point` (\"%s\"), without tuning;\n"
         "// cudaErrorInvalidValue when no valid point has that name.\n",
         k->name, tk->points[0].name);
    putf(o, "extern \"C\" cudaError_t %s_gpu_point(const char *tile_point, ", k->name);
    put_param_list(o, k, launcher_param);
    putf(o, "%scudaStream_t tile_stream)\n{\n", k->params.len ? ", " : "");
    putf(o, "    for (int tile_i = 0; tile_i < %d; tile_i++)\n", tk->npoints);
    putf(o,
         "        if (tile_point && tile_tune_%s_fns[tile_i] && strcmp(tile_tune_%s_names[tile_i], tile_point) == 0)\n",
         k->name, k->name);
    putf(o, "            return tile_tune_%s_fns[tile_i](", k->name);
    put_arg_names(o, k);
    putf(o, "%stile_stream);\n    return cudaErrorInvalidValue;\n}\n\n", k->params.len ? ", " : "");
}

/* Reads a scalar parameter from "NAME=VALUE": integers through long long,
 * floating point through double. */
static void put_arg_read(Out *o, const IrKernel *k, const IrParam *p)
{
    const char *via = p->type.kind == SCALAR_INT      ? "long long"
                      : p->type.kind == SCALAR_BOOL   ? "bool"
                      : p->type.kind == SCALAR_FLOAT  ? "double"
                      : p->type.kind == SCALAR_DOUBLE ? "double"
                                                      : NULL;
    if (!via) {
        putf(o,
             "    fprintf(stderr, \"tilepp-tune: %s: the parameter '%s' has a type offline tuning cannot read\\n\");\n"
             "    return 2;\n",
             k->name, p->name);
        return;
    }
    putf(o, "    %s tile_a_%s = 0;\n", via, p->name);
    putf(o, "    tile_args_ok &= tile_tune_arg(tile_argc, tile_argv, \"%s\", \"%s\", &tile_a_%s);\n", k->name, p->name,
         p->name);
    putf(o, "    const %s %s = (%s)tile_a_%s;\n", unqualified(p->type.spelling), p->name, unqualified(p->type.spelling),
         p->name);
}

/* tilepp-tune dlopen()s the library and calls this with "NAME=VALUE" for
 * every scalar parameter; the tuner allocates and fills the arrays. */
static void put_tune_entry(Out *o, const TunedKernel *tk)
{
    const IrKernel *k = tk->k;
    putf(o,
         "// Offline tuning (tilepp-tune LIBRARY %s NAME=VALUE ...): tunes for those values, prints the table,\n"
         "// writes the cache.\n",
         k->name);
    putf(o, "extern \"C\" int tile_tune_entry_%s(int tile_argc, const char *const *tile_argv)\n{\n", k->name);
    if (!all_extents(k)) {
        putf(o,
             "    (void)tile_argc;\n    (void)tile_argv;\n"
             "    fprintf(stderr, \"tilepp-tune: %s: an array parameter has no declared extent, so the tuner "
             "cannot allocate it\\n\");\n    return 2;\n}\n\n",
             k->name);
        return;
    }
    put(o, "    bool tile_args_ok = true;\n");
    for (int i = 0; i < k->params.len; i++) {
        const IrParam *p = k->params.items[i];
        if (p->kind == PARAM_SCALAR)
            put_arg_read(o, k, p);
    }
    put(o, "    if (!tile_args_ok)\n        return 2;\n");
    put_ints(o, k);
    put_bufs(o, k, true);
    put_callables(o, tk, true);
    putf(o,
         "    return tile_tune_offline(&tile_tune_%s_space, tile_ints, %d, tile_bufs, %d, %s, tile_run, tile_cpu, "
         "%s);\n}\n\n",
         k->name, count_params(k, PARAM_SCALAR, true), count_params(k, PARAM_BUFFER, false), flops_of(k), has_cpu(k));
}

void put_tuned_kernel(Out *o, const TunedKernel *tk)
{
    line_to_self(o);
    putf(o, "\n// ==== kernel %s, %s:%d, tuned: %d points, %d variants ====\n\n", tk->k->name, o->names->source_name,
         tk->k->loc.line, tk->npoints, tk->nvalid);
    put_space(o, tk);
    put_cpu_declaration(o, tk->k);
    put(o, "\n");
    put_launch_tuned(o, tk);
    put_launch_point(o, tk);
    put_tune_entry(o, tk);
}

/* inspect.c — `tilepp inspect FILE`: compiles or reads FILE, counts the
 * landmarks of each kernel per architecture (inspect_parse.c) and prints
 * them as tables or as JSON (the schema is in README.md, "Inspecting the
 * generated code").
 *
 *   .c        translated (as `tilepp FILE` would), then per architecture
 *             nvcc -ptx and ptxas -v into a temporary directory; the SASS
 *             of the cubin from nvdisasm. The source's plan says which
 *             kernels have a gemm or a pipelined loop.
 *   .cu       the same from nvcc on.
 *   other     (an executable, .o, .so, .cubin, fatbin) read with
 *             cuobjdump -sass and -res-usage.
 * Without nvdisasm (or with --ptx) the PTX is counted instead: the PTX
 * view, which the output names as such. */
#define _POSIX_C_SOURCE 200809L
#include "inspect.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_ir.h"
#include "check.h"
#include "cuda_tools.h"
#include "diag.h"
#include "lower.h"
#include "parse.h"
#include "process.h"

static const char usage[] = "usage: tilepp inspect [options] FILE\n"
                            "\n"
                            "Compiles FILE (a C file with '#pragma tile', or a .cu) or reads it (an\n"
                            "executable, .o, .so, .cubin or fatbin) and lists, per kernel and\n"
                            "architecture, its tensor-core instructions (HGMMA, HMMA), asynchronous\n"
                            "copies (UTMALDG, LDGSTS), barriers (BAR, SYNCS), matrix loads (LDSM),\n"
                            "shuffles and local-memory accesses, with its registers, shared memory,\n"
                            "stack frame and spills; warns of spills, of a gemm kernel without\n"
                            "tensor-core instructions and of a pipelined one without async copies.\n"
                            "\n"
                            "options:\n"
                            "  --arch LIST      architectures, comma separated (default 80,90a; for a\n"
                            "                   binary: the ones it has); 90a, 90, sm_90a, 80, 86, 100a, ...\n"
                            "  --json           one JSON document on stdout instead of tables\n"
                            "  --ptx            count the PTX, not the SASS (a .c or .cu only)\n"
                            "  -Werror          exit status 1 when there is a warning\n"
                            "  -I DIR, -D NAME[=VALUE], -U NAME, -std=STD, -isystem DIR\n"
                            "                   as for 'tilepp FILE' (and for nvcc)\n"
                            "  --               what follows is FILE, even if it starts with '-'\n"
                            "  --help           print this help\n"
                            "\n"
                            "tools: nvcc ($CUDACXX, $CUDA_PATH/bin, PATH, /usr/local/cuda/bin) for a .c or\n"
                            ".cu; nvdisasm and cuobjdump ($TILEPP_NVDISASM, $TILEPP_CUOBJDUMP, the toolkit,\n"
                            "PATH, or pip install nvidia-cuda-nvdisasm nvidia-cuda-cuobjdump). Without\n"
                            "nvdisasm a .c or .cu is shown in the PTX view, with ptxas -v's resources.\n";

typedef enum { INPUT_C, INPUT_CUDA, INPUT_BINARY } InputKind;

typedef struct Inspect {
    Options opt; /* input and parse flags, as for a translation */
    const char *arch_list;
    bool json, ptx_view, werror, answered;
    InputKind kind;
    Vec archs; /* char*: SM names asked for (or found, for a binary) */
    const char *include_dir;
    int (*translate)(Options *opt);
    InspectReport report;
    KernelSource *sources;
    int nsources;
    const char *tools; /* what read the code, for the report's header */
} Inspect;

static int usage_error(const char *fmt, const char *arg)
{
    fputs("tilepp: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n(run 'tilepp inspect --help' for the options)\n", stderr);
    return 1;
}

/* ---- the command line ------------------------------------------------------------ */

/* Options with a value, joined or separate: "-Idir", "-I dir", "--arch=90a". */
static const char *const value_options[] = {"--arch", "-isystem", "-I", "-D", "-U"};

static int apply_value(Inspect *in, const char *name, const char *v)
{
    Options *opt = &in->opt;
    if (strcmp(name, "--arch") == 0) {
        Vec archs = {0};
        const char *bad;
        if (!parse_sm_archs(v, &archs, &bad))
            return usage_error("--arch takes architectures of sm_80 and newer (80, 86, 90a, sm_90a, ...), not '%s'",
                               bad);
        in->arch_list = v;
    } else
        opt->clang_args[opt->nclang_args++] = aprintf("%s%s", name, v);
    return 0;
}

/* One argument (and its separate value); returns the exit status so far. */
static int parse_argument(Inspect *in, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (a[0] != '-' || a[1] == '\0') {
        if (in->opt.input)
            return usage_error("one file at a time ('%s' is a second one)", a);
        in->opt.input = a;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        fputs(usage, stdout);
        in->answered = true;
    } else if (strcmp(a, "--json") == 0)
        in->json = true;
    else if (strcmp(a, "--ptx") == 0)
        in->ptx_view = true;
    else if (strcmp(a, "-Werror") == 0)
        in->werror = true;
    else if (str_starts_with(a, "-std="))
        in->opt.clang_args[in->opt.nclang_args++] = a;
    else {
        for (size_t k = 0; k < sizeof value_options / sizeof *value_options; k++) {
            const char *name = value_options[k];
            size_t n = strlen(name);
            if (strncmp(a, name, n) != 0)
                continue;
            if (a[n] == '\0') {
                if (*i + 1 >= argc)
                    return usage_error("option '%s' needs a value", name);
                return apply_value(in, name, argv[++*i]);
            }
            if (name[1] != '-' || a[n] == '=')
                return apply_value(in, name, a + n + (name[1] == '-'));
        }
        return usage_error("unknown option '%s'", a);
    }
    return 0;
}

static int parse_command_line(Inspect *in, int argc, char **argv)
{
    in->opt.clang_args = anew((size_t)argc * sizeof *in->opt.clang_args);
    for (int i = 1; i < argc && !in->answered; i++) {
        int status = 0;
        if (strcmp(argv[i], "--") == 0 && i + 1 < argc) {
            if (in->opt.input || i + 2 < argc)
                return usage_error("%s", "one file at a time");
            in->opt.input = argv[++i];
        } else
            status = parse_argument(in, argc, argv, &i);
        if (status)
            return status;
    }
    if (in->answered)
        return 0;
    if (!in->opt.input)
        return usage_error("%s", "no file to inspect");
    struct stat st;
    if (stat(in->opt.input, &st) != 0 || access(in->opt.input, R_OK) != 0) {
        fprintf(stderr, "tilepp: error: cannot read '%s': %s\n", in->opt.input, strerror(errno));
        return 1;
    }
    if (S_ISDIR(st.st_mode))
        return usage_error("'%s' is a directory", in->opt.input);
    return 0;
}

static InputKind input_kind(const char *path)
{
    if (str_ends_with(path, ".cu"))
        return INPUT_CUDA;
    if (str_ends_with(path, ".c"))
        return INPUT_C;
    return INPUT_BINARY;
}

/* ---- what the source says (a .c) ------------------------------------------------- */

static void scan_block(const Vec *body, bool *gemm, bool *pipelined)
{
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        if (s->kind == STMT_TILE_OP && s->op->kind == TILE_GEMM)
            *gemm = true;
        else if (s->kind == STMT_PIPELINED) {
            *pipelined = true;
            scan_block(&s->pipe->body, gemm, pipelined);
        } else if (s->kind == STMT_SEQ)
            scan_block(&s->seq->body, gemm, pipelined);
    }
}

static void add_source(Inspect *in, const char *name, const GridPlan *gp, long long smem)
{
    KernelSource *s = &in->sources[in->nsources++];
    *s = (KernelSource){name, false, false, in->opt.input, gp->grid->loc.line, smem};
    scan_block(&gp->grid->body, &s->gemm, &s->pipelined);
}

/* The grids of the file's plan, parsed a second time with the warnings
 * off (the translation has shown them): which kernels have a gemm, a
 * pipelined loop, and how much dynamic shared memory they ask for. */
static void read_plan(Inspect *in, unsigned archs)
{
    diag_ignore_warnings(true);
    const Options *o = &in->opt;
    ParseOptions po = {o->input, o->clang_args, o->nclang_args, o->include_dir, NULL};
    FrontEnd *fe = frontend_parse(&po);
    IrModule *m = fe ? build_ir(fe) : NULL;
    if (m)
        m->archs = archs;
    Plan *plan = m && check_module(m) ? lower_module(m) : NULL;
    int n = 0;
    for (int i = 0; plan && i < plan->kernels.len; i++)
        n += 2 * ((KernelPlan *)plan->kernels.items[i])->grids.len;
    in->sources = anew((size_t)(n + 1) * sizeof *in->sources);
    for (int i = 0; plan && i < plan->kernels.len; i++) {
        const KernelPlan *kp = plan->kernels.items[i];
        for (int j = 0; j < kp->grids.len; j++) {
            const GridPlan *gp = kp->grids.items[j];
            add_source(in, gp->kernel_name, gp, gp->smem_bytes);
            if (gp->sm90) /* emit_sm90.c names it so */
                add_source(in, aprintf("%s_sm90", gp->kernel_name), gp, gp->sm90->smem_bytes);
        }
    }
    if (fe)
        frontend_free(fe);
}

/* ---- compiling a .c or .cu ----------------------------------------------------------- */

/* The tilepp code paths for the SM architectures asked for. */
static unsigned path_bits(const Vec *archs)
{
    unsigned bits = 0;
    for (int i = 0; i < archs->len; i++)
        bits |= strcmp(archs->items[i], "sm_90a") == 0 ? ARCH_SM90A : ARCH_SM80;
    return bits;
}

/* The .c translated into `tmp`; the path of its .cu, or NULL. */
static const char *translate_into(Inspect *in, const char *tmp)
{
    Options t = in->opt;
    char *cu = default_output_name(t.input);
    t.output = aprintf("%s/%s", tmp, cu);
    t.header = aprintf("%s/%.*s.h", tmp, (int)strlen(cu) - 3, cu);
    t.archs = path_bits(&in->archs);
    t.emit = EMIT_CUDA;
    if (in->translate(&t) != 0)
        return NULL;
    in->opt.include_dir = t.include_dir;
    read_plan(in, t.archs);
    return t.output;
}

typedef struct Compiler {
    const char *nvcc, *ptxas, *nvdisasm, *tmp, *cu;
    Vec flags;
} Compiler;

static char *run_for_text(const char *const *argv, const char *path_first)
{
    ProcessResult r;
    if (!run_process(argv, path_first, &r)) {
        error_at((SrcLoc){0}, "%s", r.err);
        return NULL;
    }
    /* cuobjdump on a file without any: "File 'x' does not contain device code". */
    if (r.status != 0 && strstr(r.err, "does not contain device code")) {
        int last = 0;
        while (argv[last + 1])
            last++;
        error_at((SrcLoc){0}, "%s has no CUDA device code", argv[last]);
        return NULL;
    }
    if (r.status != 0) {
        fputs(r.err, stderr);
        error_at((SrcLoc){0}, "%s failed (exit status %d)", command_text(argv), r.status);
        return NULL;
    }
    return r.out;
}

/* One architecture: PTX, cubin (ptxas -v), and the listing to count. */
static bool compile_arch(Inspect *in, const Compiler *c, const char *sm)
{
    char *compute = compute_arch_name(sm);
    char *ptx = aprintf("%s/%s.ptx", c->tmp, compute), *cubin = aprintf("%s/%s.cubin", c->tmp, sm), *verbose;
    if (!compile_ptx(c->nvcc, &c->flags, c->cu, sm, ptx) || !assemble_cubin(c->ptxas, ptx, sm, cubin, &verbose))
        return false;
    if (in->report.view == VIEW_SASS) {
        const char *argv[] = {c->nvdisasm, cubin, NULL};
        char *sass = run_for_text(argv, NULL);
        if (!sass)
            return false;
        parse_sass(sass, sm, &in->report);
    } else {
        size_t len;
        char *text = read_file(ptx, &len);
        if (!text)
            return false;
        parse_ptx(text, sm, &in->report);
        free(text);
    }
    parse_ptxas_verbose(verbose, &in->report);
    return true;
}

/* Reports a tool that is missing or misnamed; false if the caller must stop. */
static bool tool_usable(const Tool *t, const char *needed_for)
{
    if (t->path)
        return true;
    if (t->bad_setting || needed_for)
        error_at((SrcLoc){0}, "%s%s", needed_for ? needed_for : "", t->why);
    return !t->bad_setting && !needed_for;
}

static int inspect_source(Inspect *in)
{
    Tool nvcc = find_nvcc();
    if (!tool_usable(&nvcc, aprintf("cannot compile %s: ", in->opt.input)))
        return 1;
    Tool ptxas = find_ptxas(nvcc.path), nvdisasm = {0};
    if (!tool_usable(&ptxas, "cannot assemble the PTX: "))
        return 1;
    if (!in->ptx_view) {
        nvdisasm = find_nvdisasm(nvcc.path, NULL);
        if (!tool_usable(&nvdisasm, NULL))
            return 1;
    }
    in->report.view = nvdisasm.path ? VIEW_SASS : VIEW_PTX;
    in->tools = nvdisasm.path ? aprintf("SASS from %s, resources from ptxas -v", nvdisasm.path)
                              : aprintf("PTX from %s%s, resources from ptxas -v", nvcc.path,
                                        in->ptx_view ? "" : " (no nvdisasm found: the PTX view)");
    Compiler c = {nvcc.path, ptxas.path, nvdisasm.path, make_temp_dir(), in->opt.input, {0}};
    if (!c.tmp)
        return 1;
    bool ok = in->kind == INPUT_CUDA || (c.cu = translate_into(in, c.tmp)) != NULL;
    if (ok)
        nvcc_flags(&in->opt, in->include_dir, in->kind == INPUT_CUDA, &c.flags);
    for (int i = 0; ok && i < in->archs.len; i++)
        ok = compile_arch(in, &c, in->archs.items[i]);
    remove_temp_dir(c.tmp);
    return ok ? 0 : 1;
}

/* ---- reading a binary ------------------------------------------------------------------ */

/* The one architecture of the records, or NULL if they have several (a
 * cubin's -res-usage names none). */
static const char *single_arch(const InspectReport *r)
{
    const char *arch = NULL;
    for (int i = 0; i < r->kernels.len; i++) {
        const char *a = ((KernelReport *)r->kernels.items[i])->arch;
        if (arch && strcmp(arch, a) != 0)
            return NULL;
        arch = a;
    }
    return arch;
}

static bool wanted_arch(const Vec *archs, const char *arch)
{
    for (int i = 0; i < archs->len; i++)
        if (strcmp(archs->items[i], arch) == 0)
            return true;
    return false;
}

/* --arch on a binary: the records of the other architectures dropped. */
static void keep_archs(Inspect *in)
{
    int kept = 0;
    Vec *ks = &in->report.kernels;
    for (int i = 0; i < ks->len; i++)
        if (wanted_arch(&in->archs, ((KernelReport *)ks->items[i])->arch))
            ks->items[kept++] = ks->items[i];
    ks->len = kept;
}

static int inspect_binary(Inspect *in)
{
    Tool nvcc = find_nvcc(); /* only as a hint where the toolkit is */
    Tool cuobjdump = find_cuobjdump(nvcc.path);
    if (!tool_usable(&cuobjdump, aprintf("cannot read %s: ", in->opt.input)))
        return 1;
    Tool nvdisasm = find_nvdisasm(nvcc.path, cuobjdump.path);
    if (!tool_usable(&nvdisasm, NULL))
        return 1;
    bool sass = nvdisasm.path && !in->ptx_view;
    in->report.view = sass ? VIEW_SASS : VIEW_PTX;
    in->tools = aprintf("%s from %s%s, resources from cuobjdump -res-usage", sass ? "SASS" : "embedded PTX",
                        cuobjdump.path, sass || in->ptx_view ? "" : " (no nvdisasm found: the PTX view)");
    const char *listing[] = {cuobjdump.path, sass ? "-sass" : "-ptx", in->opt.input, NULL};
    char *text = run_for_text(listing, sass ? dir_of(nvdisasm.path) : NULL);
    if (!text)
        return 1;
    (sass ? parse_sass : parse_ptx)(text, NULL, &in->report);
    const char *resources[] = {cuobjdump.path, "-res-usage", in->opt.input, NULL};
    char *usage_text = run_for_text(resources, NULL);
    if (!usage_text)
        return 1;
    parse_res_usage(usage_text, single_arch(&in->report), &in->report);
    if (in->arch_list)
        keep_archs(in);
    if (in->report.kernels.len == 0) {
        error_at((SrcLoc){0}, "%s has no %s kernels%s", in->opt.input, sass ? "compiled" : "PTX",
                 in->arch_list ? " for the architectures asked for" : "");
        return 1;
    }
    return 0;
}

typedef struct SortKey {
    KernelReport *k;
    int arch, order;
} SortKey;

static int compare_keys(const void *a, const void *b)
{
    const SortKey *x = a, *y = b;
    int by_name = strcmp(x->k->name, y->k->name);
    return x->arch != y->arch ? x->arch - y->arch : by_name ? by_name : x->order - y->order;
}

static int arch_index(const Vec *archs, const char *arch)
{
    for (int i = 0; i < archs->len; i++)
        if (strcmp(archs->items[i], arch) == 0)
            return i;
    return archs->len;
}

/* The records by architecture (in --arch order), then by name: the same
 * order whichever tool listed them. */
static void sort_report(Inspect *in)
{
    Vec *ks = &in->report.kernels;
    SortKey *keys = anew((size_t)(ks->len + 1) * sizeof *keys);
    for (int i = 0; i < ks->len; i++)
        keys[i] = (SortKey){ks->items[i], arch_index(&in->archs, ((KernelReport *)ks->items[i])->arch), i};
    qsort(keys, (size_t)ks->len, sizeof *keys, compare_keys);
    for (int i = 0; i < ks->len; i++)
        ks->items[i] = keys[i].k;
}

/* The architectures in the order the records have them. */
static void archs_of_report(Inspect *in)
{
    in->archs.len = 0;
    for (int i = 0; i < in->report.kernels.len; i++) {
        const char *a = ((KernelReport *)in->report.kernels.items[i])->arch;
        if (!wanted_arch(&in->archs, a))
            vec_push(&in->archs, (void *)a);
    }
}

/* ---- the report: tables ------------------------------------------------------------------ */

static char *number_text(long long v) { return v < 0 ? astrdup("?") : aprintf("%lld", v); }

/* "gemm, grid line 20", "gemm, grid 0", "normalize, loop 1 combine"; the
 * variant of a tune point "gemm v3, grid line 20" (v3: point 3 of the space,
 * counted from 0 in the order tilepp --list-variants prints them); an
 * sm_90a variant compiled for another architecture ", empty". */
static char *origin_text(const KernelReport *k)
{
    const TileOrigin *o = &k->origin;
    if (!o->known)
        return astrdup("-");
    bool grid = strcmp(o->construct, "grid") == 0;
    char *where = grid && k->source_line ? aprintf("grid line %d", k->source_line)
                                         : aprintf("%s %d", grid ? "grid" : "loop", o->index);
    const char *variant = o->tuned ? aprintf(" v%d", o->variant) : "";
    return aprintf("%s%s, %s%s%s", o->kernel, variant, where, strcmp(o->construct, "combine") == 0 ? " combine" : "",
                   k->stub ? ", empty" : "");
}

enum { COLUMNS = 12 };

static const char *const headers[COLUMNS] = {"kernel",      "from",   "regs",  "smem",    "dyn smem", "stack",
                                             "spill st/ld", "tensor", "async", "barrier", "ldsm",     "shfl"};

static void row_cells(const KernelReport *k, const char **cells)
{
    cells[0] = k->name;
    cells[1] = origin_text(k);
    cells[2] = number_text(k->registers);
    cells[3] = number_text(k->shared_bytes);
    cells[4] = k->dynamic_shared_bytes < 0 ? "-" : number_text(k->dynamic_shared_bytes);
    cells[5] = number_text(k->stack_bytes);
    cells[6] = k->spill_store_bytes < 0 ? "?" : aprintf("%lld/%lld", k->spill_store_bytes, k->spill_load_bytes);
    for (int f = LM_TENSOR_CORE; f <= LM_SHUFFLE; f++)
        cells[7 + f] = number_text(k->counts[f]);
}

/* One column each; text left-aligned, numbers right-aligned. */
static void print_row(const char **cells, const int *width)
{
    fputs("  ", stdout);
    for (int c = 0; c < COLUMNS; c++) {
        bool left = c < 2;
        printf(left ? "%-*s" : "%*s", width[c], cells[c]);
        fputs(c + 1 < COLUMNS ? "  " : "\n", stdout);
    }
}

/* "HGMMA 4, UTMALDG 3, ...; 1234 instructions" */
static char *ops_text(const KernelReport *k)
{
    Str s = {0};
    for (int i = 0; i < k->ops.len; i++) {
        const OpCount *c = k->ops.items[i];
        str_addf(&s, "%s%s %d", i ? ", " : "", c->mnemonic, c->count);
    }
    str_addf(&s, "%s%d instructions", k->ops.len ? "; " : "", k->instructions);
    return atake(&s);
}

static void print_arch_table(const Inspect *in, const char *arch)
{
    const Vec *ks = &in->report.kernels;
    const char **cells = anew((size_t)(ks->len + 1) * COLUMNS * sizeof *cells);
    int width[COLUMNS], rows = 1;
    memcpy(cells, headers, sizeof headers);
    for (int i = 0; i < ks->len; i++)
        if (strcmp(((KernelReport *)ks->items[i])->arch, arch) == 0)
            row_cells(ks->items[i], cells + COLUMNS * rows++);
    for (int c = 0; c < COLUMNS; c++) {
        width[c] = 0;
        for (int r = 0; r < rows; r++)
            width[c] = (int)strlen(cells[COLUMNS * r + c]) > width[c] ? (int)strlen(cells[COLUMNS * r + c]) : width[c];
    }
    printf("\n%s (%s)\n", arch, in->report.view == VIEW_SASS ? "SASS" : "PTX view");
    for (int r = 0; r < rows; r++)
        print_row(cells + COLUMNS * r, width);
    for (int i = 0; i < ks->len; i++) {
        const KernelReport *k = ks->items[i];
        if (strcmp(k->arch, arch) == 0)
            printf("  %s: %s\n", k->name, ops_text(k));
    }
}

static void print_tables(const Inspect *in, const Vec *warnings)
{
    printf("%s: %s\n", in->opt.input, in->tools);
    if (in->report.kernels.len == 0)
        printf("\nno kernels\n");
    for (int i = 0; i < in->archs.len && in->report.kernels.len; i++)
        print_arch_table(in, in->archs.items[i]);
    if (warnings->len)
        putchar('\n');
    for (int i = 0; i < warnings->len; i++) {
        const InspectWarning *w = warnings->items[i];
        printf("warning: %s: %s: %s\n", w->k->arch, w->k->name, w->message);
    }
}

/* ---- the report: JSON ---------------------------------------------------------------------- */

static void json_string(Str *s, const char *text)
{
    if (!text) {
        str_add(s, "null");
        return;
    }
    str_addc(s, '"');
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\')
            str_addf(s, "\\%c", *p);
        else if (*p < 0x20)
            str_addf(s, "\\u%04x", *p);
        else
            str_addc(s, (char)*p);
    }
    str_addc(s, '"');
}

static void json_number(Str *s, long long v)
{
    if (v < 0)
        str_add(s, "null");
    else
        str_addf(s, "%lld", v);
}

static void json_origin(Str *s, const KernelReport *k)
{
    const TileOrigin *o = &k->origin;
    if (!o->known) {
        str_add(s, "null");
        return;
    }
    str_add(s, "{\"kernel\": ");
    json_string(s, o->kernel);
    str_add(s, ", \"construct\": ");
    json_string(s, o->construct);
    str_addf(s, ", \"index\": %d, \"variant\": ", o->index);
    json_string(s, strcmp(o->construct, "grid") != 0 ? NULL : o->sm90 ? "sm90a" : "sm80");
    str_add(s, ", \"line\": ");
    json_number(s, k->source_line ? k->source_line : -1);
    str_add(s, ", \"tune_point\": "); /* the point of a tune space whose variant this is */
    json_number(s, o->tuned ? o->variant : -1);
    str_add(s, "}");
}

static void json_kernel(Str *s, const KernelReport *k)
{
    str_add(s, "    {\"arch\": ");
    json_string(s, k->arch);
    str_add(s, ", \"name\": ");
    json_string(s, k->name);
    str_add(s, ", \"mangled\": ");
    json_string(s, k->mangled);
    str_add(s, ",\n     \"tilepp\": ");
    json_origin(s, k);
    str_addf(s, ", \"stub\": %s, \"instructions\": %d,\n     \"landmarks\": {", k->stub ? "true" : "false",
             k->instructions);
    for (int f = 0; f < LM_FAMILIES; f++)
        str_addf(s, "%s\"%s\": %d", f ? ", " : "", landmark_key(f), k->counts[f]);
    str_add(s, "},\n     \"mnemonics\": {");
    for (int i = 0; i < k->ops.len; i++) {
        const OpCount *c = k->ops.items[i];
        str_add(s, i ? ", " : "");
        json_string(s, c->mnemonic);
        str_addf(s, ": %d", c->count);
    }
    const long long sizes[] = {k->registers,   k->shared_bytes,      k->dynamic_shared_bytes,
                               k->stack_bytes, k->spill_store_bytes, k->spill_load_bytes};
    const char *const names[] = {"registers",   "shared_bytes",      "dynamic_shared_bytes",
                                 "stack_bytes", "spill_store_bytes", "spill_load_bytes"};
    str_add(s, "},\n     ");
    for (int i = 0; i < 6; i++) {
        str_addf(s, "\"%s\": ", names[i]);
        json_number(s, sizes[i]);
        str_add(s, i < 5 ? ", " : ",\n");
    }
    str_add(s, "     \"expects\": {\"tensor_core\": ");
    json_string(s, k->want_tc);
    str_add(s, ", \"async_copy\": ");
    json_string(s, k->want_cp);
    str_add(s, "}}");
}

static void print_json(const Inspect *in, const Vec *warnings)
{
    Str s = {0};
    str_add(&s, "{\"schema\": \"tilepp-inspect/1\", \"input\": ");
    json_string(&s, in->opt.input);
    static const char *const kinds[] = {"c", "cuda", "binary"};
    str_addf(&s, ", \"input_kind\": \"%s\", \"view\": \"%s\",\n \"tools\": ", kinds[in->kind],
             in->report.view == VIEW_SASS ? "sass" : "ptx");
    json_string(&s, in->tools);
    str_add(&s, ",\n \"archs\": [");
    for (int i = 0; i < in->archs.len; i++) {
        str_add(&s, i ? ", " : "");
        json_string(&s, in->archs.items[i]);
    }
    str_add(&s, "],\n \"kernels\": [\n");
    for (int i = 0; i < in->report.kernels.len; i++) {
        json_kernel(&s, in->report.kernels.items[i]);
        str_add(&s, i + 1 < in->report.kernels.len ? ",\n" : "\n");
    }
    str_add(&s, " ],\n \"warnings\": [\n");
    for (int i = 0; i < warnings->len; i++) {
        const InspectWarning *w = warnings->items[i];
        str_add(&s, "    {\"arch\": ");
        json_string(&s, w->k->arch);
        str_add(&s, ", \"kernel\": ");
        json_string(&s, w->k->name);
        str_add(&s, ", \"mangled\": ");
        json_string(&s, w->k->mangled);
        str_add(&s, ", \"kind\": ");
        json_string(&s, w->kind);
        str_add(&s, ", \"message\": ");
        json_string(&s, w->message);
        str_add(&s, i + 1 < warnings->len ? "},\n" : "}\n");
    }
    str_add(&s, " ]}\n");
    fputs(str_cstr(&s), stdout);
    str_free(&s);
}

/* ---- the command ---------------------------------------------------------------------------- */

static int run_inspect(Inspect *in)
{
    const char *bad;
    if (!parse_sm_archs(in->arch_list ? in->arch_list : "80,90a", &in->archs, &bad))
        return 1; /* checked with the command line */
    in->kind = input_kind(in->opt.input);
    int status = in->kind == INPUT_BINARY ? inspect_binary(in) : inspect_source(in);
    if (status)
        return status;
    if (in->kind == INPUT_BINARY)
        archs_of_report(in);
    sort_report(in);
    apply_expectations(&in->report, in->sources, in->nsources);
    Vec warnings = {0};
    inspect_warnings(&in->report, &warnings);
    if (in->json)
        print_json(in, &warnings);
    else
        print_tables(in, &warnings);
    return in->werror && warnings.len ? 1 : 0;
}

int inspect_main(int argc, char **argv, const char *include_dir, int (*translate)(Options *opt))
{
    Inspect in = {.opt = {.emit = EMIT_CUDA, .archs = ARCH_SM80 | ARCH_SM90A}};
    in.include_dir = include_dir;
    in.opt.include_dir = include_dir;
    in.translate = translate;
    int status = parse_command_line(&in, argc, argv);
    if (!status && !in.answered)
        status = run_inspect(&in);
    fflush(stdout);
    diag_reset();
    arena_free_all();
    return status;
}

/* main.c — the tilepp command line.
 *
 * Options are read as gcc and clang read theirs, so a compile_commands.json
 * line can be handed over: "-ofile" and "-o file", "--arch=90a" and
 * "--arch 90a", "--" before an input that starts with '-'. Include and
 * language flags go on to libclang; code generation and warning flags of the
 * C compiler are ignored with a note. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clang-c/Index.h>

#include "cuda_tools.h"
#include "diag.h"
#include "driver.h"
#include "inspect.h"
#include "ir.h"
#include "util.h"

static const char usage[] = "usage: tilepp [options] file.c\n"
                            "       tilepp inspect [options] FILE   (tilepp inspect --help)\n"
                            "\n"
                            "Translates a C file annotated with '#pragma tile' into CUDA kernels and\n"
                            "host launchers: file.tile.cu and file.tile.h.\n"
                            "\n"
                            "options (a value may be joined, -ofile, --arch=90a, or separate, -o file):\n"
                            "  -o FILE          write the CUDA to FILE (default: <file>.tile.cu here)\n"
                            "  --header FILE    write the launcher header to FILE (default: -o with .h)\n"
                            "  --arch LIST      GPU code paths, comma separated (default 80,90a): 90a (also\n"
                            "                   90, sm_90a, compute_90a) for Hopper's wgmma and TMA, 80\n"
                            "                   (also sm_80, compute_80, 86, 89, 100, ...) for the rest\n"
                            "  --emit cuda|ptx|ir\n"
                            "                   what to write (default cuda; ir goes to -o or stdout; ptx:\n"
                            "                   nvcc's PTX per --arch, <base>.compute_90a.ptx, <base> being\n"
                            "                   -o without .ptx or .cu, or <file>.tile)\n"
                            "  -g               debug translation: every tile_load and tile_store checks\n"
                            "                   its window (the 4-argument form's promise) or its bounds\n"
                            "                   against the matrix's declared extents, skips a violating\n"
                            "                   access, and the launcher, which then waits for its kernels,\n"
                            "                   reports it (file:line:col, the block) and returns\n"
                            "                   cudaErrorAssert; grids take the sm_80 kernel. -g0: off\n"
                            "  -fsyntax-only    run every check, write nothing\n"
                            "\n"
                            "autotuning ('#pragma tile tune', README.md \"Autotuning\"):\n"
                            "  --list-variants  print every point of each tune space, 'ok' or why it was\n"
                            "                   pruned, and write nothing\n"
                            "  --no-tune        translate each tuned kernel at the file's values only, as\n"
                            "                   without its tune line (no variants, no k_gpu_point)\n"
                            "  --parts N        write the tuned kernels' variants into N more files,\n"
                            "                   <output>.part1.cu ... .partN.cu (always N, some maybe\n"
                            "                   without a variant), for parallel compilation; default:\n"
                            "                   inside the .cu\n"
                            "  --               what follows is the input file, even if it starts with '-'\n"
                            "\n"
                            "as for a C compiler, when parsing the file:\n"
                            "  -I DIR, -D NAME[=VALUE], -U NAME, -std=STD, -isystem DIR, -iquote DIR,\n"
                            "  -idirafter DIR, -include FILE, --sysroot DIR, --target TRIPLE (-target)\n"
                            "\n"
                            "a Make dependency file, as gcc writes it:\n"
                            "  -MD              write one (default name: the output with its suffix\n"
                            "                   replaced by .d: -o k.tile.cu gives k.tile.d)\n"
                            "  -MMD             the same without the system headers\n"
                            "  -MF FILE         its name\n"
                            "  -MT TARGET       the rule's target, as written (default: the output)\n"
                            "  -MQ TARGET       the same, quoted for Make\n"
                            "  -MP              an empty rule for each header\n"
                            "\n"
                            "diagnostics:\n"
                            "  -w               no warnings\n"
                            "  -Werror          warnings are errors (and nothing is written)\n"
                            "  -fcolor-diagnostics, -fno-color-diagnostics\n"
                            "                   colours on or off (default: on a terminal, unless NO_COLOR\n"
                            "                   is set); also -fdiagnostics-color[=always|never|auto]\n"
                            "\n"
                            "ignored with a note (code generation and warning flags of the C compiler):\n"
                            "  -c, -pipe, -O..., -g... (but -g, -g0), -m..., -f..., -W...\n"
                            "\n"
                            "  --version        print the versions of tilepp and libclang\n"
                            "  --help           print this help\n";

static int usage_error(const char *fmt, const char *arg)
{
    fputs("tilepp: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n(run 'tilepp --help' for the options)\n", stderr);
    return 1;
}

/* One --arch value, spelt as nvcc and CMake spell them: "90a", "sm_90a",
 * "compute_90a", "90" (Hopper: the sm_90a path), "80", "86", "89", "100",
 * "120" (the sm_80 path, which they all run). 0: not an architecture. */
static unsigned arch_bit(const char *value)
{
    if (str_starts_with(value, "sm_"))
        value += 3;
    else if (str_starts_with(value, "compute_"))
        value += 8;
    char *end;
    long number = strtol(value, &end, 10);
    if (end == value || !(*end == '\0' || (end[0] == 'a' && end[1] == '\0') || (end[0] == 'f' && end[1] == '\0')))
        return 0;
    if (number == 90)
        return ARCH_SM90A;
    return number >= 80 ? ARCH_SM80 : 0;
}

static bool parse_archs(const char *list, unsigned *archs)
{
    *archs = 0;
    char *copy = astrdup(list);
    for (char *save = NULL, *tok = strtok_r(copy, ",;", &save); tok; tok = strtok_r(NULL, ",;", &save)) {
        unsigned bit = arch_bit(tok);
        if (!bit)
            return false;
        *archs |= bit;
    }
    return *archs != 0;
}

/* tilepp looks for its headers at <dir of the executable>/../include, which
 * holds in the build tree and in an installation alike. */
static const char *find_include_dir(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    char *dir = aprintf("%s/../include", exe);
    char *probe = aprintf("%s/tilepp/tile.h", dir);
    return access(probe, R_OK) == 0 ? dir : NULL;
}

/* tilepp's version first (CMake scripts read that line), then what decides
 * how C is parsed: libclang, the builtin headers it is given and tile.h. */
static void print_version(void)
{
    printf("tilepp %s\n", TILEPP_VERSION);
    CXString clang = clang_getClangVersion();
    printf("libclang: %s\n", clang_getCString(clang));
    clang_disposeString(clang);
#ifdef TILEPP_CLANG_RESOURCE_DIR
    printf("clang resource directory: %s\n", TILEPP_CLANG_RESOURCE_DIR);
#else
    printf("clang resource directory: built in (libclang's own)\n");
#endif
    const char *include_dir = find_include_dir();
    printf("tilepp/tile.h from: %s\n", include_dir ? include_dir : "not found (pass -I)");
}

typedef enum { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } ColorChoice;

/* The command line, read. */
typedef struct CommandLine {
    Options opt;
    ColorChoice color;
    bool ignore_warnings, warnings_as_errors;
    bool answered; /* --help or --version was printed: nothing else to do */
    Vec ignored;   /* char*: flags dropped with a note, printed once colours are known */
    Str dep_target;
    const char *arch_list; /* --arch as given: --emit ptx compiles for each */
    bool emit_ptx;
} CommandLine;

/* Options that take a value. */
typedef enum {
    OPT_OUTPUT,
    OPT_HEADER,
    OPT_ARCH,
    OPT_EMIT,
    OPT_PARTS,
    OPT_DEPFILE,
    OPT_DEP_TARGET,
    OPT_DEP_QUOTED,
    OPT_UNDEFINE,
    OPT_CLANG,      /* forwarded to libclang joined: -DNAME, -isystemDIR */
    OPT_CLANG_LONG, /* forwarded to libclang as --name=VALUE */
} ValueKind;

/* How an option's value is written: "-oVALUE" or "-o VALUE" (JOINED),
 * "--arch=VALUE" or "--arch VALUE" (EQUALS), "-target VALUE" (SEPARATE). */
typedef enum { JOINED, EQUALS, SEPARATE } ValueForm;

/* Longer names come before their prefixes. */
static const struct {
    const char *name;
    ValueForm form;
    ValueKind kind;
} value_options[] = {
    {"--header", EQUALS, OPT_HEADER},
    {"--arch", EQUALS, OPT_ARCH},
    {"--emit", EQUALS, OPT_EMIT},
    {"--parts", EQUALS, OPT_PARTS},
    {"--sysroot", EQUALS, OPT_CLANG_LONG},
    {"--target", EQUALS, OPT_CLANG_LONG},
    {"-target", SEPARATE, OPT_CLANG_LONG},
    {"-isystem", JOINED, OPT_CLANG},
    {"-iquote", JOINED, OPT_CLANG},
    {"-idirafter", JOINED, OPT_CLANG},
    {"-include", JOINED, OPT_CLANG},
    {"-MF", JOINED, OPT_DEPFILE},
    {"-MT", JOINED, OPT_DEP_TARGET},
    {"-MQ", JOINED, OPT_DEP_QUOTED},
    {"-o", JOINED, OPT_OUTPUT},
    {"-I", JOINED, OPT_CLANG},
    {"-D", JOINED, OPT_CLANG},
    {"-U", JOINED, OPT_UNDEFINE},
};

/* Whether argv[*i] is option `name`; if so *value is its value, NULL when
 * the command line ends before it, and *i moves past a separate value. */
static bool match_value_option(int argc, char **argv, int *i, const char *name, ValueForm form, const char **value)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return false;
    if (a[n] == '\0') {
        *value = *i + 1 < argc ? argv[++*i] : NULL;
        return true;
    }
    if (form == SEPARATE || (form == EQUALS && a[n] != '='))
        return false;
    *value = a + n + (form == EQUALS);
    return true;
}

/* -U NAME cancels an earlier -D NAME. Clang does the same when it parses,
 * but the pragma evaluator looks macros up in the parse's record, which
 * keeps the definition. */
static void drop_definitions(Options *opt, const char *name)
{
    int kept = 0;
    size_t n = strlen(name);
    for (int i = 0; i < opt->nclang_args; i++) {
        const char *a = opt->clang_args[i];
        bool defines =
            str_starts_with(a, "-D") && strncmp(a + 2, name, n) == 0 && (a[2 + n] == '\0' || a[2 + n] == '=');
        if (!defines)
            opt->clang_args[kept++] = a;
    }
    opt->nclang_args = kept;
}

static void add_dep_target(CommandLine *cl, const char *target)
{
    if (cl->dep_target.len)
        str_addc(&cl->dep_target, ' ');
    str_add(&cl->dep_target, target);
}

/* Applies option `name` with its value; returns the exit status (1 after a
 * usage error). */
static int apply_value(CommandLine *cl, ValueKind kind, const char *name, const char *v)
{
    Options *opt = &cl->opt;
    switch (kind) {
    case OPT_OUTPUT:
        opt->output = v;
        break;
    case OPT_HEADER:
        opt->header = v;
        break;
    case OPT_DEPFILE:
        opt->depfile = v;
        break;
    case OPT_DEP_TARGET:
        add_dep_target(cl, v);
        break;
    case OPT_DEP_QUOTED:
        add_dep_target(cl, make_quote(v));
        break;
    case OPT_ARCH:
        if (!parse_archs(v, &opt->archs))
            return usage_error("--arch takes a comma-separated list of architectures, sm_80 and newer "
                               "(80, 86, 89, 90a, sm_90a, compute_80, ...), not '%s'",
                               v);
        cl->arch_list = v;
        break;
    case OPT_EMIT:
        cl->emit_ptx = strcmp(v, "ptx") == 0; /* CUDA first, then nvcc (cuda_tools.c) */
        if (strcmp(v, "cuda") == 0 || cl->emit_ptx)
            opt->emit = EMIT_CUDA;
        else if (strcmp(v, "ir") == 0)
            opt->emit = EMIT_IR;
        else
            return usage_error("--emit takes 'cuda', 'ptx' or 'ir', not '%s'", v);
        break;
    case OPT_PARTS: {
        char *end;
        long n = strtol(v, &end, 10);
        if (end == v || *end || n < 1 || n > 256)
            return usage_error("--parts takes a number of files from 1 to 256, not '%s'", v);
        opt->parts = (int)n;
        break;
    }
    case OPT_UNDEFINE:
        drop_definitions(opt, v);
        opt->clang_args[opt->nclang_args++] = aprintf("-U%s", v);
        break;
    case OPT_CLANG:
        opt->clang_args[opt->nclang_args++] = aprintf("%s%s", name, v);
        break;
    case OPT_CLANG_LONG:
        /* "-target T" is clang's older spelling of "--target=T". */
        opt->clang_args[opt->nclang_args++] = aprintf("-%s=%s", name[1] == '-' ? name + 1 : name, v);
        break;
    }
    return 0;
}

/* -fcolor-diagnostics and gcc's -fdiagnostics-color[=WHEN]; false if `a`
 * is neither. */
static bool color_option(CommandLine *cl, const char *a)
{
    if (strcmp(a, "-fcolor-diagnostics") == 0 || strcmp(a, "-fdiagnostics-color") == 0 ||
        strcmp(a, "-fdiagnostics-color=always") == 0)
        cl->color = COLOR_ALWAYS;
    else if (strcmp(a, "-fno-color-diagnostics") == 0 || strcmp(a, "-fno-diagnostics-color") == 0 ||
             strcmp(a, "-fdiagnostics-color=never") == 0)
        cl->color = COLOR_NEVER;
    else if (strcmp(a, "-fdiagnostics-color=auto") == 0)
        cl->color = COLOR_AUTO;
    else
        return false;
    return true;
}

/* Options without a value; false if `a` is none of them. */
static bool apply_flag(CommandLine *cl, const char *a)
{
    Options *opt = &cl->opt;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        fputs(usage, stdout);
        cl->answered = true;
    } else if (strcmp(a, "--version") == 0) {
        print_version();
        cl->answered = true;
    } else if (strcmp(a, "-MD") == 0)
        opt->make_depfile = true;
    else if (strcmp(a, "-MMD") == 0)
        opt->make_depfile = opt->depfile_user_only = true;
    else if (strcmp(a, "-MP") == 0)
        opt->depfile_phony = true;
    else if (strcmp(a, "-fsyntax-only") == 0)
        opt->syntax_only = true;
    else if (strcmp(a, "--list-variants") == 0)
        opt->list_variants = true;
    else if (strcmp(a, "--no-tune") == 0)
        opt->no_tune = true;
    else if (strcmp(a, "-g") == 0 || strcmp(a, "-g0") == 0)
        opt->debug = a[2] == '\0';
    else if (strcmp(a, "-w") == 0)
        cl->ignore_warnings = true;
    else if (strcmp(a, "-Werror") == 0 || strcmp(a, "-Wno-error") == 0)
        cl->warnings_as_errors = a[2] == 'e';
    else if (str_starts_with(a, "-std="))
        opt->clang_args[opt->nclang_args++] = a;
    else
        return color_option(cl, a);
    return true;
}

/* Why a C compiler's flag can be dropped, or NULL if `a` is not one of the
 * families tilepp ignores. The -O, -m and -f flags that define macros
 * (__OPTIMIZE__, __AVX2__, ...) could change a parse, but not a kernel. */
static const char *ignored_because(const char *a)
{
    if (strcmp(a, "-c") == 0)
        return "tilepp writes CUDA source, not an object file";
    if (strcmp(a, "-pipe") == 0 || (a[1] && strchr("Ogmf", a[1])))
        return "a code generation flag of the C compiler";
    if (a[1] == 'W')
        return "a warning flag of the C compiler; tilepp takes -w and -Werror";
    return NULL;
}

/* One argument (and its separate value); returns the exit status so far. */
static int parse_argument(CommandLine *cl, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (a[0] != '-' || a[1] == '\0') {
        if (cl->opt.input)
            return usage_error("one input file at a time ('%s' is a second one)", a);
        cl->opt.input = a;
        return 0;
    }
    if (apply_flag(cl, a))
        return 0;
    for (size_t k = 0; k < sizeof value_options / sizeof *value_options; k++) {
        const char *name = value_options[k].name, *v;
        if (match_value_option(argc, argv, i, name, value_options[k].form, &v))
            return v ? apply_value(cl, value_options[k].kind, name, v) : usage_error("option '%s' needs a value", name);
    }
    if (ignored_because(a)) {
        vec_push(&cl->ignored, (void *)a);
        return 0;
    }
    return usage_error("unknown option '%s'", a);
}

/* Reads argv up to the end, a usage error or --help/--version; returns the
 * exit status so far (1 after a usage error). */
static int parse_command_line(CommandLine *cl, int argc, char **argv)
{
    bool only_inputs = false;
    for (int i = 1; i < argc && !cl->answered; i++) {
        int status = 0;
        if (!only_inputs && strcmp(argv[i], "--") == 0)
            only_inputs = true;
        else if (only_inputs && cl->opt.input)
            status = usage_error("one input file at a time ('%s' is a second one)", argv[i]);
        else if (only_inputs)
            cl->opt.input = argv[i];
        else
            status = parse_argument(cl, argc, argv, &i);
        if (status)
            return status;
    }
    cl->opt.dep_target = cl->dep_target.len ? atake(&cl->dep_target) : NULL;
    return 0;
}

/* As clang: colours on a terminal that has them, unless NO_COLOR
 * (no-color.org) is set and not empty; the flags override both. */
static bool use_color(ColorChoice choice)
{
    if (choice != COLOR_AUTO)
        return choice == COLOR_ALWAYS;
    const char *no_color = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    if ((no_color && *no_color) || !term || strcmp(term, "dumb") == 0)
        return false;
    return isatty(STDERR_FILENO);
}

static void set_up_diagnostics(const CommandLine *cl)
{
    diag_set_color(use_color(cl->color));
    diag_ignore_warnings(cl->ignore_warnings);
    diag_warnings_as_errors(cl->warnings_as_errors);
    diag_show_compiler_warnings(true);
    for (int i = 0; i < cl->ignored.len; i++) {
        const char *a = cl->ignored.items[i];
        note_at((SrcLoc){0}, "ignoring '%s' (%s)", a, ignored_because(a));
    }
}

static int check_input(const Options *opt)
{
    if (!opt->input)
        return usage_error("%s", "no input file");
    if (opt->emit == EMIT_CUDA && opt->output && strcmp(opt->output, "-") == 0)
        return usage_error("%s", "-o -: only --emit ir can write to standard output (the CUDA comes with a header)");
    return 0;
}

typedef struct Job {
    const Options *opt;
    int status;
} Job;

static void *run_job(void *data)
{
    Job *job = data;
    job->status = tilepp_translate(job->opt);
    return NULL;
}

/* The parse and every stage after it recurse along the source's syntax
 * trees, one level per operand: a 100000-character line of `x[i] + ...` is
 * 20000 levels. They run on a thread with a stack to match (address space,
 * used as the recursion goes), and libclang parses on that thread instead of
 * its own 8 MB one (LIBCLANG_NOTHREADS). Where no such thread can be made,
 * on the main thread. */
static int translate_with_deep_stack(const Options *opt)
{
    enum { STACK_BYTES = 1 << 30 };
    Job job = {opt, 1};
    pthread_attr_t attr;
    pthread_t thread;
    bool started = pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, STACK_BYTES) == 0 &&
                   setenv("LIBCLANG_NOTHREADS", "1", 1) == 0 && pthread_create(&thread, &attr, run_job, &job) == 0;
    pthread_attr_destroy(&attr);
    if (!started) {
        unsetenv("LIBCLANG_NOTHREADS");
        return tilepp_translate(opt);
    }
    pthread_join(thread, NULL);
    return job.status;
}

/* The translation, then clang's closing count ("1 warning generated.",
 * "2 errors generated.") when there was anything to count. */
static int translate(Options *opt)
{
    opt->include_dir = find_include_dir();
    int status = translate_with_deep_stack(opt);
    if (diag_error_count() || diag_warning_count()) {
        char *summary = diag_summary(diag_warning_count(), diag_error_count());
        fputs(summary, stderr);
        free(summary);
    }
    return status;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "inspect") == 0) /* a subcommand: inspect.c */
        return inspect_main(argc - 1, argv + 1, find_include_dir(), translate);
    CommandLine cl = {.opt = {.emit = EMIT_CUDA, .archs = ARCH_SM80 | ARCH_SM90A}};
    cl.opt.clang_args = anew((size_t)argc * sizeof *cl.opt.clang_args);
    int status = parse_command_line(&cl, argc, argv);
    if (!status && !cl.answered) {
        set_up_diagnostics(&cl);
        status = check_input(&cl.opt);
        if (!status)
            status = cl.emit_ptx ? emit_ptx(&cl.opt, cl.arch_list, translate) : translate(&cl.opt);
    }
    str_free(&cl.dep_target);
    diag_reset();
    arena_free_all();
    return status;
}

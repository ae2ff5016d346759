#define _POSIX_C_SOURCE 200809L
#include "cuda_tools.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "output.h"
#include "process.h"

/* ---- finding the programs ------------------------------------------------ */

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* A program an environment variable names: a path, or a name to look up
 * in PATH. Set but not found is an error the caller reports, never a
 * reason to take another copy silently. */
static Tool from_variable(const char *var, const char *value)
{
    char *path = strchr(value, '/') ? (is_executable(value) ? astrdup(value) : NULL) : find_in_dirs(value, env("PATH"));
    if (path)
        return (Tool){path, NULL, false};
    return (Tool){NULL, aprintf("%s is '%s', which is not an executable", var, value), true};
}

/* "a:b:c" from the directories that are set; NULL entries are skipped. */
static char *dir_list(const char *const *dirs, int n)
{
    Str s = {0};
    for (int i = 0; i < n; i++) {
        if (!dirs[i])
            continue;
        if (s.len)
            str_addc(&s, ':');
        str_add(&s, dirs[i]);
    }
    return atake(&s);
}

Tool find_nvcc(void)
{
    const char *cudacxx = env("CUDACXX");
    if (cudacxx)
        return from_variable("CUDACXX", cudacxx);
    const char *cuda_path = env("CUDA_PATH"), *cuda_home = env("CUDA_HOME");
    const char *dirs[] = {cuda_path ? aprintf("%s/bin", cuda_path) : NULL,
                          cuda_home ? aprintf("%s/bin", cuda_home) : NULL, env("PATH"), "/usr/local/cuda/bin"};
    char *path = find_in_dirs("nvcc", dir_list(dirs, 4));
    if (path)
        return (Tool){path, NULL, false};
    return (Tool){NULL,
                  "nvcc, the CUDA compiler, is not in $CUDA_PATH/bin, $CUDA_HOME/bin, PATH or "
                  "/usr/local/cuda/bin (install the CUDA toolkit, or set CUDACXX to nvcc's path)",
                  false};
}

Tool find_ptxas(const char *nvcc)
{
    const char *dirs[] = {dir_of(nvcc), env("PATH")};
    char *path = find_in_dirs("ptxas", dir_list(dirs, 2));
    if (path)
        return (Tool){path, NULL, false};
    return (Tool){NULL, aprintf("ptxas is neither beside %s nor on PATH", nvcc), false};
}

/* Where `python3 -m pip show <package>` says the package is installed. */
static char *pip_location(const char *package)
{
    char *python = find_in_dirs("python3", env("PATH"));
    if (!python)
        return NULL;
    const char *argv[] = {python, "-m", "pip", "show", package, NULL};
    ProcessResult r;
    if (!run_process(argv, NULL, &r) || r.status != 0)
        return NULL;
    for (const char *line = r.out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (str_starts_with(line, "Location: ")) {
            const char *v = line + 10, *end = strchr(v, '\n');
            return end ? astrndup(v, (size_t)(end - v)) : astrdup(v);
        }
    }
    return NULL;
}

/* <location>/nvidia/<any>/bin/<tool> of a PyPI package: cu12, cu13, or
 * cuda_cuobjdump in older wheels; the last name in order wins, so cu13
 * comes before cu12. */
static char *find_in_pip(const char *package, const char *tool)
{
    char *location = pip_location(package);
    if (!location)
        return NULL;
    char *nvidia = aprintf("%s/nvidia", location);
    DIR *d = opendir(nvidia);
    if (!d)
        return NULL;
    char *best = NULL, *best_name = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *candidate = aprintf("%s/%s/bin/%s", nvidia, e->d_name, tool);
        if (e->d_name[0] != '.' && is_executable(candidate) && (!best_name || strcmp(e->d_name, best_name) > 0)) {
            best = candidate;
            best_name = astrdup(e->d_name);
        }
    }
    closedir(d);
    return best;
}

/* The disassembler `tool` from the variable, the directories, or PyPI. */
static Tool find_disassembler(const char *tool, const char *var, const char *package, const char *const *dirs,
                              int ndirs)
{
    const char *setting = env(var);
    if (setting)
        return from_variable(var, setting);
    char *path = find_in_dirs(tool, dir_list(dirs, ndirs));
    if (!path)
        path = find_in_pip(package, tool);
    if (path)
        return (Tool){path, NULL, false};
    return (Tool){NULL,
                  aprintf("%s is not in the CUDA toolkit's bin, on PATH, nor a PyPI install (pip install %s, or "
                          "set %s to its path)",
                          tool, package, var),
                  false};
}

Tool find_cuobjdump(const char *nvcc)
{
    const char *dirs[] = {nvcc ? dir_of(nvcc) : NULL, env("PATH")};
    return find_disassembler("cuobjdump", "TILEPP_CUOBJDUMP", "nvidia-cuda-cuobjdump", dirs, 2);
}

Tool find_nvdisasm(const char *nvcc, const char *cuobjdump)
{
    /* Both come in one toolkit or side by side from PyPI: where
     * TILEPP_CUOBJDUMP points, nvdisasm usually is too. */
    if (!cuobjdump)
        cuobjdump = env("TILEPP_CUOBJDUMP");
    const char *dirs[] = {cuobjdump ? dir_of(cuobjdump) : NULL, nvcc ? dir_of(nvcc) : NULL, env("PATH")};
    return find_disassembler("nvdisasm", "TILEPP_NVDISASM", "nvidia-cuda-nvdisasm", dirs, 3);
}

/* ---- architectures ----------------------------------------------------------- */

const char *sm_arch_name(const char *value)
{
    if (str_starts_with(value, "sm_"))
        value += 3;
    else if (str_starts_with(value, "compute_"))
        value += 8;
    char *end;
    long number = strtol(value, &end, 10);
    bool suffix_ok = *end == '\0' || ((end[0] == 'a' || end[0] == 'f') && end[1] == '\0');
    if (end == value || !suffix_ok || number < 80 || number > 999)
        return NULL;
    /* tilepp's Hopper code needs sm_90a's wgmma and setmaxnreg: "90" is that path. */
    if (number == 90)
        return "sm_90a";
    return aprintf("sm_%ld%s", number, end);
}

char *compute_arch_name(const char *sm) { return aprintf("compute_%s", str_starts_with(sm, "sm_") ? sm + 3 : sm); }

bool parse_sm_archs(const char *list, Vec *archs, const char **bad)
{
    char *copy = astrdup(list);
    for (char *save = NULL, *tok = strtok_r(copy, ",;", &save); tok; tok = strtok_r(NULL, ",;", &save)) {
        const char *sm = sm_arch_name(tok);
        if (!sm) {
            *bad = tok;
            return false;
        }
        bool seen = false;
        for (int i = 0; i < archs->len && !seen; i++)
            seen = strcmp(archs->items[i], sm) == 0;
        if (!seen)
            vec_push(archs, (void *)sm);
    }
    *bad = list;
    return archs->len > 0;
}

/* ---- running nvcc and ptxas ------------------------------------------------------ */

/* One parse flag of the command line as nvcc spells it; `defines`: keep
 * the -D, -U and -include that a translation writes into the .cu. */
static void add_nvcc_flag(const char *a, bool defines, Vec *flags)
{
    static const char *const joined_dirs[] = {"-isystem", "-iquote", "-idirafter"};
    for (size_t i = 0; i < sizeof joined_dirs / sizeof *joined_dirs; i++) {
        if (str_starts_with(a, joined_dirs[i])) {
            /* nvcc has -isystem, and no -iquote or -idirafter: those become -I. */
            const char *dir = a + strlen(joined_dirs[i]);
            vec_push(flags, i == 0 ? "-isystem" : "-I");
            vec_push(flags, (void *)dir);
            return;
        }
    }
    if (str_starts_with(a, "-I"))
        vec_push(flags, (void *)a);
    else if (defines && (str_starts_with(a, "-D") || str_starts_with(a, "-U")))
        vec_push(flags, (void *)a);
    else if (defines && str_starts_with(a, "-include")) {
        vec_push(flags, "-include");
        vec_push(flags, (void *)(a + 8));
    }
}

void nvcc_flags(const Options *opt, const char *include_dir, bool defines, Vec *flags)
{
    vec_push(flags, "-std=c++17");
    if (include_dir)
        vec_push(flags, aprintf("-I%s", include_dir));
    vec_push(flags, aprintf("-I%s", dir_of(opt->input)));
    for (int i = 0; i < opt->nclang_args; i++)
        add_nvcc_flag(opt->clang_args[i], defines, flags);
}

/* argv from a Vec of char* and a NULL at the end. */
static const char **argv_of(const Vec *args)
{
    const char **argv = anew((size_t)(args->len + 1) * sizeof *argv);
    for (int i = 0; i < args->len; i++)
        argv[i] = args->items[i];
    return argv;
}

/* Runs a CUDA tool; on failure shows what it said and reports it. */
static bool run_tool(const Vec *args, const char *what, ProcessResult *r)
{
    const char **argv = argv_of(args);
    if (!run_process(argv, NULL, r)) {
        error_at((SrcLoc){0}, "%s", r->err);
        return false;
    }
    if (r->status == 0)
        return true;
    fputs(r->out, stderr);
    fputs(r->err, stderr);
    error_at((SrcLoc){0}, "%s failed (exit status %d): %s", what, r->status, command_text(argv));
    return false;
}

bool compile_ptx(const char *nvcc, const Vec *flags, const char *cu, const char *sm, const char *ptx)
{
    Vec args = {0};
    vec_push(&args, (void *)nvcc);
    for (int i = 0; i < flags->len; i++)
        vec_push(&args, flags->items[i]);
    char *compute = compute_arch_name(sm);
    vec_push(&args, "-ptx");
    vec_push(&args, aprintf("-arch=%s", compute));
    vec_push(&args, (void *)cu);
    vec_push(&args, "-o");
    vec_push(&args, (void *)ptx);
    ProcessResult r;
    return run_tool(&args, aprintf("nvcc (PTX for %s)", compute), &r);
}

bool assemble_cubin(const char *ptxas, const char *ptx, const char *sm, const char *cubin, char **verbose)
{
    Vec args = {0};
    const char *fixed[] = {ptxas, "-v", aprintf("-arch=%s", sm), ptx, "-o", cubin};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        vec_push(&args, (void *)fixed[i]);
    ProcessResult r;
    if (!run_tool(&args, aprintf("ptxas (%s)", sm), &r))
        return false;
    *verbose = aprintf("%s%s", r.out, r.err);
    return true;
}

/* ---- --emit ptx ------------------------------------------------------------------ */

/* -o without a ".ptx" or ".cu" suffix; by default <stem>.tile here. */
static char *ptx_base(const Options *opt)
{
    if (!opt->output) {
        char *cu = default_output_name(opt->input); /* x.tile.cu */
        return astrndup(cu, strlen(cu) - 3);
    }
    size_t n = strlen(opt->output);
    if (str_ends_with(opt->output, ".ptx"))
        n -= 4;
    else if (str_ends_with(opt->output, ".cu"))
        n -= 3;
    return astrndup(opt->output, n);
}

/* The files' text, read back from the temporary directory. */
static bool read_back(const char *from, const char *to, OutputFile *file)
{
    size_t len;
    char *text = read_file(from, &len);
    if (!text) {
        error_at((SrcLoc){0}, "cannot read %s back", from);
        return false;
    }
    *file = (OutputFile){to, astrndup(text, len)};
    free(text);
    return true;
}

static int emit_ptx_in(const char *tmp, Options *opt, const Vec *archs, const char *nvcc,
                       int (*translate)(Options *opt))
{
    char *base = ptx_base(opt);
    Options t = *opt;
    char *cu = default_output_name(opt->input); /* x.tile.cu, as nvcc's messages then name it */
    t.output = aprintf("%s/%s", tmp, cu);
    t.header = aprintf("%s/%.*s.h", tmp, (int)strlen(cu) - 3, cu);
    Str targets = {0};
    for (int i = 0; i < archs->len; i++)
        str_addf(&targets, "%s%s", i ? " " : "",
                 make_quote(aprintf("%s.%s.ptx", base, compute_arch_name(archs->items[i]))));
    t.depfile = aprintf("%s/deps.d", tmp);
    t.dep_target = opt->dep_target ? opt->dep_target : atake(&targets);
    int status = translate(&t);
    if (status)
        return status;
    Vec flags = {0};
    nvcc_flags(opt, t.include_dir, false, &flags);
    OutputFile *files = anew((size_t)(archs->len + 1) * sizeof *files);
    int n = 0;
    for (int i = 0; i < archs->len; i++) {
        char *compute = compute_arch_name(archs->items[i]);
        char *ptx = aprintf("%s/%s.ptx", tmp, compute);
        if (!compile_ptx(nvcc, &flags, t.output, archs->items[i], ptx) ||
            !read_back(ptx, aprintf("%s.%s.ptx", base, compute), &files[n++]))
            return 1;
    }
    const char *depfile = opt->depfile ? opt->depfile : aprintf("%s.d", base);
    if (opt->make_depfile && !read_back(t.depfile, depfile, &files[n++]))
        return 1;
    return write_outputs(files, n, opt->input) ? 0 : 1;
}

int emit_ptx(Options *opt, const char *arch_list, int (*translate)(Options *opt))
{
    Vec archs = {0};
    const char *bad;
    if (!parse_sm_archs(arch_list ? arch_list : "80,90a", &archs, &bad)) {
        error_at((SrcLoc){0}, "--arch: '%s' is not an architecture", bad);
        return 1;
    }
    if (opt->syntax_only)
        return translate(opt);
    /* Before translating: without nvcc nothing is written. */
    Tool nvcc = find_nvcc();
    if (!nvcc.path) {
        error_at((SrcLoc){0}, "--emit ptx needs nvcc: %s", nvcc.why);
        return 1;
    }
    char *tmp = make_temp_dir();
    if (!tmp)
        return 1;
    int status = emit_ptx_in(tmp, opt, &archs, nvcc.path, translate);
    remove_temp_dir(tmp);
    return status;
}

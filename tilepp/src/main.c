/* main.c — the tilepp command line. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "driver.h"
#include "ir.h"
#include "util.h"

static const char usage[] = "usage: tilepp [options] file.c\n"
                            "\n"
                            "Translates a C file annotated with '#pragma tile' into CUDA kernels and\n"
                            "host launchers: file.tile.cu and file.tile.h.\n"
                            "\n"
                            "options:\n"
                            "  -o FILE          write the CUDA to FILE (default: <file>.tile.cu here)\n"
                            "  --header FILE    write the launcher header to FILE (default: -o with .h)\n"
                            "  -I DIR, -D NAME[=VALUE], -U NAME, -std=STD\n"
                            "                   as for a C compiler, when parsing the file\n"
                            "  --arch LIST      GPU code paths, comma separated: 80, 90a (default 80,90a)\n"
                            "  --emit cuda|ir   what to write (default cuda; ir goes to -o or stdout)\n"
                            "  -MD, -MF FILE    also write a Make dependency file (default <output>.d)\n"
                            "  --version        print the version\n"
                            "  --help           print this help\n";

static int usage_error(const char *fmt, const char *arg)
{
    fputs("tilepp: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n(run 'tilepp --help' for the options)\n", stderr);
    return 1;
}

static bool parse_archs(const char *list, unsigned *archs)
{
    *archs = 0;
    char *copy = astrdup(list);
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "80") == 0 || strcmp(tok, "sm_80") == 0)
            *archs |= ARCH_SM80;
        else if (strcmp(tok, "90a") == 0 || strcmp(tok, "sm_90a") == 0)
            *archs |= ARCH_SM90A;
        else
            return false;
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

/* Takes the value of an option given as "-Xvalue" or "-X value". */
static const char *option_value(int argc, char **argv, int *i, const char *flag)
{
    size_t n = strlen(flag);
    if (argv[*i][n])
        return argv[*i] + n;
    if (*i + 1 < argc)
        return argv[++*i];
    return NULL;
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

int main(int argc, char **argv)
{
    Options opt = {.emit = EMIT_CUDA, .archs = ARCH_SM80 | ARCH_SM90A};
    opt.clang_args = anew((size_t)argc * 2 * sizeof *opt.clang_args);
    int status = 0;
    for (int i = 1; i < argc && !status; i++) {
        const char *a = argv[i];
        const char *v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            arena_free_all();
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("tilepp %s\n", TILEPP_VERSION);
            arena_free_all();
            return 0;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--header") == 0 || strcmp(a, "-MF") == 0 ||
                   strcmp(a, "--emit") == 0 || strcmp(a, "--arch") == 0) {
            if (i + 1 >= argc) {
                status = usage_error("option '%s' needs a value", a);
                break;
            }
            v = argv[++i];
            if (a[1] == 'o')
                opt.output = v;
            else if (strcmp(a, "--header") == 0)
                opt.header = v;
            else if (strcmp(a, "-MF") == 0)
                opt.depfile = v;
            else if (strcmp(a, "--emit") == 0) {
                if (strcmp(v, "cuda") == 0)
                    opt.emit = EMIT_CUDA;
                else if (strcmp(v, "ir") == 0)
                    opt.emit = EMIT_IR;
                else
                    status = usage_error("--emit takes 'cuda' or 'ir', not '%s'", v);
            } else if (!parse_archs(v, &opt.archs))
                status = usage_error("--arch takes a comma-separated list of 80 and 90a, not '%s'", v);
        } else if (strcmp(a, "-MD") == 0) {
            opt.make_depfile = true;
        } else if (str_starts_with(a, "-I") || str_starts_with(a, "-D") || str_starts_with(a, "-U")) {
            char flag[3] = {a[0], a[1], '\0'};
            v = option_value(argc, argv, &i, flag);
            if (!v)
                status = usage_error("option '%s' needs a value", flag);
            else {
                if (flag[1] == 'U')
                    drop_definitions(&opt, v);
                opt.clang_args[opt.nclang_args++] = aprintf("%s%s", flag, v);
            }
        } else if (str_starts_with(a, "-std=")) {
            opt.clang_args[opt.nclang_args++] = a;
        } else if (a[0] == '-' && a[1]) {
            status = usage_error("unknown option '%s'", a);
        } else if (opt.input) {
            status = usage_error("one input file at a time ('%s' is a second one)", a);
        } else
            opt.input = a;
    }
    if (!status && !opt.input)
        status = usage_error("%s", "no input file");
    if (!status && opt.emit == EMIT_CUDA && opt.output && strcmp(opt.output, "-") == 0)
        status = usage_error("%s", "-o -: only --emit ir can write to standard output (the CUDA comes with a header)");
    struct stat st;
    if (!status && stat(opt.input, &st) == 0 && S_ISDIR(st.st_mode))
        status = usage_error("'%s' is a directory, not a C file", opt.input);
    if (!status) {
        opt.include_dir = find_include_dir();
        status = tilepp_translate(&opt);
    }
    diag_reset();
    arena_free_all();
    return status;
}

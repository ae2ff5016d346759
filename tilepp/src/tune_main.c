/* tune_main.c — tilepp-tune: tunes a kernel ahead of time.
 *
 * A file with `#pragma tile tune` gets, for each tuned kernel K, an entry
 * `extern "C" int tile_tune_entry_K(int argc, const char *const *argv)` in
 * its generated CUDA. tilepp-tune dlopen()s a shared library built from it,
 * calls the entry with the NAME=VALUE arguments (the kernel's scalar
 * parameters) and exits with its status; the entry (tile_tune_offline in
 * <tilepp/tile_tune.cuh>) allocates the arrays, tunes, prints the table and
 * writes the cache. To name the kernels a library has, tilepp-tune reads the
 * library's ELF dynamic symbol table itself (64-bit little-endian files; every
 * offset and size is checked against the file).
 *
 * Plain C11 and libdl: no libclang, no CUDA (the library brings its own). */
#define _GNU_SOURCE /* dlinfo, RTLD_DI_LINKMAP */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef TILEPP_VERSION
#define TILEPP_VERSION "unknown"
#endif

#define ENTRY_PREFIX "tile_tune_entry_"

static const char usage[] = "usage: tilepp-tune [--cache DIR] LIBRARY.so KERNEL NAME=VALUE ...\n"
                            "       tilepp-tune --list LIBRARY.so\n"
                            "\n"
                            "Tunes KERNEL, a function with '#pragma tile tune' translated by tilepp and\n"
                            "built into the shared library LIBRARY.so, for the given values of its scalar\n"
                            "parameters (e.g. M=4096 N=4096 K=4096): every variant runs on random inputs\n"
                            "and is checked and timed, the table (variant, ms, TFLOP/s, status) is printed\n"
                            "and the choice is written to the tune cache, where the kernel's launcher finds\n"
                            "it at run time for every shape of the same class. The exit status is the\n"
                            "tuner's: 0 when a variant is ok, 1 when none is, 2 for a missing or malformed\n"
                            "NAME=VALUE.\n"
                            "\n"
                            "LIBRARY.so is opened as dlopen() opens it; a name without '/' that exists in\n"
                            "the current directory is taken from there.\n"
                            "\n"
                            "options:\n"
                            "  --cache DIR      the tune cache directory (sets TILEPP_TUNE_CACHE; default\n"
                            "                   $TILEPP_TUNE_CACHE, else $XDG_CACHE_HOME/tilepp/tune, else\n"
                            "                   ~/.cache/tilepp/tune)\n"
                            "  --list           print the tuned kernels LIBRARY.so exports, one a line\n"
                            "  --version        print tilepp's version\n"
                            "  --help           print this help\n"
                            "  --               what follows is LIBRARY.so, KERNEL and arguments\n";

static int usage_error(const char *fmt, const char *arg)
{
    fputs("tilepp-tune: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n(run 'tilepp-tune --help' for the usage)\n", stderr);
    return 2;
}

/* --- the ELF dynamic symbol table ---------------------------------------- */

/* The names of the kernels a library has entries for, sorted, no duplicates. */
typedef struct {
    char **names;
    size_t count;
    char error[256]; /* why the file could not be read, or "" */
} kernel_list;

static uint64_t le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Reads size bytes at offset; false (with error set) when the file is shorter. */
static int read_at(FILE *f, uint64_t file_size, uint64_t offset, uint64_t size, unsigned char *out, kernel_list *list)
{
    if (offset > file_size || size > file_size - offset) {
        snprintf(list->error, sizeof list->error, "a section lies past the end of the file");
        return 0;
    }
    if (size == 0)
        return 1;
    if (offset > (uint64_t)LONG_MAX || fseek(f, (long)offset, SEEK_SET) != 0 || fread(out, 1, size, f) != size) {
        snprintf(list->error, sizeof list->error, "read failed");
        return 0;
    }
    return 1;
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int add_name(kernel_list *list, const char *name, size_t len)
{
    char **grown = realloc(list->names, (list->count + 1) * sizeof *grown);
    if (!grown)
        return 0;
    list->names = grown;
    char *copy = malloc(len + 1);
    if (!copy)
        return 0;
    memcpy(copy, name, len);
    copy[len] = '\0';
    list->names[list->count++] = copy;
    return 1;
}

/* The largest section tilepp-tune reads (a .dynsym or .dynstr). */
#define MAX_SECTION ((uint64_t)1 << 30)

static void read_kernels(const char *path, kernel_list *list)
{
    unsigned char *syms = NULL, *strs = NULL, *shdrs = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(list->error, sizeof list->error, "%s", strerror(errno));
        return;
    }
    if (fseek(f, 0, SEEK_END) != 0) {
        snprintf(list->error, sizeof list->error, "cannot seek");
        goto done;
    }
    long end = ftell(f);
    if (end < 0) {
        snprintf(list->error, sizeof list->error, "cannot seek");
        goto done;
    }
    uint64_t file_size = (uint64_t)end;

    unsigned char eh[64];
    if (file_size < sizeof eh || !read_at(f, file_size, 0, sizeof eh, eh, list) || memcmp(eh, "\177ELF", 4) != 0) {
        snprintf(list->error, sizeof list->error, "not an ELF file");
        goto done;
    }
    if (eh[4] != 2 || eh[5] != 1) { /* EI_CLASS = ELFCLASS64, EI_DATA = ELFDATA2LSB */
        snprintf(list->error, sizeof list->error, "not a 64-bit little-endian ELF file");
        goto done;
    }
    uint64_t shoff = le(eh + 0x28, 8);
    uint64_t shentsize = le(eh + 0x3a, 2);
    uint64_t shnum = le(eh + 0x3c, 2);
    if (shoff == 0) {
        snprintf(list->error, sizeof list->error, "no section headers");
        goto done;
    }
    if (shentsize < 64) {
        snprintf(list->error, sizeof list->error, "bad section header size");
        goto done;
    }
    if (shnum == 0) { /* 0xff00 sections or more: the count is section 0's sh_size */
        unsigned char sh0[64];
        if (!read_at(f, file_size, shoff, sizeof sh0, sh0, list))
            goto done;
        shnum = le(sh0 + 0x20, 8);
    }
    if (shnum == 0 || shnum > file_size / shentsize) {
        snprintf(list->error, sizeof list->error, "bad section count");
        goto done;
    }
    shdrs = malloc(shnum * shentsize);
    if (!shdrs || !read_at(f, file_size, shoff, shnum * shentsize, shdrs, list))
        goto done;

    for (uint64_t i = 0; i < shnum; i++) {
        const unsigned char *sh = shdrs + i * shentsize;
        if (le(sh + 0x04, 4) != 11) /* sh_type != SHT_DYNSYM */
            continue;
        uint64_t sym_off = le(sh + 0x18, 8), sym_size = le(sh + 0x20, 8);
        uint64_t link = le(sh + 0x28, 4), entsize = le(sh + 0x38, 8);
        if (entsize < 24 || link >= shnum || sym_size > MAX_SECTION) {
            snprintf(list->error, sizeof list->error, "bad .dynsym section");
            goto done;
        }
        const unsigned char *strsh = shdrs + link * shentsize;
        uint64_t str_off = le(strsh + 0x18, 8), str_size = le(strsh + 0x20, 8);
        if (le(strsh + 0x04, 4) != 3 || str_size > MAX_SECTION) { /* SHT_STRTAB */
            snprintf(list->error, sizeof list->error, "bad .dynstr section");
            goto done;
        }
        syms = malloc(sym_size ? sym_size : 1);
        strs = malloc(str_size ? str_size : 1);
        if (!syms || !strs) {
            snprintf(list->error, sizeof list->error, "out of memory");
            goto done;
        }
        if (!read_at(f, file_size, sym_off, sym_size, syms, list) ||
            !read_at(f, file_size, str_off, str_size, strs, list))
            goto done;
        for (uint64_t s = 0; s + 24 <= sym_size; s += entsize) {
            const unsigned char *sym = syms + s;
            uint64_t name = le(sym, 4);
            unsigned type = sym[4] & 0xf, bind = sym[4] >> 4;
            uint64_t shndx = le(sym + 6, 2);
            /* A defined global or weak function (STT_FUNC; STB_GLOBAL, STB_WEAK). */
            if (type != 2 || (bind != 1 && bind != 2) || shndx == 0 || name >= str_size)
                continue;
            const char *text = (const char *)strs + name;
            const char *nul = memchr(text, '\0', str_size - name);
            if (!nul)
                continue;
            size_t len = (size_t)(nul - text), plen = strlen(ENTRY_PREFIX);
            if (len <= plen || strncmp(text, ENTRY_PREFIX, plen) != 0)
                continue;
            if (!add_name(list, text + plen, len - plen)) {
                snprintf(list->error, sizeof list->error, "out of memory");
                goto done;
            }
        }
        break; /* one .dynsym a file */
    }
    if (list->count > 1) {
        qsort(list->names, list->count, sizeof *list->names, compare_names);
        size_t kept = 1;
        for (size_t i = 1; i < list->count; i++) {
            if (strcmp(list->names[i], list->names[kept - 1]) == 0)
                free(list->names[i]);
            else
                list->names[kept++] = list->names[i];
        }
        list->count = kept;
    }
done:
    free(shdrs);
    free(syms);
    free(strs);
    fclose(f);
}

static void free_kernels(kernel_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->names[i]);
    free(list->names);
}

/* --- the command line ------------------------------------------------------ */

static int is_identifier(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9'))
        return 0;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    const char *cache = NULL;
    int list_only = 0;
    /* no allocation: every exit path is a plain return (LeakSanitizer) */
    const char *positional[argc + 1];
    memset(positional, 0, sizeof positional);
    int npositional = 0;
    int options_done = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (options_done || arg[0] != '-' || arg[1] == '\0') {
            positional[npositional++] = arg;
        } else if (strcmp(arg, "--") == 0) {
            options_done = 1;
        } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(arg, "--version") == 0) {
            printf("tilepp-tune %s\n", TILEPP_VERSION);
            return 0;
        } else if (strcmp(arg, "--list") == 0) {
            list_only = 1;
        } else if (strcmp(arg, "--cache") == 0) {
            if (i + 1 >= argc)
                return usage_error("%s needs a directory", arg);
            cache = argv[++i];
        } else if (strncmp(arg, "--cache=", 8) == 0) {
            cache = arg + 8;
        } else {
            return usage_error("unknown option '%s'", arg);
        }
    }
    if (cache && !*cache)
        return usage_error("%s", "--cache needs a directory");
    if (npositional == 0)
        return usage_error("%s", "no library given");
    if (list_only && npositional > 1)
        return usage_error("--list takes only the library, not '%s'", positional[1]);
    if (!list_only && npositional == 1)
        return usage_error("no kernel given (run 'tilepp-tune --list %s' for the tuned kernels it has)", positional[0]);
    const char *library = positional[0];
    const char *kernel = list_only ? NULL : positional[1];
    if (kernel && !is_identifier(kernel))
        return usage_error("'%s' is not a kernel name", kernel);
    for (int i = 2; i < npositional; i++) {
        const char *eq = strchr(positional[i], '=');
        if (!eq || eq == positional[i])
            return usage_error("'%s' is not NAME=VALUE", positional[i]);
    }

    /* Before dlopen: the library's runtime may read it as it loads. */
    if (cache && setenv("TILEPP_TUNE_CACHE", cache, 1) != 0) {
        fprintf(stderr, "tilepp-tune: error: cannot set TILEPP_TUNE_CACHE: %s\n", strerror(errno));
        return 1;
    }

    /* dlopen searches the library path for a name without '/'; a file of that
     * name here is the one meant. */
    char local_path[PATH_MAX];
    const char *local = NULL;
    if (!strchr(library, '/') && access(library, F_OK) == 0 &&
        snprintf(local_path, sizeof local_path, "./%s", library) < (int)sizeof local_path)
        local = local_path;
    void *handle = dlopen(local ? local : library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        fprintf(stderr, "tilepp-tune: error: cannot open %s: %s\n", library, why ? why : "unknown error");
        return 1;
    }
    /* The file dlopen found, for its symbol table. */
    const char *file = local ? local : library;
    struct link_map *map = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name)
        file = map->l_name;

    kernel_list kernels = {0};
    if (list_only) {
        read_kernels(file, &kernels);
        if (kernels.error[0]) {
            fprintf(stderr, "tilepp-tune: error: cannot read the symbols of %s: %s\n", library, kernels.error);
            free_kernels(&kernels);
            return 1;
        }
        for (size_t i = 0; i < kernels.count; i++)
            printf("%s\n", kernels.names[i]);
        if (kernels.count == 0)
            fprintf(stderr,
                    "tilepp-tune: error: %s has no tuned kernel (no " ENTRY_PREFIX "* function; is it built "
                    "from a file with '#pragma tile tune'?)\n",
                    library);
        int status = kernels.count ? 0 : 1;
        free_kernels(&kernels);
        return status;
    }

    char *symbol = malloc(strlen(ENTRY_PREFIX) + strlen(kernel) + 1);
    if (!symbol) {
        fputs("tilepp-tune: error: out of memory\n", stderr);
        return 1;
    }
    strcpy(symbol, ENTRY_PREFIX);
    strcat(symbol, kernel);
    typedef int (*entry_fn)(int, const char *const *);
    entry_fn entry;
    void *address = dlsym(handle, symbol);
    /* The ISO C way to turn a data pointer into a function pointer. */
    memcpy(&entry, &address, sizeof entry);
    if (!entry) {
        fprintf(stderr, "tilepp-tune: error: %s has no tuned kernel '%s' (no function %s)", library, kernel, symbol);
        read_kernels(file, &kernels);
        if (kernels.error[0] == '\0') {
            if (kernels.count == 0) {
                fputs("; it has none: is it built from a file with '#pragma tile tune'?", stderr);
            } else {
                fputs(kernels.count == 1 ? "; the one it has: " : "; the ones it has: ", stderr);
                for (size_t i = 0; i < kernels.count; i++)
                    fprintf(stderr, "%s%s", i ? ", " : "", kernels.names[i]);
            }
        }
        fputc('\n', stderr);
        free_kernels(&kernels);
        free(symbol);
        return 1;
    }
    free(symbol);

    int nargs = npositional - 2;
    int status = entry(nargs, positional + 2);
    fflush(stdout);
    /* The library stays loaded: the CUDA runtime tears down at exit. */
    return status >= 0 && status <= 255 ? status : 1;
}

/* inspect_parse.c — reading the CUDA tools' listings (see inspect.h):
 * SASS from cuobjdump and nvdisasm, PTX, cuobjdump -res-usage and
 * ptxas -v; the expectations and warnings drawn from them. Text in,
 * records out: nothing here runs a program or touches a file. */
#define _POSIX_C_SOURCE 200809L
#include "inspect.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- lines and tokens -------------------------------------------------------- */

typedef struct Lines {
    const char *p;
    Str line;
} Lines;

/* The next line without its end (and without a '\r'), or NULL at the end. */
static const char *next_line(Lines *l)
{
    if (!l->p || !*l->p) {
        str_free(&l->line);
        return NULL;
    }
    const char *nl = strchr(l->p, '\n');
    size_t n = nl ? (size_t)(nl - l->p) : strlen(l->p);
    l->line.len = 0;
    str_addn(&l->line, l->p, n);
    if (n && l->line.data[n - 1] == '\r')
        l->line.data[--l->line.len] = '\0';
    l->p += n + (nl != NULL);
    return l->line.data;
}

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* The text after `prefix` if s starts with it, else NULL. */
static const char *after(const char *s, const char *prefix)
{
    return str_starts_with(s, prefix) ? s + strlen(prefix) : NULL;
}

/* From s (blanks skipped) up to a blank or one of `stops` (arena). */
static char *token(const char *s, const char *stops)
{
    s = skip_ws(s);
    size_t n = 0;
    while (s[n] && s[n] != ' ' && s[n] != '\t' && !strchr(stops, s[n]))
        n++;
    return astrndup(s, n);
}

/* "sm_90a" from "sm_90a", "\tsm_90a, texmode..." ; NULL if none. */
static const char *arch_token(const char *s)
{
    s = skip_ws(s);
    size_t n = 0;
    while (isalnum((unsigned char)s[n]) || s[n] == '_')
        n++;
    return str_starts_with(s, "sm_") && n > 3 ? astrndup(s, n) : NULL;
}

/* ---- classification ----------------------------------------------------------- */

const char *landmark_key(Landmark family)
{
    static const char *const keys[LM_FAMILIES] = {"tensor_core", "async_copy",  "barrier",   "matrix_load",
                                                  "shuffle",     "local_store", "local_load"};
    return family >= 0 && family < LM_FAMILIES ? keys[family] : "none";
}

static const struct {
    const char *mnemonic;
    Landmark family;
} sass_table[] = {
    {"HMMA", LM_TENSOR_CORE},   {"HGMMA", LM_TENSOR_CORE},   {"IMMA", LM_TENSOR_CORE},  {"IGMMA", LM_TENSOR_CORE},
    {"DMMA", LM_TENSOR_CORE},   {"BMMA", LM_TENSOR_CORE},    {"BGMMA", LM_TENSOR_CORE}, {"QGMMA", LM_TENSOR_CORE},
    {"QMMA", LM_TENSOR_CORE},   {"OMMA", LM_TENSOR_CORE},    {"LDGSTS", LM_ASYNC_COPY}, {"UTMALDG", LM_ASYNC_COPY},
    {"UTMASTG", LM_ASYNC_COPY}, {"UTMAREDG", LM_ASYNC_COPY}, {"UBLKCP", LM_ASYNC_COPY}, {"UBLKRED", LM_ASYNC_COPY},
    {"BAR", LM_BARRIER},        {"SYNCS", LM_BARRIER},       {"ARRIVES", LM_BARRIER},   {"LDSM", LM_MATRIX_LOAD},
    {"STSM", LM_MATRIX_LOAD},   {"SHFL", LM_SHUFFLE},        {"STL", LM_LOCAL_STORE},   {"LDL", LM_LOCAL_LOAD},
};

Landmark sass_landmark(const char *opcode, const char **mnemonic)
{
    size_t n = strcspn(opcode, ". \t;");
    for (size_t i = 0; i < sizeof sass_table / sizeof *sass_table; i++) {
        if (strlen(sass_table[i].mnemonic) == n && strncmp(opcode, sass_table[i].mnemonic, n) == 0) {
            *mnemonic = sass_table[i].mnemonic;
            return sass_table[i].family;
        }
    }
    /* Blackwell's tcgen05 products: UTCHMMA, UTCQMMA, UTCIMMA, ... */
    char *base = astrndup(opcode, n);
    if (str_starts_with(base, "UTC") && strstr(base, "MMA")) {
        *mnemonic = base;
        return LM_TENSOR_CORE;
    }
    *mnemonic = NULL;
    return LM_NONE;
}

/* Longer prefixes first: the first that matches decides. A NULL family
 * entry is not a landmark (the waits and commits of cp.async are
 * bookkeeping, not copies). */
static const struct {
    const char *prefix;
    const char *mnemonic;
    Landmark family;
} ptx_table[] = {
    {"wgmma.mma_async", "wgmma.mma_async", LM_TENSOR_CORE},
    {"mma.sync", "mma.sync", LM_TENSOR_CORE},
    {"wmma.mma", "wmma.mma", LM_TENSOR_CORE},
    {"tcgen05.mma", "tcgen05.mma", LM_TENSOR_CORE},
    {"cp.async.bulk.tensor", "cp.async.bulk.tensor", LM_ASYNC_COPY},
    {"cp.async.bulk.commit_group", NULL, LM_NONE},
    {"cp.async.bulk.wait_group", NULL, LM_NONE},
    {"cp.async.bulk.prefetch", NULL, LM_NONE},
    {"cp.async.bulk", "cp.async.bulk", LM_ASYNC_COPY},
    {"cp.reduce.async.bulk", "cp.reduce.async.bulk", LM_ASYNC_COPY},
    {"cp.async.commit_group", NULL, LM_NONE},
    {"cp.async.wait_group", NULL, LM_NONE},
    {"cp.async.wait_all", NULL, LM_NONE},
    {"cp.async.mbarrier.arrive", "cp.async.mbarrier.arrive", LM_BARRIER},
    {"cp.async.", "cp.async", LM_ASYNC_COPY},
    {"mbarrier.", "mbarrier", LM_BARRIER},
    {"barrier.", "barrier", LM_BARRIER},
    {"bar.", "bar", LM_BARRIER},
    {"ldmatrix", "ldmatrix", LM_MATRIX_LOAD},
    {"stmatrix", "stmatrix", LM_MATRIX_LOAD},
    {"shfl.sync", "shfl.sync", LM_SHUFFLE},
    {"st.local", "st.local", LM_LOCAL_STORE},
    {"ld.local", "ld.local", LM_LOCAL_LOAD},
};

Landmark ptx_landmark(const char *opcode, const char **mnemonic)
{
    for (size_t i = 0; i < sizeof ptx_table / sizeof *ptx_table; i++) {
        if (str_starts_with(opcode, ptx_table[i].prefix)) {
            *mnemonic = ptx_table[i].mnemonic;
            return ptx_table[i].family;
        }
    }
    *mnemonic = NULL;
    return LM_NONE;
}

/* ---- records ------------------------------------------------------------------- */

KernelReport *find_kernel(const InspectReport *r, const char *mangled, const char *arch)
{
    for (int i = r->kernels.len - 1; i >= 0; i--) {
        KernelReport *k = r->kernels.items[i];
        if (strcmp(k->mangled, mangled) == 0 && strcmp(k->arch, arch) == 0)
            return k;
    }
    return NULL;
}

static KernelReport *new_kernel(InspectReport *r, const char *mangled, const char *arch)
{
    KernelReport *k = anew(sizeof *k);
    k->mangled = astrdup(mangled);
    k->name = demangle_name(mangled);
    k->arch = arch ? arch : "unknown";
    k->registers = k->shared_bytes = k->stack_bytes = -1;
    k->spill_store_bytes = k->spill_load_bytes = k->dynamic_shared_bytes = -1;
    vec_push(&r->kernels, k);
    return k;
}

/* One instruction of k: counted, and its family if it has one. */
static void count_instruction(KernelReport *k, Landmark family, const char *mnemonic)
{
    k->instructions++;
    if (family == LM_NONE)
        return;
    k->counts[family]++;
    for (int i = 0; i < k->ops.len; i++) {
        OpCount *c = k->ops.items[i];
        if (strcmp(c->mnemonic, mnemonic) == 0) {
            c->count++;
            return;
        }
    }
    /* Kept in family order (tensor cores first), then in order of appearance. */
    OpCount *c = anew(sizeof *c);
    *c = (OpCount){mnemonic, family, 1};
    vec_push(&k->ops, c);
    int at = k->ops.len - 1;
    for (; at > 0 && ((OpCount *)k->ops.items[at - 1])->family > family; at--)
        k->ops.items[at] = k->ops.items[at - 1];
    k->ops.items[at] = c;
}

/* ---- SASS ---------------------------------------------------------------------- */

/* The instruction of a listing line, "/ *0a30* /  @!P0 HMMA.16816.F32 R4, ...":
 * its opcode ("HMMA.16816.F32", arena memory), or NULL when the line is
 * something else: a label, a directive, the second half of an encoding
 * ("/ * 0x000fe2... * /", with a blank after the comment's start). */
static char *sass_opcode(const char *t)
{
    if (t[0] != '/' || t[1] != '*' || !isxdigit((unsigned char)t[2]))
        return NULL;
    const char *p = t + 2;
    while (isxdigit((unsigned char)*p))
        p++;
    if (p[0] != '*' || p[1] != '/')
        return NULL;
    p = skip_ws(p + 2);
    if (*p == '{') /* the dual-issue pairs of older listings */
        p = skip_ws(p + 1);
    if (*p == '@') { /* a predicate: @P0, @!UP1, @!PT */
        p += strcspn(p, " \t");
        p = skip_ws(p);
    }
    if (!isupper((unsigned char)*p))
        return NULL;
    return token(p, ";}");
}

/* The function a SASS listing line starts: cuobjdump's "Function : NAME",
 * nvdisasm's ".section .text.NAME,...". Sets *other when the line starts
 * some other section (nvdisasm's .nv.info: no instructions of a kernel). */
static char *sass_function(const char *t, bool *other)
{
    const char *v;
    *other = false;
    if ((v = after(t, "Function :")))
        return token(v, "");
    if ((v = after(t, ".section")) && (*v == ' ' || *v == '\t')) { /* not .sectioninfo, .sectionflags */
        const char *text = after(skip_ws(v), ".text.");
        *other = !text;
        return text ? token(text, ",\"") : NULL;
    }
    *other = str_starts_with(t, "Fatbin ");
    return NULL;
}

void parse_sass(const char *text, const char *default_arch, InspectReport *r)
{
    const char *arch = default_arch;
    KernelReport *k = NULL;
    Lines lines = {text, {0}};
    for (const char *line; (line = next_line(&lines));) {
        const char *t = skip_ws(line), *v, *a;
        bool other;
        char *function, *opcode;
        if (((v = after(t, "code for ")) || (v = after(t, "arch = ")) || (v = after(t, ".target"))) &&
            (a = arch_token(v)))
            arch = a;
        else if ((function = sass_function(t, &other)))
            k = new_kernel(r, function, arch);
        else if (other)
            k = NULL;
        else if (k && (opcode = sass_opcode(t))) {
            const char *mnemonic;
            count_instruction(k, sass_landmark(opcode, &mnemonic), mnemonic);
        }
    }
}

/* ---- PTX ----------------------------------------------------------------------- */

/* The name of the kernel a PTX line declares (".visible .entry NAME("). */
static char *ptx_entry(const char *t)
{
    if (*t != '.')
        return NULL;
    const char *e = strstr(t, ".entry");
    if (!e || (e[6] != ' ' && e[6] != '\t'))
        return NULL;
    char *name = token(e + 6, "(");
    return *name ? name : NULL;
}

/* The opcode of a PTX instruction line ("@%p1 bra $L__BB0_2;" -> "bra"),
 * or NULL for directives, labels, braces and comments. */
static char *ptx_opcode(const char *t)
{
    if (*t == '@') {
        t += strcspn(t, " \t");
        t = skip_ws(t);
    }
    if (!islower((unsigned char)*t))
        return NULL;
    char *op = token(t, ";,{");
    return op[strlen(op) - 1] == ':' ? NULL : op; /* a label */
}

static int count_char(const char *s, char c)
{
    int n = 0;
    for (; *s; s++)
        n += *s == c;
    return n;
}

void parse_ptx(const char *text, const char *default_arch, InspectReport *r)
{
    const char *arch = default_arch, *v, *a;
    KernelReport *k = NULL;
    int depth = 0; /* braces open in the entry's body; 0 before its '{' */
    Lines lines = {text, {0}};
    for (const char *line; (line = next_line(&lines));) {
        const char *t = skip_ws(line);
        char *entry, *opcode;
        if ((v = after(t, ".target")) && (a = arch_token(v))) {
            arch = a;
        } else if (!k) {
            if ((entry = ptx_entry(t))) {
                k = new_kernel(r, entry, arch);
                depth = 0;
            }
        } else {
            bool in_body = depth > 0;
            if (in_body && (opcode = ptx_opcode(t))) {
                const char *mnemonic;
                count_instruction(k, ptx_landmark(opcode, &mnemonic), mnemonic);
            }
            depth += count_char(t, '{') - count_char(t, '}');
            if ((in_body || depth > 0) && depth <= 0)
                k = NULL;
        }
    }
}

/* ---- resources ------------------------------------------------------------------- */

/* The number after `key` in a line ("REG:255"), or -1. */
static long long field(const char *line, const char *key)
{
    const char *at = strstr(line, key);
    return at ? atoll(at + strlen(key)) : -1;
}

void parse_res_usage(const char *text, const char *default_arch, InspectReport *r)
{
    const char *arch = default_arch, *v, *a;
    char *function = NULL;
    Lines lines = {text, {0}};
    for (const char *line; (line = next_line(&lines));) {
        const char *t = skip_ws(line);
        if ((v = after(t, "arch = ")) && (a = arch_token(v)))
            arch = a;
        else if ((v = after(t, "Function ")))
            function = token(v, ":");
        else if (function && strstr(t, "REG:")) {
            KernelReport *k = arch ? find_kernel(r, function, arch) : NULL;
            if (k) {
                k->registers = field(t, "REG:");
                k->stack_bytes = field(t, "STACK:");
                k->shared_bytes = field(t, "SHARED:");
                k->has_resources = true;
            }
            function = NULL;
        }
    }
}

/* The number before `what` in a line ("4096 bytes smem"), or -1. */
static long long number_before(const char *line, const char *what)
{
    const char *at = strstr(line, what);
    if (!at)
        return -1;
    const char *p = at;
    while (p > line && p[-1] == ' ')
        p--;
    while (p > line && isdigit((unsigned char)p[-1]))
        p--;
    return isdigit((unsigned char)*p) ? atoll(p) : -1;
}

/* "Compiling entry function 'NAME' for 'sm_90a'": the record of NAME. */
static KernelReport *ptxas_entry(const char *line, InspectReport *r)
{
    const char *v = strstr(line, "Compiling entry function '");
    if (!v)
        return NULL;
    v += strlen("Compiling entry function '");
    const char *end = strchr(v, '\'');
    const char *for_arch = end ? strstr(end, "for '") : NULL;
    if (!end || !for_arch)
        return NULL;
    char *name = astrndup(v, (size_t)(end - v));
    const char *arch = arch_token(for_arch + 5);
    if (!arch)
        return NULL;
    KernelReport *k = find_kernel(r, name, arch);
    return k ? k : new_kernel(r, name, arch);
}

void parse_ptxas_verbose(const char *text, InspectReport *r)
{
    KernelReport *entry = NULL, *k;
    bool properties = false; /* the "Function properties" lines are the entry's own */
    Lines lines = {text, {0}};
    for (const char *line; (line = next_line(&lines));) {
        const char *v;
        if ((k = ptxas_entry(line, r))) {
            entry = k;
            properties = false;
        } else if ((v = strstr(line, "Function properties for "))) {
            char *name = token(v + strlen("Function properties for "), "");
            properties = entry && strcmp(name, entry->mangled) == 0;
        } else if (properties && strstr(line, "bytes stack frame")) {
            entry->stack_bytes = number_before(line, "bytes stack frame");
            entry->spill_store_bytes = number_before(line, "bytes spill stores");
            entry->spill_load_bytes = number_before(line, "bytes spill loads");
        } else if (entry && (v = strstr(line, "Used ")) && strstr(v, "registers")) {
            entry->registers = atoll(v + 5);
            long long smem = number_before(v, "bytes smem");
            entry->shared_bytes = smem < 0 ? 0 : smem;
            entry->has_resources = true;
        }
    }
}

/* ---- names ---------------------------------------------------------------------- */

/* A reader of the Itanium C++ ABI's mangled names, as far as kernel names
 * need it: (nested) source names, template arguments that are integer
 * literals or types. Anything else fails, and the caller keeps the
 * mangled name. */
typedef struct Demangler {
    const char *p;
    Str out;
    bool failed;
} Demangler;

static void dm_type(Demangler *d);

static long dm_number(Demangler *d)
{
    bool negative = *d->p == 'n';
    if (negative)
        d->p++;
    if (!isdigit((unsigned char)*d->p)) {
        d->failed = true;
        return 0;
    }
    long n = strtol(d->p, (char **)&d->p, 10);
    return negative ? -n : n;
}

static void dm_source_name(Demangler *d)
{
    long n = dm_number(d);
    if (d->failed || n <= 0 || (long)strnlen(d->p, (size_t)n) < n) {
        d->failed = true;
        return;
    }
    if (str_starts_with(d->p, "_GLOBAL__N"))
        str_add(&d->out, "(anonymous namespace)");
    else
        str_addn(&d->out, d->p, (size_t)n);
    d->p += n;
}

/* An integer literal template argument, after its 'L': "i16E" -> "16". */
static void dm_literal(Demangler *d)
{
    static const struct {
        char code;
        const char *before, *after;
    } forms[] = {{'i', "", ""},
                 {'j', "", "u"},
                 {'l', "", "l"},
                 {'m', "", "ul"},
                 {'x', "", "ll"},
                 {'y', "", "ull"},
                 {'s', "(short)", ""},
                 {'t', "(unsigned short)", ""},
                 {'c', "(char)", ""},
                 {'a', "(signed char)", ""},
                 {'h', "(unsigned char)", ""}};
    if (!*d->p) {
        d->failed = true;
        return;
    }
    char code = *d->p++;
    if (code == 'b') {
        long v = dm_number(d);
        str_add(&d->out, v ? "true" : "false");
    } else {
        size_t i = 0;
        while (i < sizeof forms / sizeof *forms && forms[i].code != code)
            i++;
        if (i == sizeof forms / sizeof *forms) {
            d->failed = true;
            return;
        }
        long v = dm_number(d);
        str_addf(&d->out, "%s%ld%s", forms[i].before, v, forms[i].after);
    }
    if (*d->p++ != 'E')
        d->failed = true;
}

static void dm_template_args(Demangler *d)
{
    d->p++; /* 'I' */
    str_addc(&d->out, '<');
    for (bool first = true; !d->failed && *d->p != 'E'; first = false) {
        if (!*d->p) {
            d->failed = true;
            return;
        }
        if (!first)
            str_add(&d->out, ", ");
        if (*d->p == 'L') {
            d->p++;
            dm_literal(d);
        } else
            dm_type(d);
    }
    d->p++; /* 'E' */
    /* "a<b<c> >" as C++03 needed; c++filt writes it so too. */
    if (d->out.len && d->out.data[d->out.len - 1] == '>')
        str_addc(&d->out, ' ');
    str_addc(&d->out, '>');
}

static void dm_nested(Demangler *d)
{
    d->p++; /* 'N' */
    while (*d->p == 'r' || *d->p == 'V' || *d->p == 'K')
        d->p++;
    for (bool first = true; !d->failed && *d->p != 'E'; first = false) {
        if (*d->p == 'I') {
            dm_template_args(d);
            continue;
        }
        if (!first)
            str_add(&d->out, "::");
        if (str_starts_with(d->p, "St")) {
            str_add(&d->out, "std");
            d->p += 2;
        } else
            dm_source_name(d);
    }
    if (!d->failed)
        d->p++; /* 'E' */
}

static void dm_type(Demangler *d)
{
    static const char *const builtins[26] = {['a' - 'a'] = "signed char",    ['b' - 'a'] = "bool",
                                             ['c' - 'a'] = "char",           ['d' - 'a'] = "double",
                                             ['e' - 'a'] = "long double",    ['f' - 'a'] = "float",
                                             ['h' - 'a'] = "unsigned char",  ['i' - 'a'] = "int",
                                             ['j' - 'a'] = "unsigned int",   ['l' - 'a'] = "long",
                                             ['m' - 'a'] = "unsigned long",  ['s' - 'a'] = "short",
                                             ['t' - 'a'] = "unsigned short", ['v' - 'a'] = "void",
                                             ['x' - 'a'] = "long long",      ['y' - 'a'] = "unsigned long long"};
    char c = *d->p;
    if (c >= 'a' && c <= 'z' && builtins[c - 'a']) {
        str_add(&d->out, builtins[c - 'a']);
        d->p++;
    } else if (c == 'K' || c == 'P' || c == 'R') {
        d->p++;
        if (c == 'K')
            str_add(&d->out, "const ");
        dm_type(d);
        if (c != 'K')
            str_add(&d->out, c == 'P' ? "*" : "&");
    } else if (c == 'N') {
        dm_nested(d);
    } else if (isdigit((unsigned char)c)) {
        dm_source_name(d);
        if (*d->p == 'I')
            dm_template_args(d);
    } else
        d->failed = true; /* substitutions, function types, ...: not in kernel names */
}

char *demangle_name(const char *mangled)
{
    if (!str_starts_with(mangled, "_Z"))
        return astrdup(mangled);
    Demangler d = {mangled + 2, {0}, false};
    if (*d.p == 'L') /* internal linkage */
        d.p++;
    if (*d.p == 'N')
        dm_nested(&d);
    else {
        dm_source_name(&d);
        if (!d.failed && *d.p == 'I')
            dm_template_args(&d);
    }
    char *name = d.failed ? astrdup(mangled) : astrdup(str_cstr(&d.out));
    str_free(&d.out);
    return name;
}

/* The name without its template arguments (arena). */
static char *base_of(const char *name) { return astrndup(name, strcspn(name, "<")); }

/* Whether `s` ends with "<digits>" after position `from`; the digits' value. */
static bool digits_to_end(const char *s, int *value)
{
    if (!*s)
        return false;
    for (const char *p = s; *p; p++)
        if (!isdigit((unsigned char)*p))
            return false;
    *value = atoi(s);
    return true;
}

/* "tile_tune_gemm_v3::tile_gemm_grid0" -> "tile_gemm_grid0", *variant 3: a
 * tune point's variant lives in a namespace of its own (emit_tune.c). */
static char *strip_tune_namespace(char *base, bool *tuned, int *variant)
{
    char *colons = strstr(base, "::");
    if (!colons || !str_starts_with(base, "tile_tune_"))
        return base;
    *colons = '\0';
    char *v = strrchr(base, '_');
    if (v && v[1] == 'v' && digits_to_end(v + 2, variant))
        *tuned = true;
    return colons + 2;
}

TileOrigin tile_origin(const char *name)
{
    TileOrigin o = {0};
    char *base = strip_tune_namespace(base_of(name), &o.tuned, &o.variant);
    if (!str_starts_with(base, "tile_"))
        return o;
    char *rest = base + 5;
    size_t n = strlen(rest);
    if (str_ends_with(rest, "_sm90")) {
        o.sm90 = true;
        rest[n -= 5] = '\0';
    } else if (str_ends_with(rest, "_combine")) {
        o.construct = "combine";
        rest[n -= 8] = '\0';
    }
    char *underscore = strrchr(rest, '_');
    if (!underscore || underscore == rest)
        return (TileOrigin){0};
    const char *suffix = underscore + 1;
    if (str_starts_with(suffix, "grid") && !o.construct && digits_to_end(suffix + 4, &o.index))
        o.construct = "grid";
    else if (!o.sm90 && digits_to_end(suffix, &o.index))
        o.construct = o.construct ? o.construct : "parallel";
    else
        return (TileOrigin){0};
    o.kernel = astrndup(rest, (size_t)(underscore - rest));
    o.known = true;
    return o;
}

/* ---- expectations and warnings ------------------------------------------------------ */

static bool has_kernel_named(const InspectReport *r, const char *base)
{
    for (int i = 0; i < r->kernels.len; i++)
        if (strcmp(base_of(((KernelReport *)r->kernels.items[i])->name), base) == 0)
            return true;
    return false;
}

static void expect_from_source(KernelReport *k, const KernelSource *s)
{
    k->source_line = s->line;
    k->dynamic_shared_bytes = s->dynamic_shared_bytes;
    if (s->gemm && !k->want_tc)
        k->want_tc = aprintf("its block at %s:%d has a tile_gemm", s->file, s->line);
    if (s->pipelined && !k->want_cp)
        k->want_cp = aprintf("its block at %s:%d has a pipelined loop", s->file, s->line);
}

/* tilepp writes tile_<k>_grid<s>_sm90 only for a block whose pipelined
 * loop has a tile_gemm (lower_sm90.c): the names alone say what to expect
 * of it and of tile_<k>_grid<s>. */
static void expect_from_names(const InspectReport *r, KernelReport *k)
{
    if (!k->origin.known || strcmp(k->origin.construct, "grid") != 0)
        return;
    if (!k->origin.sm90 && !has_kernel_named(r, aprintf("%s_sm90", base_of(k->name))))
        return;
    const char *why = "tilepp wrote an sm_90a variant of its block, which it does for a pipelined tile_gemm only";
    if (!k->want_tc)
        k->want_tc = why;
    if (!k->want_cp)
        k->want_cp = why;
}

static void expect_from_other_archs(const InspectReport *r, KernelReport *k)
{
    for (int i = 0; i < r->kernels.len && !k->want_tc; i++) {
        const KernelReport *o = r->kernels.items[i];
        if (o != k && o->counts[LM_TENSOR_CORE] > 0 && strcmp(o->mangled, k->mangled) == 0 &&
            strcmp(o->arch, k->arch) != 0)
            k->want_tc = aprintf("it has tensor-core instructions on %s", o->arch);
    }
}

void apply_expectations(InspectReport *r, const KernelSource *sources, int nsources)
{
    for (int i = 0; i < r->kernels.len; i++) {
        KernelReport *k = r->kernels.items[i];
        k->origin = tile_origin(k->name);
        k->stub = k->origin.known && k->origin.sm90 && strcmp(k->arch, "sm_90a") != 0;
        char *base = base_of(k->name);
        for (int j = 0; j < nsources; j++)
            if (strcmp(sources[j].kernel_name, base) == 0)
                expect_from_source(k, &sources[j]);
        expect_from_names(r, k);
    }
    for (int i = 0; i < r->kernels.len; i++) {
        KernelReport *k = r->kernels.items[i];
        if (k->stub)
            k->want_tc = k->want_cp = NULL;
        else
            expect_from_other_archs(r, k);
    }
}

static void add_warning(Vec *out, const KernelReport *k, const char *kind, char *message)
{
    InspectWarning *w = anew(sizeof *w);
    *w = (InspectWarning){k, kind, message};
    vec_push(out, w);
}

void inspect_warnings(const InspectReport *r, Vec *out)
{
    bool sass = r->view == VIEW_SASS;
    for (int i = 0; i < r->kernels.len; i++) {
        const KernelReport *k = r->kernels.items[i];
        if (k->spill_store_bytes > 0 || k->spill_load_bytes > 0)
            add_warning(out, k, "spills",
                        aprintf("%lld bytes spill stores, %lld bytes spill loads (%lld registers)",
                                k->spill_store_bytes, k->spill_load_bytes, k->registers));
        else if (k->spill_store_bytes < 0 && k->counts[LM_LOCAL_STORE] > 0)
            /* A binary records no spill sizes: local-memory stores are the sign. */
            add_warning(out, k, "local_memory",
                        aprintf("%d local-memory stores and %d loads (%s) with a %lld-byte stack frame: register "
                                "spills, or an array in local memory",
                                k->counts[LM_LOCAL_STORE], k->counts[LM_LOCAL_LOAD], sass ? "STL/LDL" : "st/ld.local",
                                k->stack_bytes));
        if (k->want_tc && k->counts[LM_TENSOR_CORE] == 0)
            add_warning(out, k, "no_tensor_core", aprintf("no tensor-core instruction, though %s", k->want_tc));
        if (k->want_cp && k->counts[LM_ASYNC_COPY] == 0)
            add_warning(out, k, "no_async_copy", aprintf("no asynchronous copy, though %s", k->want_cp));
    }
}

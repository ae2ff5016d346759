/* build_prelude.c — the prelude: what device code needs from the rest of the
 * file (macros, includes, helper functions, types, constant tables). */
#include "build_internal.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The prelude: what device code needs from the rest of the file             */
/* ------------------------------------------------------------------------ */

typedef struct PreludeItem {
    CXCursor cursor;
    unsigned begin;
} PreludeItem;

typedef struct Closure {
    Builder *b;
    Vec items; /* PreludeItem*: top-level declarations the kernels use */
    Vec path;  /* CXCursor*: the kernel, then the functions being closed over, each called by the one before */
    bool failed;
} Closure;

/* A const object: for an array, its elements are const. */
bool is_const_object(CXType t)
{
    while (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray || t.kind == CXType_VariableArray)
        t = clang_getArrayElementType(t);
    return clang_isConstQualifiedType(t);
}

static bool is_kernel_function(Builder *b, CXCursor fn) { return fe_pragma_on(b->fe, fn, PRAGMA_KERNEL) != NULL; }

static CXCursor top_level_of(CXCursor d)
{
    for (int guard = 0; guard < 64; guard++) {
        CXCursor parent = clang_getCursorSemanticParent(d);
        if (clang_Cursor_isNull(parent) || kind_of(parent) == CXCursor_TranslationUnit)
            return d;
        d = parent;
    }
    return d;
}

static void close_over(Closure *cl, CXCursor root);

static bool in_tile_header(Builder *b, CXCursor d)
{
    const char *file = fe_cursor_loc(b->fe, d).file;
    return file && (str_ends_with(file, "tilepp/tile.h") || str_ends_with(file, "tilepp/tile_ops.h"));
}

bool defined_here(Builder *b, CXCursor fn, CXCursor user)
{
    CXCursor def = clang_getCursorDefinition(fn);
    if (!clang_Cursor_isNull(def) && fe_in_main_file(b->fe, def))
        return true;
    /* tilepp makes the file's own functions device functions; others stay host code */
    if (clang_Cursor_isNull(def))
        error_at(loc_of(b, user), "kernels can call only functions defined in this file; '%s' has no definition here",
                 spelling(fn));
    else
        error_at(loc_of(b, user), "kernels can call only functions defined in this file; '%s' is defined in '%s'",
                 spelling(fn), fe_cursor_loc(b->fe, def).file);
    return false;
}

/* Where `f` stands in the call path being closed over, or -1. */
static int on_path(const Closure *cl, CXCursor f)
{
    for (int i = 0; i < cl->path.len; i++)
        if (clang_equalCursors(*(CXCursor *)cl->path.items[i], f))
            return i;
    return -1;
}

static void close_over_function(Closure *cl, CXCursor fn)
{
    CXCursor *saved = anew(sizeof *saved);
    *saved = fn;
    vec_push(&cl->path, saved);
    close_over(cl, fn);
    cl->path.len--;
}

/* A call of a function that is still running: recursion. GPU threads have a
 * stack of a few KB (the C run has megabytes), so a recursion that is fine
 * on the CPU would overflow it at some depth: refused, with the cycle. */
static void refuse_recursion(Closure *cl, int from, CXCursor user)
{
    Str chain = {0};
    str_addf(&chain, "'%s' calls ", spelling(*(CXCursor *)cl->path.items[from]));
    for (int i = from + 1; i < cl->path.len; i++)
        str_addf(&chain, "'%s', which calls ", spelling(*(CXCursor *)cl->path.items[i]));
    if (from == cl->path.len - 1)
        str_add(&chain, "itself");
    else
        str_addf(&chain, "'%s'", spelling(*(CXCursor *)cl->path.items[from]));
    error_at(loc_of(cl->b, user),
             "recursion is not supported in kernels: %s (a GPU thread's stack holds a few KB; write the recursion as "
             "a loop)",
             atake(&chain));
    cl->failed = true;
}

static void add_to_prelude(Closure *cl, CXCursor d, CXCursor user)
{
    Builder *b = cl->b;
    if (kind_of(d) == CXCursor_FunctionDecl) {
        CXCursor def = clang_getCursorDefinition(d);
        if (clang_Location_isInSystemHeader(clang_getCursorLocation(d)) || str_starts_with(spelling(d), "__builtin_"))
            return; /* the C library and the compiler's builtins (INFINITY): CUDA has device versions */
        if (in_tile_header(b, d))
            return; /* the language's own functions: the device runtime has them */
        if (!defined_here(b, d, user)) {
            cl->failed = true;
            return;
        }
        d = def;
        if (is_kernel_function(b, d) && on_path(cl, d) == 0) {
            error_at(loc_of(b, user), "a kernel cannot call itself ('%s'): recursion is not supported in kernels",
                     spelling(d));
            cl->failed = true;
            return;
        }
        if (is_kernel_function(b, d)) {
            error_at(loc_of(b, user), "a kernel cannot call another kernel ('%s')", spelling(d));
            cl->failed = true;
            return;
        }
        if (on_path(cl, d) >= 0) {
            refuse_recursion(cl, on_path(cl, d), user);
            return;
        }
    }
    if (!fe_in_main_file(b->fe, d))
        return; /* comes with the #include that declared it */
    CXCursor top = top_level_of(d);
    if (kind_of(top) == CXCursor_FunctionDecl && is_kernel_function(b, top))
        return; /* a parameter or local of a kernel */
    if (kind_of(top) == CXCursor_VarDecl && !is_const_object(clang_getCursorType(top))) {
        error_at(loc_of(b, user),
                 "kernels cannot use the global variable '%s': the GPU does not see the CPU's globals; pass it as a "
                 "parameter (or make it const, if it is a constant)",
                 spelling(top));
        cl->failed = true;
        return;
    }
    for (int i = 0; i < cl->items.len; i++)
        if (clang_equalCursors(((PreludeItem *)cl->items.items[i])->cursor, top))
            return;
    PreludeItem *item = anew(sizeof *item);
    unsigned end;
    item->cursor = top;
    fe_cursor_range(b->fe, top, &item->begin, &end);
    vec_push(&cl->items, item);
    if (kind_of(top) == CXCursor_FunctionDecl)
        close_over_function(cl, top);
    else
        close_over(cl, top);
}

/* Written by a macro of tile.h (its operations expand to calls of its own,
 * some through _Generic), not by the user. */
static bool spelled_in_tile_header(CXCursor c)
{
    CXFile file;
    clang_getSpellingLocation(clang_getCursorLocation(c), &file, NULL, NULL, NULL);
    if (!file)
        return false;
    char *name = cx_take(clang_getFileName(file));
    return str_ends_with(name, "tilepp/tile.h") || str_ends_with(name, "tilepp/tile_ops.h");
}

/* A function of the C library's headers that CUDA device code lacks (its
 * math library, printf, malloc, free, memcpy, memset and clock it has):
 * refused by name here rather than left for nvcc to reject. */
static bool host_only_function(CXCursor fn)
{
    static const char *const names[] = {
        "puts",   "putchar", "fputs",   "fputc",  "putc",    "fwrite",  "fread",   "fopen",    "fclose",
        "fflush", "fgets",   "fgetc",   "getc",   "getchar", "perror",  "remove",  "rename",   "rand",
        "srand",  "rand_r",  "time",    "exit",   "_Exit",   "abort",   "atexit",  "system",   "getenv",
        "atoi",   "atol",    "atoll",   "atof",   "strtol",  "strtoul", "strtoll", "strtoull", "strtod",
        "strtof", "qsort",   "bsearch", "calloc", "realloc", "strdup",  "strlen",  "strcmp",   "strncmp",
        "strcpy", "strncpy", "strcat",  "strchr", "strstr",  "sleep",   "usleep",  NULL,
    };
    return clang_Location_isInSystemHeader(clang_getCursorLocation(fn)) && word_in(spelling(fn), names);
}

/* A call the GPU code cannot make as the C does: through a function
 * pointer (tilepp cannot see which function it reaches, nor make that one a
 * device function), or of a variadic function (CUDA device code has no
 * va_arg; its printf is the exception, and prints from the GPU). False if
 * refused. */
static bool check_call(Closure *cl, CXCursor call)
{
    Builder *b = cl->b;
    if (spelled_in_tile_header(call))
        return true;
    CXCursor fn = clang_getCursorReferenced(call);
    if (clang_Cursor_isNull(fn) || kind_of(fn) != CXCursor_FunctionDecl) {
        Children ch = children_of(call);
        CXCursor callee = ch.n ? strip(ch.items[0]) : clang_getNullCursor();
        CXCursor decl = kind_of(callee) == CXCursor_DeclRefExpr ? clang_getCursorReferenced(callee) : callee;
        if (kind_of(decl) == CXCursor_ParmDecl && is_kernel_function(b, clang_getCursorSemanticParent(decl)))
            return false; /* a kernel's function pointer parameter, refused as such (build_ir.c) */
        error_at(loc_of(b, call),
                 "a call through a function pointer: tilepp cannot tell which function it calls; kernels call "
                 "functions by name (the file's own, and the C math library)");
        cl->failed = true;
        return false;
    }
    if (in_tile_header(b, fn))
        return true; /* tile.h's own functions: the device runtime has them */
    if (host_only_function(fn)) {
        error_at(loc_of(b, call),
                 "'%s' is a C library function that CUDA device code does not have (kernels may call the math "
                 "library, printf, malloc, free, memcpy and memset, and the file's own functions)",
                 spelling(fn));
        cl->failed = true;
        return false;
    }
    if (!clang_Cursor_isVariadic(fn))
        return true;
    char *name = spelling(fn);
    if (strcmp(name, "printf") == 0 && clang_Location_isInSystemHeader(clang_getCursorLocation(fn))) {
        warning_at(loc_of(b, call),
                   "printf in a kernel prints from the GPU: lines come in no fixed order, and what does not fit the "
                   "device's printf buffer (1 MB unless cudaLimitPrintfFifoSize is raised) is lost");
        return true;
    }
    error_at(loc_of(b, call),
             "'%s' takes a variable number of arguments, which CUDA device code does not support (printf is the "
             "exception)",
             name);
    cl->failed = true;
    return false;
}

/* A type CUDA does not compute as C does: long double is double on the GPU,
 * C's _Complex does not exist in CUDA C++, nor a 128-bit float. */
static const char *device_type_refusal(CXType t)
{
    CXType c = clang_getCanonicalType(t);
    while (c.kind == CXType_ConstantArray || c.kind == CXType_IncompleteArray || c.kind == CXType_VariableArray)
        c = clang_getCanonicalType(clang_getArrayElementType(c));
    switch (c.kind) {
    case CXType_LongDouble:
        return "'long double' in a kernel: CUDA computes it as 'double', so the GPU would not compute what the C "
               "does; use double";
    case CXType_Complex:
        return "a complex type in a kernel: CUDA C++ has no _Complex; compute with the real and imaginary parts";
    case CXType_Float128:
        return "'__float128' in a kernel: the GPU has no 128-bit floating point";
    default:
        return NULL;
    }
}

/* Where device code introduces a value (a declaration, a literal, a cast, a
 * call's result), a type the GPU cannot hold as C does. Each cause is
 * reported once, where it is introduced. Tiles are the block's, checked as
 * tiles (build_tile.c). In the file's functions (not kernels, whose
 * per-thread arrays build_body.c checks) also a local array the GPU cannot
 * hold at all (device_array_refusal). */
static void check_device_value(Closure *cl, CXCursor c, CXCursor parent)
{
    Builder *b = cl->b;
    enum CXCursorKind k = kind_of(c);
    bool introduces = k == CXCursor_VarDecl || k == CXCursor_CStyleCastExpr || k == CXCursor_FloatingLiteral ||
                      k == CXCursor_ImaginaryLiteral || k == CXCursor_CallExpr || k == CXCursor_CompoundLiteralExpr;
    if (k == CXCursor_ParmDecl) /* a kernel's own parameters are checked as parameters (build_ir.c) */
        introduces = !is_kernel_function(b, clang_getCursorSemanticParent(c));
    if (!introduces || spelled_in_tile_header(c))
        return;
    const Attached *tile = k == CXCursor_VarDecl ? fe_attached_on(b->fe, parent) : NULL;
    if (tile && (tile->pragma->kind == PRAGMA_SHARED || tile->pragma->kind == PRAGMA_FRAGMENT))
        return;
    if (k == CXCursor_CallExpr && clang_Cursor_isNull(clang_getCursorReferenced(c)))
        return;
    CXType t =
        k == CXCursor_CallExpr ? clang_getCursorResultType(clang_getCursorReferenced(c)) : clang_getCursorType(c);
    const char *why = device_type_refusal(t);
    if (!why && k == CXCursor_VarDecl && !is_kernel_function(b, clang_getCursorSemanticParent(c)))
        why = device_array_refusal(c);
    if (!why)
        return;
    error_at(loc_of(b, c), "%s", why);
    cl->failed = true;
}

static enum CXChildVisitResult visit_references(CXCursor c, CXCursor parent, CXClientData data)
{
    Closure *cl = data;
    enum CXCursorKind k = kind_of(c);
    CXCursor owner = clang_getCursorSemanticParent(c);
    if (k == CXCursor_VarDecl && clang_Cursor_getStorageClass(c) == CX_SC_Static &&
        !is_const_object(clang_getCursorType(c)) && kind_of(owner) == CXCursor_FunctionDecl &&
        !is_kernel_function(cl->b, owner)) { /* a kernel's own statics are refused where they stand */
        error_at(loc_of(cl->b, c),
                 "static variable '%s' in a function that kernels call: the C has one for the whole program, which "
                 "the GPU's threads would all change at once; pass what it keeps as a parameter",
                 spelling(c));
        cl->failed = true;
        return CXChildVisit_Continue;
    }
    if (k == CXCursor_CallExpr && !check_call(cl, c))
        return CXChildVisit_Continue; /* refused: what it calls is not looked into */
    check_device_value(cl, c, parent);
    /* A call's callee is a DeclRefExpr below it: calls need no case of their own. */
    if (k == CXCursor_DeclRefExpr || k == CXCursor_TypeRef || k == CXCursor_MemberRefExpr) {
        CXCursor d = clang_getCursorReferenced(c);
        if (!clang_Cursor_isNull(d))
            add_to_prelude(cl, d, c);
    }
    return CXChildVisit_Recurse;
}

static void close_over(Closure *cl, CXCursor root) { clang_visitChildren(root, visit_references, cl); }

static void add_prelude(Builder *b, IrPreludeKind kind, CXCursor c, const char *text, unsigned begin, Vec *sorted)
{
    IrPrelude *p = anew(sizeof *p);
    p->kind = kind;
    p->text = astrdup(text);
    p->loc = loc_of(b, c);
    p->is_static = clang_Cursor_getStorageClass(c) == CX_SC_Static;
    unsigned *key = anew(sizeof *key);
    *key = begin;
    vec_push(sorted, key);
    vec_push(sorted, p);
}

static enum CXChildVisitResult collect_directives(CXCursor c, CXCursor parent, CXClientData data)
{
    void **ctx = data;
    Builder *b = ctx[0];
    Vec *sorted = ctx[1];
    (void)parent;
    enum CXCursorKind k = kind_of(c);
    unsigned begin, end;
    if ((k != CXCursor_MacroDefinition && k != CXCursor_InclusionDirective) || clang_Cursor_isMacroBuiltin(c) ||
        !fe_cursor_range(b->fe, c, &begin, &end))
        return CXChildVisit_Continue;
    char *text = astrndup(b->fe->text + begin, end - begin);
    char *why = k == CXCursor_MacroDefinition ? macro_name_refusal(spelling(c)) : NULL;
    if (why)
        error_at(loc_of(b, c), "%s", why);
    if (k == CXCursor_MacroDefinition)
        add_prelude(b, PRELUDE_MACRO, c, aprintf("#define %s", text), begin, sorted);
    else
        add_prelude(b, PRELUDE_INCLUDE, c, text, begin, sorted);
    return CXChildVisit_Continue;
}

static bool inside_other_item(Builder *b, const Closure *cl, const PreludeItem *item)
{
    unsigned begin, end;
    fe_cursor_range(b->fe, item->cursor, &begin, &end);
    for (int i = 0; i < cl->items.len; i++) {
        const PreludeItem *other = cl->items.items[i];
        unsigned ob, oe;
        if (other != item && fe_cursor_range(b->fe, other->cursor, &ob, &oe) && ob <= begin && end <= oe &&
            (ob < begin || end < oe))
            return true;
    }
    return false;
}

static IrPreludeKind prelude_kind(CXCursor c)
{
    switch (kind_of(c)) {
    case CXCursor_FunctionDecl:
        return PRELUDE_FUNCTION;
    case CXCursor_VarDecl:
        return PRELUDE_VARIABLE;
    default:
        return PRELUDE_DECL;
    }
}

typedef struct PreludeEntry {
    unsigned offset;
    IrPrelude *item;
} PreludeEntry;

static int entry_order(const void *x, const void *y)
{
    unsigned a = ((const PreludeEntry *)x)->offset, b = ((const PreludeEntry *)y)->offset;
    return a < b ? -1 : a > b;
}

/* Whether C text that goes into the CUDA (the kernels, the declarations
 * they use) says `restrict`, which CUDA C++ spells __restrict__: the prelude
 * then starts with a macro that says so. */
static bool uses_restrict(Builder *b, const Closure *cl)
{
    for (int i = 0; i < cl->items.len; i++)
        if (text_mentions(fe_cursor_text(b->fe, ((PreludeItem *)cl->items.items[i])->cursor), "restrict"))
            return true;
    for (int i = 0; i < b->fe->attached.len; i++) {
        const Attached *a = b->fe->attached.items[i];
        if (a->pragma->kind == PRAGMA_KERNEL && text_mentions(fe_cursor_text(b->fe, a->target), "restrict"))
            return true;
    }
    return false;
}

/* A helper declared before the kernels and defined after them (C's usual
 * order with a prototype): its first declaration goes into the CUDA too,
 * where it stands, so that the kernels between see it. */
static void add_prototype(Builder *b, const PreludeItem *item, Vec *sorted)
{
    if (kind_of(item->cursor) != CXCursor_FunctionDecl)
        return;
    CXCursor first = clang_getCanonicalCursor(item->cursor);
    unsigned begin, end;
    if (clang_equalCursors(first, item->cursor) || !fe_in_main_file(b->fe, first) ||
        !fe_cursor_range(b->fe, first, &begin, &end) || begin >= item->begin)
        return;
    add_prelude(b, PRELUDE_FUNCTION, first, aprintf("%s;", build_plain_text(b, first)), begin, sorted);
}

bool build_prelude(Builder *b)
{
    Closure cl = {.b = b};
    for (int i = 0; i < b->fe->attached.len; i++) {
        const Attached *a = b->fe->attached.items[i];
        if (a->pragma->kind == PRAGMA_KERNEL)
            close_over_function(&cl, a->target);
    }
    /* (offset, item) pairs, sorted below into source order */
    Vec sorted = {0};
    void *ctx[2] = {b, &sorted};
    clang_visitChildren(clang_getTranslationUnitCursor(b->fe->tu), collect_directives, ctx);
    for (int i = 0; i < cl.items.len; i++) {
        PreludeItem *item = cl.items.items[i];
        if (inside_other_item(b, &cl, item))
            continue; /* `struct {...}` of `typedef struct {...} name`: comes with the typedef */
        add_prelude(b, prelude_kind(item->cursor), item->cursor, build_plain_text(b, item->cursor), item->begin,
                    &sorted);
        add_prototype(b, item, &sorted);
    }
    int n = sorted.len / 2;
    PreludeEntry *entries = anew((size_t)(n + 1) * sizeof *entries);
    for (int i = 0; i < n; i++)
        entries[i] = (PreludeEntry){*(unsigned *)sorted.items[2 * i], sorted.items[2 * i + 1]};
    qsort(entries, (size_t)n, sizeof *entries, entry_order); /* a file may define thousands of macros */
    if (uses_restrict(b, &cl)) {
        IrPrelude *p = anew(sizeof *p);
        p->kind = PRELUDE_MACRO;
        p->text = astrdup("#define restrict __restrict__");
        p->loc = (SrcLoc){b->fe->path, 1, 1};
        vec_push(&b->m->prelude, p);
    }
    for (int i = 0; i < n; i++)
        vec_push(&b->m->prelude, entries[i].item);
    Vec kernels = {0}, used = {0};
    for (int i = 0; i < b->fe->attached.len; i++) {
        const Attached *a = b->fe->attached.items[i];
        if (a->pragma->kind == PRAGMA_KERNEL)
            vec_push(&kernels, (void *)&a->target);
    }
    for (int i = 0; i < cl.items.len; i++)
        vec_push(&used, &((PreludeItem *)cl.items.items[i])->cursor);
    check_names(b, &kernels, &used);
    return !cl.failed;
}

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
        if (is_kernel_function(b, d)) {
            error_at(loc_of(b, user), "a kernel cannot call another kernel ('%s')", spelling(d));
            cl->failed = true;
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
    close_over(cl, top);
}

static enum CXChildVisitResult visit_references(CXCursor c, CXCursor parent, CXClientData data)
{
    Closure *cl = data;
    (void)parent;
    enum CXCursorKind k = kind_of(c);
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

bool build_prelude(Builder *b)
{
    Closure cl = {b, {0}, false};
    for (int i = 0; i < b->fe->attached.len; i++) {
        const Attached *a = b->fe->attached.items[i];
        if (a->pragma->kind == PRAGMA_KERNEL)
            close_over(&cl, a->target);
    }
    /* (offset, item) pairs, sorted below into source order */
    Vec sorted = {0};
    void *ctx[2] = {b, &sorted};
    clang_visitChildren(clang_getTranslationUnitCursor(b->fe->tu), collect_directives, ctx);
    for (int i = 0; i < cl.items.len; i++) {
        PreludeItem *item = cl.items.items[i];
        if (inside_other_item(b, &cl, item))
            continue; /* `struct {...}` of `typedef struct {...} name`: comes with the typedef */
        add_prelude(b, prelude_kind(item->cursor), item->cursor, fe_cursor_text(b->fe, item->cursor), item->begin,
                    &sorted);
    }
    int n = sorted.len / 2;
    for (int i = 1; i < n; i++) /* insertion sort by offset: preludes are short */
        for (int j = i; j > 0 && *(unsigned *)sorted.items[2 * j] < *(unsigned *)sorted.items[2 * (j - 1)]; j--) {
            void *k0 = sorted.items[2 * j], *v0 = sorted.items[2 * j + 1];
            sorted.items[2 * j] = sorted.items[2 * (j - 1)];
            sorted.items[2 * j + 1] = sorted.items[2 * (j - 1) + 1];
            sorted.items[2 * (j - 1)] = k0;
            sorted.items[2 * (j - 1) + 1] = v0;
        }
    for (int i = 0; i < n; i++)
        vec_push(&b->m->prelude, sorted.items[2 * i + 1]);
    return !cl.failed;
}

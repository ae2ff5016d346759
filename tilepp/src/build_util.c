/* build_util.c — cursor and builder helpers shared by the IR builder. */
#include "build_internal.h"

#include <limits.h>

#include <ctype.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Helpers over libclang cursors                                             */
/* ------------------------------------------------------------------------ */

static enum CXChildVisitResult push_child(CXCursor c, CXCursor parent, CXClientData data)
{
    Children *ch = data;
    (void)parent;
    if (ch->n == ch->cap) {
        int cap = ch->cap ? ch->cap * 2 : 8;
        CXCursor *items = anew((size_t)cap * sizeof *items);
        if (ch->n)
            memcpy(items, ch->items, (size_t)ch->n * sizeof *items);
        ch->items = items;
        ch->cap = cap;
    }
    ch->items[ch->n++] = c;
    return CXChildVisit_Continue;
}

Children children_of(CXCursor c)
{
    Children ch = {0};
    clang_visitChildren(c, push_child, &ch);
    return ch;
}

enum CXCursorKind kind_of(CXCursor c) { return clang_getCursorKind(c); }

bool is_memory_read(CXCursor c)
{
    enum CXCursorKind k = kind_of(c);
    return k == CXCursor_ArraySubscriptExpr || k == CXCursor_MemberRefExpr ||
           (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_Deref);
}

/* Strips parentheses and implicit casts (libclang shows those as unexposed). */
CXCursor strip(CXCursor c)
{
    for (;;) {
        enum CXCursorKind k = kind_of(c);
        if (k != CXCursor_ParenExpr && k != CXCursor_UnexposedExpr)
            return c;
        Children ch = children_of(c);
        if (ch.n != 1)
            return c;
        c = ch.items[0];
    }
}

char *spelling(CXCursor c) { return cx_take(clang_getCursorSpelling(c)); }

ScalarKind scalar_kind(CXType t, int *size, bool *is_signed)
{
    CXType canon = clang_getCanonicalType(t);
    *size = (int)clang_Type_getSizeOf(canon);
    *is_signed = false;
    switch (canon.kind) {
    case CXType_Bool:
        return SCALAR_BOOL;
    case CXType_Char_S:
    case CXType_SChar:
    case CXType_Short:
    case CXType_Int:
    case CXType_Long:
    case CXType_LongLong:
        *is_signed = true;
        return SCALAR_INT;
    case CXType_Char_U:
    case CXType_UChar:
    case CXType_UShort:
    case CXType_UInt:
    case CXType_ULong:
    case CXType_ULongLong:
        return SCALAR_INT;
    case CXType_Float16:
    case CXType_Half:
        return SCALAR_HALF;
    case CXType_BFloat16:
        return SCALAR_BF16;
    case CXType_Float:
        return SCALAR_FLOAT;
    case CXType_Double:
        return SCALAR_DOUBLE;
    default:
        /* libclang 19 shows __bf16 as an unexposed type */
        return strstr(cx_take(clang_getTypeSpelling(canon)), "__bf16") ? SCALAR_BF16 : SCALAR_OTHER;
    }
}

bool is_16bit_float(CXType t)
{
    int size;
    bool is_signed;
    ScalarKind k = scalar_kind(t, &size, &is_signed);
    return k == SCALAR_HALF || k == SCALAR_BF16;
}

/* Replaces the whole word `from` in s by `to`. */
static char *replace_word(const char *s, const char *from, const char *to)
{
    Str out = {0};
    size_t n = strlen(from);
    for (const char *p = s; *p;) {
        bool word = strncmp(p, from, n) == 0 && (p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
                    !(isalnum((unsigned char)p[n]) || p[n] == '_');
        if (word) {
            str_add(&out, to);
            p += n;
        } else
            str_addc(&out, *p++);
    }
    return atake(&out);
}

/* The type as generated code spells it: without the file's typedefs (the
 * launcher header cannot see them), with tile.h's names for the 16-bit float
 * types and `bool`, which C (stdbool.h) and C++ both know. */
IrType ir_type(CXType t)
{
    IrType r;
    r.kind = scalar_kind(t, &r.size, &r.is_signed);
    char *s = cx_take(clang_getTypeSpelling(clang_getCanonicalType(t)));
    s = replace_word(s, "_Float16", "half");
    s = replace_word(s, "__bf16", "bfloat16");
    r.spelling = replace_word(s, "_Bool", "bool");
    return r;
}

/* ------------------------------------------------------------------------ */
/* The builder                                                               */
/* ------------------------------------------------------------------------ */

void use_pragma(Builder *b, const Pragma *p) { vec_push(&b->used_pragmas, (void *)p); }

bool pragma_used(const Builder *b, const Pragma *p) { return vec_contains(&b->used_pragmas, p); }

IrStmt *new_stmt(Builder *b, IrStmtKind kind, CXCursor src, const Pragma *p)
{
    IrStmt *s = anew(sizeof *s);
    s->kind = kind;
    s->loc = p ? p->loc : loc_of(b, src);
    unsigned begin = 0, end;
    s->src_begin = fe_cursor_range(b->fe, src, &begin, &end) ? begin : UINT_MAX;
    s->pragma = p;
    return s;
}

SrcLoc loc_of(Builder *b, CXCursor c) { return fe_cursor_loc(b->fe, c); }

const IrParam *param_of(Builder *b, CXCursor decl)
{
    if (!b->k || kind_of(decl) != CXCursor_ParmDecl)
        return NULL;
    CXCursor parent = clang_getCursorSemanticParent(decl);
    if (!clang_equalCursors(parent, b->kernel_cursor))
        return NULL;
    return ir_kernel_param(b->k, spelling(decl));
}

int loop_var_index(Builder *b, CXCursor decl)
{
    if (!b->par)
        return -1;
    for (int d = 0; d < b->par->depth; d++)
        if (clang_equalCursors(b->loop_vars[d], decl))
            return d;
    return -1;
}

static bool in_cursor_list(const Vec *list, CXCursor decl)
{
    for (int i = 0; i < list->len; i++)
        if (clang_equalCursors(*(CXCursor *)list->items[i], decl))
            return true;
    return false;
}

bool is_block_local(Builder *b, CXCursor decl) { return b->grid && in_cursor_list(&b->block_locals, decl); }

bool is_block_var(Builder *b, CXCursor decl)
{
    for (int i = 0; b->grid && i < b->block_vars.len; i++)
        if (clang_equalCursors(((const BlockVar *)b->block_vars.items[i])->var, decl))
            return true;
    return false;
}

unsigned statement_end(const FrontEnd *fe, unsigned end)
{
    unsigned at = end;
    while (at < fe->len &&
           (fe->text[at] == ' ' || fe->text[at] == '\t' || fe->text[at] == '\n' || fe->text[at] == '\r'))
        at++;
    return at < fe->len && fe->text[at] == ';' && (end == 0 || fe->text[end - 1] != ';') ? at + 1 : end;
}

bool is_kernel_local(Builder *b, CXCursor decl) { return in_cursor_list(&b->kernel_locals, decl); }

/* CUDA's limit on a thread's local memory, where arrays it indexes at run
 * time live. */
enum { LOCAL_BYTES_PER_THREAD = 512 * 1024 };

const char *device_array_refusal(CXCursor var)
{
    if (clang_Cursor_getStorageClass(var) == CX_SC_Static ||
        kind_of(clang_getCursorSemanticParent(var)) != CXCursor_FunctionDecl)
        return NULL; /* not a local: a table of the file, or a static (refused where it matters) */
    CXType t = clang_getCanonicalType(clang_getCursorType(var));
    if (t.kind == CXType_VariableArray)
        return aprintf("variable-length array '%s' in a kernel: CUDA has none; give it a constant size", spelling(var));
    long long bytes = t.kind == CXType_ConstantArray ? clang_Type_getSizeOf(t) : 0;
    if (bytes > LOCAL_BYTES_PER_THREAD)
        return aprintf("array '%s' of %lld bytes in a kernel: each GPU thread holds its own, and a thread has at most "
                       "%d bytes of local memory",
                       spelling(var), bytes, (int)LOCAL_BYTES_PER_THREAD);
    return NULL;
}

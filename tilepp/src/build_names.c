/* build_names.c — names of the file that the CUDA cannot keep: the
 * generated file is C++ and includes CUDA's headers, so a name the C may
 * declare can be a C++ keyword there, hide a built-in the kernels use, or
 * collide with a declaration of CUDA's or of tilepp's. Each is refused at
 * its declaration, in what goes into the CUDA (the kernels and the
 * declarations they use), before nvcc would reject the output. */
#include "build_internal.h"

#include <ctype.h>
#include <string.h>

/* C++ keywords (and alternative operator spellings) that are ordinary
 * identifiers in C. */
static const char *const cxx_keywords[] = {
    "and",       "and_eq",    "bitand",    "bitor",     "catch",        "char8_t",          "char16_t",   "char32_t",
    "class",     "co_await",  "co_return", "co_yield",  "compl",        "concept",          "const_cast", "consteval",
    "constexpr", "constinit", "decltype",  "delete",    "dynamic_cast", "explicit",         "export",     "friend",
    "mutable",   "namespace", "new",       "noexcept",  "not",          "not_eq",           "nullptr",    "operator",
    "or",        "or_eq",     "private",   "protected", "public",       "reinterpret_cast", "requires",   "static_cast",
    "template",  "this",      "throw",     "try",       "typeid",       "typename",         "using",      "virtual",
    "xor",       "xor_eq",    NULL,
};

/* Built-in variables and types the kernels tilepp writes use: a declaration
 * of the name hides them. */
static const char *const cuda_builtins[] = {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3", NULL};

/* Functions and types CUDA's headers declare at file scope that a C file
 * may define for itself: its own would be a second definition. */
static const char *const cuda_file_scope[] = {
    "max",        "min",        "umax",       "umin",
    "llmax",      "llmin",      "ullmax",     "ullmin",
    "atomicAdd",  "atomicSub",  "atomicMax",  "atomicMin",
    "atomicExch", "atomicCAS",  "atomicAnd",  "atomicOr",
    "atomicXor",  "atomicInc",  "atomicDec",  "char1",
    "char2",      "char3",      "char4",      "uchar1",
    "uchar2",     "uchar3",     "uchar4",     "short1",
    "short2",     "short3",     "short4",     "ushort1",
    "ushort2",    "ushort3",    "ushort4",    "int1",
    "int2",       "int3",       "int4",       "uint1",
    "uint2",      "uint3",      "uint4",      "long1",
    "long2",      "long3",      "long4",      "ulong1",
    "ulong2",     "ulong3",     "ulong4",     "longlong1",
    "longlong2",  "ulonglong1", "ulonglong2", "float1",
    "float2",     "float3",     "float4",     "double1",
    "double2",    "double3",    "double4",    "j0",
    "j1",         "jn",         "y0",         "y1",
    "yn",         "j0f",        "j1f",        "jnf",
    "y0f",        "y1f",        "ynf",        "__syncthreads",
    NULL,
};

/* Names the generated code spells after the file's macros are defined
 * (members and functions of tilepp's device headers, threadIdx.x ...): a
 * macro of that name, copied into the CUDA with the file's others, would
 * rename them. From the generated files of tests/translate/golden, where
 * the test macro_names keeps this list complete. */
static const char *const generated_names[] = {
    "COUNT",
    "PATH_SM80",
    "PATH_SM90",
    "accum",
    "align_smem",
    "clear",
    "col_of",
    "cols_frag",
    "commit",
    "consume",
    "consumer_group",
    "consumer_setmaxnreg",
    "copier",
    "count",
    "cuda",
    "device_is_sm90",
    "done",
    "drain",
    "epilogue_chunk",
    "failed",
    "fence_operands",
    "for_each",
    "for_each_owned",
    "for_each_shared",
    "full",
    "give_back",
    "has_sm90a",
    "hi",
    "hold_wait",
    "index_of",
    "init",
    "iter_counter",
    "iter_queue",
    "lead_dims",
    "lo",
    "load",
    "load_async",
    "make_tmap",
    "mma",
    "mma_rs",
    "next_tile",
    "pack",
    "packed_a",
    "parts",
    "pass",
    "path",
    "path_choice",
    "path_from_env",
    "persistent_blocks",
    "pipeline",
    "produce",
    "producer",
    "producer_setmaxnreg",
    "ptr",
    "ptx",
    "put",
    "read_or_zero",
    "reduce_cols",
    "reduce_rows",
    "release",
    "row_of",
    "row_slot",
    "rows_frag",
    "skip",
    "slots",
    "smem_tile",
    "smem_vec",
    "step",
    "store",
    "store_tma",
    "store_tma_finish",
    "strips",
    "take",
    "tile",
    "timing",
    "tma_load",
    "turns",
    "v",
    "vec_frag",
    "wait",
    "wgmma_wait",
    "work",
    "write_inside",
    "x",
    "y",
    "z",
    NULL,
};

char *macro_name_refusal(const char *name)
{
    if (word_in(name, generated_names))
        return aprintf("the macro '%s' would rename '%s', which the generated code uses (a member or function of "
                       "tilepp's device code, or of CUDA's threadIdx): rename the macro",
                       name, name);
    if (word_in(name, cxx_keywords))
        return aprintf("the macro '%s' is a keyword of C++, the language of the generated CUDA: rename it", name);
    return NULL;
}

static bool declares_name(enum CXCursorKind k)
{
    switch (k) {
    case CXCursor_VarDecl:
    case CXCursor_ParmDecl:
    case CXCursor_FunctionDecl:
    case CXCursor_TypedefDecl:
    case CXCursor_StructDecl:
    case CXCursor_UnionDecl:
    case CXCursor_EnumDecl:
    case CXCursor_EnumConstantDecl:
    case CXCursor_FieldDecl:
    case CXCursor_LabelStmt:
        return true;
    default:
        return false;
    }
}

static bool at_file_scope(CXCursor c)
{
    CXCursor parent = clang_getCursorSemanticParent(c);
    return clang_Cursor_isNull(parent) || kind_of(parent) == CXCursor_TranslationUnit;
}

/* Why the CUDA cannot declare `name` here, or NULL. */
static char *name_refusal(CXCursor c, const char *name)
{
    if (word_in(name, cxx_keywords))
        return aprintf("'%s' is a keyword of C++, the language of the generated CUDA: rename it", name);
    if (word_in(name, cuda_builtins))
        return aprintf("'%s' is a built-in name of CUDA, which the generated kernels use: rename it", name);
    if (strncmp(name, "tile_", 5) == 0)
        return aprintf("'%s': names that start with 'tile_' are tilepp's own (the generated code declares them): "
                       "rename it",
                       name);
    if (at_file_scope(c) && word_in(name, cuda_file_scope))
        return aprintf("'%s' is declared by CUDA's headers, which the generated file includes: a second '%s' does "
                       "not compile; rename it",
                       name, name);
    return NULL;
}

/* Whether the name stands in the source where c is declared: an unnamed
 * `typedef struct {...} pair;` reads as 'pair' in libclang, but its name
 * is the typedef's, refused there. */
static bool named_here(Builder *b, CXCursor c, const char *name)
{
    CXFile file;
    unsigned offset;
    clang_getSpellingLocation(clang_getCursorLocation(c), &file, NULL, NULL, &offset);
    if (!file || !clang_File_isEqual(file, b->fe->file))
        return true; /* spelled by a macro of another file: taken as named */
    size_t len = strlen(name);
    const char *at = b->fe->text + offset;
    return offset + len <= b->fe->len && strncmp(at, name, len) == 0 &&
           !(isalnum((unsigned char)at[len]) || at[len] == '_');
}

typedef struct NameCheck {
    Builder *b;
    Vec seen; /* CXCursor*: declarations already refused (a prototype and its definition are one) */
} NameCheck;

static void check_declaration(NameCheck *nc, CXCursor c)
{
    if (!declares_name(kind_of(c)) || !fe_in_main_file(nc->b->fe, c))
        return;
    char *name = spelling(c);
    if (!name[0] || !named_here(nc->b, c, name))
        return;
    char *why = name_refusal(c, name);
    if (!why)
        return;
    CXCursor canonical = clang_getCanonicalCursor(c);
    for (int i = 0; i < nc->seen.len; i++)
        if (clang_equalCursors(*(CXCursor *)nc->seen.items[i], canonical))
            return;
    CXCursor *keep = anew(sizeof *keep);
    *keep = canonical;
    vec_push(&nc->seen, keep);
    error_at(loc_of(nc->b, c), "%s", why);
}

static enum CXChildVisitResult visit_names(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    check_declaration(data, c);
    return CXChildVisit_Recurse;
}

/* A function of the file named like a kernel's launcher: the two would be
 * one symbol when the CPU reference and the launchers are linked together. */
static void check_launcher_names(Builder *b, CXCursor fn, const Vec *kernels)
{
    if (kind_of(fn) != CXCursor_FunctionDecl || !fe_in_main_file(b->fe, fn))
        return;
    char *name = spelling(fn);
    for (int i = 0; i < kernels->len; i++) {
        char *kernel = spelling(*(CXCursor *)kernels->items[i]);
        if (strcmp(name, aprintf("%s_gpu", kernel)) == 0 || strcmp(name, aprintf("%s_gpu_stream", kernel)) == 0) {
            error_at(loc_of(b, fn),
                     "'%s' is the name of the launcher tilepp writes for kernel '%s': the two would be one symbol "
                     "when the file and its launchers are linked together; rename it",
                     name, kernel);
            return;
        }
    }
}

static enum CXChildVisitResult visit_top_level(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    void **ctx = data;
    if (clang_isCursorDefinition(c) || kind_of(c) == CXCursor_FunctionDecl)
        check_launcher_names(ctx[0], c, ctx[1]);
    return CXChildVisit_Continue;
}

void check_names(Builder *b, const Vec *kernels, const Vec *used)
{
    NameCheck nc = {.b = b};
    for (int i = 0; i < kernels->len; i++) /* a kernel's own name goes into the CUDA only inside others */
        clang_visitChildren(*(CXCursor *)kernels->items[i], visit_names, &nc);
    for (int i = 0; i < used->len; i++) {
        CXCursor d = *(CXCursor *)used->items[i];
        check_declaration(&nc, d);
        clang_visitChildren(d, visit_names, &nc);
    }
    void *ctx[2] = {b, (void *)kernels};
    clang_visitChildren(clang_getTranslationUnitCursor(b->fe->tu), visit_top_level, ctx);
}

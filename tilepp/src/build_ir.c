#include "build_ir.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "build_internal.h"

/* ------------------------------------------------------------------------ */
/* Parameters                                                                */
/* ------------------------------------------------------------------------ */

/* The qualifiers C99 lets the first brackets of an array parameter hold
 * before the extent (`X[restrict M][N]`, `x[static 4]`): not part of it. */
static bool array_qualifier(const char *tok)
{
    static const char *const quals[] = {"restrict", "__restrict", "__restrict__", "const", "volatile", "static"};
    for (size_t i = 0; i < sizeof quals / sizeof *quals; i++)
        if (strcmp(tok, quals[i]) == 0)
            return true;
    return false;
}

/* The extents of a parameter's declarator `T name[e1][e2]...` (or `T
 * (*name)[e2]...`, whose first extent is NULL), as token text, from the
 * tokens of `range`, which starts at the name: a `)` right after it marks
 * the pointer form; a `,` or `)` outside brackets ends the declarator. */
static int extents_after_name(Builder *b, CXSourceRange range, const char *name, char **extents)
{
    CXToken *toks;
    unsigned n;
    clang_tokenize(b->fe->tu, range, &toks, &n);
    int rank = 0, depth = 0;
    bool pointer_form = false, named = n > 0 && strcmp(cx_take(clang_getTokenSpelling(b->fe->tu, toks[0])), name) == 0;
    Str cur = {0};
    for (unsigned i = 1; named && i < n; i++) {
        char *t = cx_take(clang_getTokenSpelling(b->fe->tu, toks[i]));
        if (i == 1 && strcmp(t, ")") == 0) {
            pointer_form = true; /* `(*name)` */
            continue;
        }
        if (depth == 0 && (strcmp(t, ",") == 0 || strcmp(t, ")") == 0 || strcmp(t, "{") == 0))
            break; /* the next parameter, or the end of the list */
        if (strcmp(t, "[") == 0 && depth++ == 0)
            continue;
        if (strcmp(t, "]") == 0 && --depth == 0) {
            if (rank < IR_MAX_RANK)
                extents[rank++] = cur.len ? atake(&cur) : NULL;
            str_free(&cur);
            continue;
        }
        if (depth == 1 && cur.len == 0 && array_qualifier(t))
            continue;
        if (depth > 0)
            str_addf(&cur, "%s%s", cur.len ? " " : "", t);
    }
    str_free(&cur);
    clang_disposeTokens(b->fe->tu, toks, n);
    if (pointer_form && rank > 0 && rank < IR_MAX_RANK) {
        memmove(extents + 1, extents, (size_t)(IR_MAX_RANK - 1) * sizeof *extents);
        extents[0] = NULL;
        rank++;
    }
    return named && depth == 0 ? rank : 0;
}

/* The tokens from the parameter's name to the end of its function, read up
 * to the next parameter. Not the declaration's own extent: where it starts
 * in a macro (`ELEM x[n][m]`, ELEM defined in the file or on the command
 * line), clang's range for it may start at another expansion of the macro,
 * even at an earlier parameter of the same name in another function, or
 * stop short of an extent that ends in a macro (`x[n][h * D]`). */
static int declarator_extents(Builder *b, CXCursor parm, const char *name, char **extents)
{
    CXSourceRange function = clang_getCursorExtent(clang_getCursorSemanticParent(parm));
    CXSourceRange from_name = clang_getRange(clang_getCursorLocation(parm), clang_getRangeEnd(function));
    return extents_after_name(b, from_name, name, extents);
}

/* `T *restrict x`, also through a typedef, and `T x[restrict n]...`, whose
 * qualifier libclang shows only in the type's spelling (the parameter's
 * type is the array as written, not the pointer it adjusts to). */
static bool restrict_param(CXType t)
{
    if (clang_isRestrictQualifiedType(clang_getCanonicalType(t)))
        return true;
    const char *bracket = strchr(cx_take(clang_getTypeSpelling(t)), '[');
    while (bracket) {
        bracket++;
        while (*bracket == ' ')
            bracket++;
        if (str_starts_with(bracket, "restrict") && !(isalnum((unsigned char)bracket[8]) || bracket[8] == '_'))
            return true;
        bool qualifier = str_starts_with(bracket, "static ") || str_starts_with(bracket, "const ") ||
                         str_starts_with(bracket, "volatile ");
        bracket = qualifier ? strchr(bracket, ' ') : NULL;
    }
    return false;
}

static bool build_buffer_param(Builder *b, CXCursor parm, IrParam *p, CXType t)
{
    IrBuffer *buf = anew(sizeof *buf);
    buf->name = p->name;
    buf->space = SPACE_GLOBAL;
    buf->loc = p->loc;
    /* The outermost level is a pointer (or an array, which decays to one);
     * every level below it must be an array. */
    CXType elem = t;
    int levels = 0;
    for (;;) {
        CXType canon = clang_getCanonicalType(elem);
        bool is_array = canon.kind == CXType_ConstantArray || canon.kind == CXType_VariableArray ||
                        canon.kind == CXType_IncompleteArray || canon.kind == CXType_DependentSizedArray;
        if (canon.kind == CXType_Pointer && levels > 0) {
            error_at(p->loc, "parameter '%s': pointers to pointers are not supported in kernels", p->name);
            return false;
        }
        CXType next = canon.kind == CXType_Pointer ? clang_getPointeeType(elem)
                      : is_array                   ? clang_getArrayElementType(elem)
                                                   : elem;
        if (next.kind == CXType_Invalid) /* a typedef of a pointer (or array) type: only its canonical type has one */
            next = canon.kind == CXType_Pointer ? clang_getPointeeType(canon) : clang_getArrayElementType(canon);
        if (canon.kind == CXType_Pointer || is_array)
            elem = next;
        else
            break;
        levels++;
    }
    if (levels > IR_MAX_RANK) {
        error_at(p->loc, "parameter '%s': arrays of more than %d dimensions are not supported", p->name, IR_MAX_RANK);
        return false;
    }
    buf->elem = ir_type(elem);
    buf->is_const = clang_isConstQualifiedType(elem);
    buf->is_restrict = restrict_param(t);
    enum CXTypeKind pointee = clang_getCanonicalType(elem).kind;
    if (pointee == CXType_FunctionProto || pointee == CXType_FunctionNoProto) {
        error_at(p->loc,
                 "parameter '%s': a function pointer cannot be passed to a kernel (the GPU cannot call a "
                 "function of the CPU); call the function by name in the kernel",
                 p->name);
        return false;
    }
    if (buf->elem.kind == SCALAR_OTHER) {
        error_at(p->loc,
                 "parameter '%s': elements of type '%s' are not supported; use an integer type, float, double, half "
                 "or bfloat16",
                 p->name, buf->elem.spelling);
        return false;
    }
    char *extents[IR_MAX_RANK] = {0};
    int rank = declarator_extents(b, parm, p->name, extents);
    buf->rank = levels;
    for (int d = 0; d < rank; d++)
        if (levels - rank + d >= 0) /* more extents than levels: the innermost ones */
            buf->extents[levels - rank + d] = extents[d];
    for (int d = 1; d < buf->rank; d++)
        if (!buf->extents[d]) {
            error_at(p->loc, "parameter '%s': cannot find the extent of dimension %d", p->name, d + 1);
            return false;
        }
    p->kind = PARAM_BUFFER;
    p->buf = buf;
    return true;
}

static bool build_param(Builder *b, CXCursor parm)
{
    IrParam *p = anew(sizeof *p);
    p->name = spelling(parm);
    p->loc = loc_of(b, parm);
    if (!*p->name) {
        error_at(p->loc, "kernel parameters need names");
        return false;
    }
    CXType t = clang_getCursorType(parm);
    CXType canon = clang_getCanonicalType(t);
    bool ok = true;
    if (canon.kind == CXType_Pointer || canon.kind == CXType_ConstantArray || canon.kind == CXType_VariableArray ||
        canon.kind == CXType_IncompleteArray)
        ok = build_buffer_param(b, parm, p, t);
    else {
        p->kind = PARAM_SCALAR;
        p->type = ir_type(t);
        if (p->type.kind == SCALAR_OTHER || p->type.kind == SCALAR_HALF || p->type.kind == SCALAR_BF16) {
            error_at(
                p->loc,
                "scalar parameter '%s' of type '%s' is not supported in kernels; use an integer, float or double%s",
                p->name, p->type.spelling,
                p->type.kind == SCALAR_OTHER ? ""
                                             : " (half and bfloat16 scalars are passed differently by C and CUDA)");
            ok = false;
        }
    }
    vec_push(&b->k->params, p);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Kernels                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct UseScan {
    Builder *b;
    Vec *names;
    bool reads_memory;
    CXCursor changes; /* an assignment, ++ or -- in the initializer; null cursor: none */
} UseScan;

static bool changes_variable(CXCursor c)
{
    switch (kind_of(c)) {
    case CXCursor_CompoundAssignOperator:
        return true;
    case CXCursor_BinaryOperator:
        return clang_getCursorBinaryOperatorKind(c) == CXBinaryOperator_Assign;
    case CXCursor_UnaryOperator: {
        enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
        return op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec || op == CXUnaryOperator_PreInc ||
               op == CXUnaryOperator_PreDec;
    }
    default:
        return false;
    }
}

static enum CXChildVisitResult scan_uses(CXCursor c, CXCursor parent, CXClientData data)
{
    UseScan *s = data;
    (void)parent;
    enum CXCursorKind k = kind_of(c);
    if (k == CXCursor_DeclRefExpr) {
        CXCursor d = clang_getCursorReferenced(c);
        const IrParam *p = param_of(s->b, d);
        if (p || is_kernel_local(s->b, d))
            vec_push(s->names, spelling(d));
    } else if (is_memory_read(c))
        s->reads_memory = true;
    if (clang_Cursor_isNull(s->changes) && changes_variable(c))
        s->changes = c;
    return CXChildVisit_Recurse;
}

IrStmt *build_decl_stmt(Builder *b, CXCursor stmt)
{
    IrStmt *s = new_stmt(b, STMT_DECL, stmt, NULL);
    Children ch = children_of(stmt);
    for (int i = 0; i < ch.n; i++) {
        CXCursor var = ch.items[i];
        if (kind_of(var) != CXCursor_VarDecl)
            continue;
        CXType t = clang_getCanonicalType(clang_getCursorType(var));
        if (t.kind == CXType_ConstantArray || t.kind == CXType_VariableArray || t.kind == CXType_IncompleteArray) {
            const Attached *a = fe_attached_on(b->fe, stmt);
            if (!a)
                error_at(loc_of(b, var),
                         "array '%s' at kernel level: arrays in kernels need '#pragma tile shared', 'fragment' or "
                         "'local' (not implemented yet in this version)",
                         spelling(var));
            return NULL;
        }
        if (clang_Cursor_getStorageClass(var) == CX_SC_Static) {
            error_at(loc_of(b, var), "static variables are not supported in kernels");
            return NULL;
        }
        vec_push(&s->decl_names, spelling(var));
        CXCursor *saved = anew(sizeof *saved);
        *saved = var;
        UseScan scan = {b, &s->decl_uses, false, clang_getNullCursor()};
        clang_visitChildren(var, scan_uses, &scan);
        s->reads_memory |= scan.reads_memory;
        if (!b->grid && !clang_Cursor_isNull(scan.changes)) {
            error_at(loc_of(b, scan.changes),
                     "a declaration at the kernel's top level that changes a variable: each kernel that uses '%s', "
                     "and the launcher, evaluate it again, so the change would not happen once as in the C; compute "
                     "the value without assigning, ++ or --",
                     spelling(var));
            return NULL;
        }
        vec_push(b->grid ? &b->block_locals : &b->kernel_locals, saved);
    }
    unsigned begin, end;
    if (!fe_cursor_range(b->fe, stmt, &begin, &end)) {
        error_at(s->loc, "declarations produced by macros are not supported at kernel level");
        return NULL;
    }
    if (b->grid) { /* tiles and views in the initializers: code with its accesses cut out */
        bool failed = false;
        s->code = build_code(b, stmt, CODE_UNIFORM, &s->accesses, NULL, &failed);
        return failed ? NULL : s;
    }
    s->code = build_plain_code(b, stmt, begin, end);
    return s->code ? s : NULL;
}

static void use_pragmas_inside(Builder *b, CXCursor fn)
{
    unsigned begin, end;
    if (!fe_cursor_range(b->fe, fn, &begin, &end))
        return;
    for (int i = 0; i < b->fe->attached.len; i++) {
        const Attached *a = b->fe->attached.items[i];
        if (a->pragma->begin_offset > begin && a->pragma->begin_offset < end)
            use_pragma(b, a->pragma);
    }
}

void refuse_misplaced(Builder *b, const Pragma *p, const char *where)
{
    (void)b;
    const char *kind = pragma_kind_name(p->kind);
    switch (p->kind) {
    case PRAGMA_PIPELINED:
    case PRAGMA_SHARED:
    case PRAGMA_FRAGMENT:
    case PRAGMA_GEMM:
        error_at(p->loc, "'#pragma tile %s' %s: it belongs inside the block of a '#pragma tile grid' loop", kind,
                 where);
        break;
    case PRAGMA_LOCAL:
        error_at(p->loc,
                 "'#pragma tile local' %s: it declares a per-thread array, inside a '#pragma tile parallel' loop",
                 where);
        break;
    case PRAGMA_GRID:
        error_at(p->loc, "'#pragma tile grid' %s: grids go at the top level of a kernel and do not nest", where);
        break;
    case PRAGMA_PARALLEL:
        error_at(p->loc, "'#pragma tile parallel' %s is not supported", where);
        break;
    default:
        error_at(p->loc, "'#pragma tile %s' %s is not supported", kind, where);
    }
}

static bool build_kernel_stmt(Builder *b, CXCursor stmt)
{
    enum CXCursorKind k = kind_of(stmt);
    const Attached *a = fe_attached_on(b->fe, stmt);
    if (a && a->pragma->kind == PRAGMA_PARALLEL) {
        use_pragma(b, a->pragma);
        IrParallel *par = build_parallel(b, stmt, a->pragma);
        if (!par)
            return false;
        IrStmt *s = new_stmt(b, STMT_PARALLEL, stmt, a->pragma);
        s->par = par;
        vec_push(&b->k->stmts, s);
        return true;
    }
    if (a && a->pragma->kind == PRAGMA_GRID) {
        use_pragma(b, a->pragma);
        IrGrid *grid = build_grid(b, stmt, a->pragma);
        if (!grid) {
            use_pragmas_inside(b, stmt); /* the block was not (wholly) looked at: no follow-on errors */
            return false;
        }
        IrStmt *s = new_stmt(b, STMT_GRID, stmt, a->pragma);
        s->grid = grid;
        vec_push(&b->k->stmts, s);
        return true;
    }
    if (a) {
        use_pragma(b, a->pragma);
        refuse_misplaced(b, a->pragma, "at the top level of a kernel");
        return false;
    }
    if (k == CXCursor_DeclStmt) {
        IrStmt *s = build_decl_stmt(b, stmt);
        if (s)
            vec_push(&b->k->stmts, s);
        return s != NULL;
    }
    if (k == CXCursor_NullStmt)
        return true;
    if (k == CXCursor_CallExpr && strcmp(spelling(stmt), "tile_print") == 0) {
        error_at(loc_of(b, stmt),
                 "tile_print at the top level of a kernel is not implemented on the GPU in this version of tilepp: "
                 "print in a grid block, between its statements (the kernel's scalars too: once per block)");
        return false;
    }
    error_at(loc_of(b, stmt),
             "this statement is not inside a '#pragma tile parallel' or 'grid' loop: at the top level of a kernel, "
             "this version of tilepp accepts scalar declarations, parallel loops and grids");
    return false;
}

/* Words a work expression may use besides parameters and constants. */
static const char *const work_keywords[] = {"sizeof", "char",   "short", "int",  "long",     "unsigned", "signed",
                                            "float",  "double", "half",  "bf16", "bfloat16", NULL};

/* Operators a work expression may use: arithmetic, comparisons, logic and
 * the conditional; no assignment, subscript or member access. */
static const char *const work_operators[] = {"+",  "-",  "*",  "/",  "%", "(",  ")",  "?", ":", "<", ">", "<=", ">=",
                                             "==", "!=", "&&", "||", "!", "<<", ">>", "~", "&", "|", "^", NULL};

/* flops(expr) or bytes(expr): C over the kernel's scalar parameters that the
 * launcher evaluates when the profiler is on. Constants (enum constants,
 * macros) are folded here, so the launcher does not depend on which macros
 * the generated file repeats. */
static bool build_work(Builder *b, IrKernel *k, const Pragma *pragma, const char *clause, char **out)
{
    const PClause *cl = pragma_clause(pragma, clause);
    if (!cl)
        return true;
    const PArg *arg = &cl->args[0];
    Vec toks = {0};
    if (!expand_pragma_tokens(b->fe, arg->toks, arg->ntoks, pragma->begin_offset, &toks)) {
        error_at(arg->loc, "%s(...): a function-like macro, or macros nested too deep, cannot be evaluated here",
                 clause);
        return false;
    }
    Str text = {0};
    bool ok = true;
    for (int i = 0; ok && i < toks.len; i++) {
        const PTok *t = toks.items[i];
        const IrParam *param = t->kind == PTOK_IDENT ? ir_kernel_param(k, t->text) : NULL;
        long long value;
        PArg one = {(PTok *)t, 1, t->loc};
        if (i && strcmp(((const PTok *)toks.items[i - 1])->text, "(") != 0 && strcmp(t->text, ")") != 0)
            str_addc(&text, ' ');
        if (t->kind == PTOK_NUMBER || (t->kind == PTOK_PUNCT && word_in(t->text, work_operators)))
            str_add(&text, t->text);
        else if (param ? param->kind == PARAM_SCALAR : t->kind == PTOK_IDENT && word_in(t->text, work_keywords))
            str_add(&text, t->text);
        else if (param) {
            error_at(t->loc, "%s(...) can use the kernel's scalar parameters, not the array '%s'", clause, t->text);
            ok = false;
        } else if (t->kind == PTOK_IDENT && eval_pragma_int_quiet(b->fe, &one, pragma->begin_offset, &value))
            str_addf(&text, "%lldLL", value);
        else if (t->kind == PTOK_IDENT) {
            error_at(t->loc, "%s(...): '%s' is neither a scalar parameter of '%s' nor an integer constant", clause,
                     t->text, k->name);
            ok = false;
        } else {
            error_at(t->loc,
                     "%s(...) takes an arithmetic expression over the kernel's scalar parameters; '%s' cannot "
                     "appear in it",
                     clause, t->text);
            ok = false;
        }
    }
    if (!ok) {
        str_free(&text);
        return false;
    }
    *out = atake(&text);
    return true;
}

static bool build_kernel(Builder *b, CXCursor fn, const Pragma *pragma)
{
    IrKernel *k = anew(sizeof *k);
    k->name = spelling(fn);
    k->loc = loc_of(b, fn);
    k->threads = 256;
    k->pragma = pragma;
    b->k = k;
    b->kernel_cursor = fn;
    b->kernel_locals = (Vec){0};
    bool ok = true;
    const PClause *threads = pragma_clause(pragma, "threads");
    long long t = 256;
    if (threads && clause_int(b, pragma, threads, 32, 1024, &t)) {
        if (t % 32) {
            error_at(threads->args[0].loc, "threads(%lld) must be a multiple of 32 (the warp size)", t);
            ok = false;
        }
        k->threads = (int)t;
    } else if (threads)
        ok = false;
    CXType ret = clang_getCursorResultType(fn);
    if (ret.kind != CXType_Void) {
        error_at(k->loc, "a kernel returns nothing: '%s' returns '%s'", k->name, cx_take(clang_getTypeSpelling(ret)));
        ok = false;
    }
    if (clang_Cursor_isVariadic(fn)) {
        error_at(k->loc, "a kernel cannot be variadic");
        ok = false;
    }
    int nparams = clang_Cursor_getNumArguments(fn);
    for (int i = 0; i < nparams; i++)
        ok &= build_param(b, clang_Cursor_getArgument(fn, (unsigned)i));
    const Pragma *tune = fe_pragma_on(b->fe, fn, PRAGMA_TUNE);
    if (tune) {
        use_pragma(b, tune);
        k->tune = build_tune(b, fn, tune);
        ok &= k->tune != NULL;
    }
    if (ok) {
        ok &= build_work(b, k, pragma, "flops", &k->flops);
        ok &= build_work(b, k, pragma, "bytes", &k->bytes);
    }
    if (!ok) {
        use_pragmas_inside(b, fn); /* the body was not looked at: no follow-on errors */
        return false;
    }
    Children ch = children_of(fn);
    CXCursor body = clang_getNullCursor();
    for (int i = 0; i < ch.n; i++)
        if (kind_of(ch.items[i]) == CXCursor_CompoundStmt)
            body = ch.items[i];
    Children stmts = children_of(body);
    for (int i = 0; i < stmts.n; i++) {
        int errors = diag_error_count();
        bool built = build_kernel_stmt(b, stmts.items[i]);
        if (!built && diag_error_count() == errors) /* a refusal must say why */
            error_at(loc_of(b, stmts.items[i]), "internal error: this statement was refused without a reason "
                                                "(please report this bug)");
        ok &= built;
    }
    bool any_parallel = false;
    for (int i = 0; i < k->stmts.len; i++)
        any_parallel |= ((IrStmt *)k->stmts.items[i])->kind != STMT_DECL;
    if (ok && !any_parallel) {
        error_at(k->loc, "kernel '%s' has no '#pragma tile parallel' or 'grid' loop: nothing to spread over the GPU",
                 k->name);
        ok = false;
    }
    if (ok)
        warn_f16_arithmetic(b, body);
    vec_push(&b->m->kernels, k);
    b->k = NULL;
    return ok;
}

/* ------------------------------------------------------------------------ */

static void refuse_unimplemented(Builder *b)
{
    for (int i = 0; i < b->fe->attached.len; i++) {
        const Attached *a = b->fe->attached.items[i];
        if (pragma_used(b, a->pragma))
            continue;
        PragmaKind k = a->pragma->kind;
        if (k == PRAGMA_TUNE)
            error_at(a->pragma->loc,
                     "'#pragma tile tune' applies to a '#pragma tile kernel' function, and '%s' is "
                     "not one",
                     spelling(a->target));
        else
            error_at(a->pragma->loc, "'#pragma tile %s' must be inside a '#pragma tile kernel' function",
                     pragma_kind_name(k));
    }
}

IrModule *build_ir(FrontEnd *fe)
{
    Builder b = {.fe = fe};
    b.m = ir_module_new(fe->path);
    int errors = diag_error_count();
    for (int i = 0; i < fe->attached.len; i++) {
        const Attached *a = fe->attached.items[i];
        if (a->pragma->kind != PRAGMA_KERNEL)
            continue;
        use_pragma(&b, a->pragma);
        build_kernel(&b, a->target, a->pragma);
    }
    refuse_unimplemented(&b);
    build_prelude(&b);
    if (diag_error_count() == errors)
        check_complete(fe, b.m);
    return diag_error_count() > errors ? NULL : b.m;
}

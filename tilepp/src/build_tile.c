/* build_tile.c — `#pragma tile grid` nests and what their blocks do: shared
 * and fragment buffers, tile operations (the calls of tile.h) and pipelined
 * loops. */
#include "build_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct TileOpName {
    const char *name;
    TileOpKind kind;
    bool a_trans, b_trans;
    IrReduceOp reduce; /* TILE_REDUCE */
    bool reduce_abs;
} TileOpName;

static const TileOpName tile_ops[] = {
    {"tile_clear", TILE_CLEAR, false, false, 0, false},
    {"tile_fill", TILE_FILL, false, false, 0, false},
    {"tile_load", TILE_LOAD, false, false, 0, false},
    {"tile_store", TILE_STORE, false, false, 0, false},
    {"tile_copy", TILE_COPY, false, false, 0, false},
    {"tile_gemm", TILE_GEMM, false, false, 0, false},
    {"tile_gemm_nt", TILE_GEMM, false, true, 0, false},
    {"tile_gemm_tn", TILE_GEMM, true, false, 0, false},
    {"tile_gemm_tt", TILE_GEMM, true, true, 0, false},
    {"tile_reduce_max", TILE_REDUCE, false, false, RED_MAX, false},
    {"tile_reduce_min", TILE_REDUCE, false, false, RED_MIN, false},
    {"tile_reduce_sum", TILE_REDUCE, false, false, RED_SUM, false},
    {"tile_reduce_absmax", TILE_REDUCE, false, false, RED_MAX, true},
    {"tile_reduce_abssum", TILE_REDUCE, false, false, RED_SUM, true},
    {"tile_print", TILE_PRINT, false, false, 0, false},
};

static const TileOpName *tile_op_named(const char *name)
{
    for (size_t i = 0; i < sizeof tile_ops / sizeof tile_ops[0]; i++)
        if (strcmp(tile_ops[i].name, name) == 0)
            return &tile_ops[i];
    return NULL;
}

static IrBuffer *grid_tile(IrGrid *g, const char *name)
{
    for (int i = 0; i < g->tiles.len; i++) {
        IrBuffer *t = g->tiles.items[i];
        if (strcmp(t->name, name) == 0)
            return t;
    }
    return NULL;
}

/* ---- buffers ---- */

static BufferSpace space_of(PragmaKind k)
{
    return k == PRAGMA_SHARED ? SPACE_SHARED : k == PRAGMA_FRAGMENT ? SPACE_FRAGMENT : SPACE_LOCAL;
}

/* `#pragma tile shared half As[BM][BK], Bs[BK][BN];` */
/* Why a declared tile cannot be one, or NULL. */
static const char *tile_refusal(const IrBuffer *t, CXCursor var, CXType elem)
{
    enum CXTypeKind inner = clang_getCanonicalType(elem).kind;
    if (inner == CXType_VariableArray || inner == CXType_IncompleteArray || inner == CXType_DependentSizedArray)
        return "has an extent that is not a constant: a tile's shape is fixed when tilepp translates (numbers, enum "
               "constants, macros, sizeof)";
    if (t->rank == 0 || inner == CXType_ConstantArray)
        return "needs an array of constant extents with arithmetic elements";
    for (int d = 0; d < t->rank; d++)
        if (t->dims[d] == 0)
            return aprintf("has extent 0 in dimension %d: a tile holds at least one element", d + 1);
    if (t->elem.kind == SCALAR_OTHER)
        return aprintf("has elements of type '%s': fragments and shared tiles hold float, half or bfloat16",
                       t->elem.spelling);
    if (!clang_Cursor_isNull(clang_Cursor_getVarDeclInitializer(var)))
        return "cannot have an initializer: use tile_clear or tile_fill";
    if (t->rank > 2)
        return "has more than 2 dimensions: tiles are 1-D or 2-D";
    bool floating = t->elem.kind == SCALAR_FLOAT || t->elem.kind == SCALAR_HALF || t->elem.kind == SCALAR_BF16;
    if (t->space == SPACE_SHARED && !floating)
        return "is in shared memory, which this version of tilepp uses for float, half and bfloat16 tiles";
    if (t->space == SPACE_FRAGMENT && !floating)
        return "is a fragment, which holds float, half or bfloat16 values";
    return NULL;
}

/* `#pragma tile shared half As[BM][BK], Bs[BK][BN];` A tile that is refused
 * is still known to the block, so that its uses draw no further errors. */
static bool build_tile_decls(Builder *b, IrGrid *g, CXCursor stmt, const Pragma *p, bool in_pipeline, Vec *out)
{
    if (p->kind == PRAGMA_LOCAL) {
        error_at(p->loc, "'#pragma tile local' in a grid block is not implemented yet in this version of tilepp (it "
                         "works in parallel loop bodies)");
        return false;
    }
    if (in_pipeline)
        error_at(p->loc, "declare tiles before the pipelined loop, not inside it");
    bool ok = !in_pipeline;
    Children vars = children_of(stmt);
    for (int i = 0; i < vars.n; i++) {
        CXCursor var = vars.items[i];
        if (kind_of(var) != CXCursor_VarDecl)
            continue;
        IrBuffer *t = anew(sizeof *t);
        t->name = spelling(var);
        t->space = space_of(p->kind);
        t->loc = loc_of(b, var);
        CXType type = clang_getCursorType(var);
        while (type.kind == CXType_ConstantArray && t->rank < IR_MAX_RANK) {
            t->dims[t->rank] = clang_getArraySize(type);
            t->extents[t->rank] = aprintf("%lld", t->dims[t->rank]);
            t->rank++;
            type = clang_getArrayElementType(type);
        }
        t->elem = ir_type(type);
        vec_push(&g->tiles, t);
        const char *why = tile_refusal(t, var, type);
        if (why) {
            error_at(t->loc, "tile '%s' %s", t->name, why);
            t->space = SPACE_GLOBAL; /* marks it refused */
            ok = false;
        }
        if (!ok)
            continue;
        IrStmt *s = new_stmt(b, STMT_TILE_DECL, stmt, p);
        s->loc = t->loc;
        s->tile = t;
        vec_push(out, s);
    }
    return ok;
}

static char *policy_name(const PClause *policy)
{
    char *text = parg_text(&policy->args[0]);
    char *name = astrdup(text);
    free(text);
    return name;
}

/* The statement of a tile operation made from source statement `src`,
 * honouring its `#pragma tile gemm` (or NULL). */
static IrStmt *op_stmt(Builder *b, IrTileOp *op, CXCursor src, const Pragma *gemm)
{
    IrStmt *s = new_stmt(b, STMT_TILE_OP, src, gemm);
    s->loc = op->loc;
    s->op = op;
    return s;
}

/* ---- alignment ---- */

static void add_block_var(Builder *b, CXCursor var, const IrLoop *loop)
{
    BlockVar *bv = anew(sizeof *bv);
    bv->var = var;
    bv->loop = loop;
    vec_push(&b->block_vars, bv);
}

/* A constant written as text (a loop's lower bound), e.g. "0" or "(32)". */
static bool const_text(const char *text, long long *v)
{
    char *end;
    *v = strtoll(text, &end, 0);
    while (*end == ' ' || *end == '(' || *end == ')')
        end++;
    return *text && !*end;
}

/* A leaf of an index expression as tilepp sees it: a constant, or a block
 * or pipeline loop variable (lo + t * step), or neither. */
typedef struct Leaf {
    enum { LEAF_OTHER, LEAF_CONST, LEAF_LOOP } kind;
    long long value;    /* LEAF_CONST */
    const IrLoop *loop; /* LEAF_LOOP */
} Leaf;

static Leaf leaf_of(Builder *b, CXCursor e)
{
    Leaf leaf = {LEAF_OTHER, 0, NULL};
    if (kind_of(e) != CXCursor_DeclRefExpr) {
        if (const_int(e, &leaf.value))
            leaf.kind = LEAF_CONST;
        return leaf;
    }
    CXCursor d = clang_getCursorReferenced(e);
    if (kind_of(d) == CXCursor_EnumConstantDecl) {
        leaf.kind = LEAF_CONST;
        leaf.value = clang_getEnumConstantDeclValue(d);
    }
    for (int i = 0; i < b->block_vars.len; i++) {
        const BlockVar *bv = b->block_vars.items[i];
        if (clang_equalCursors(bv->var, d)) {
            leaf.kind = LEAF_LOOP;
            leaf.loop = bv->loop;
        }
    }
    return leaf;
}

/* Is the expression a multiple of m for every value it takes? Seen through
 * sums, products with such a factor, constants and block loop variables that
 * start at and step by multiples of m. False when it cannot tell. */
static bool multiple_of(Builder *b, CXCursor e, long long m)
{
    e = strip(e);
    Leaf leaf = leaf_of(b, e);
    long long lo;
    if (leaf.kind == LEAF_CONST)
        return leaf.value % m == 0;
    if (leaf.kind == LEAF_LOOP)
        return leaf.loop->step_is_const && leaf.loop->step_const % m == 0 && const_text(leaf.loop->lo, &lo) &&
               lo % m == 0;
    Children ch = children_of(e);
    if (kind_of(e) != CXCursor_BinaryOperator || ch.n != 2)
        return false;
    switch (clang_getCursorBinaryOperatorKind(e)) {
    case CXBinaryOperator_Add:
    case CXBinaryOperator_Sub:
        return multiple_of(b, ch.items[0], m) && multiple_of(b, ch.items[1], m);
    case CXBinaryOperator_Mul:
        return multiple_of(b, ch.items[0], m) || multiple_of(b, ch.items[1], m);
    default:
        return false;
    }
}

/* Is the expression >= 0 for every value it takes? Seen through sums,
 * products and quotients of such, constants and block or pipeline loop
 * variables that start at a constant >= 0 and count up. False when it
 * cannot tell. */
static bool nonnegative(Builder *b, CXCursor e)
{
    e = strip(e);
    Leaf leaf = leaf_of(b, e);
    long long lo;
    if (leaf.kind == LEAF_CONST)
        return leaf.value >= 0;
    if (leaf.kind == LEAF_LOOP)
        return leaf.loop->step_is_const && leaf.loop->step_const > 0 && !leaf.loop->descending &&
               const_text(leaf.loop->lo, &lo) && lo >= 0;
    Children ch = children_of(e);
    if (kind_of(e) != CXCursor_BinaryOperator || ch.n != 2)
        return false;
    switch (clang_getCursorBinaryOperatorKind(e)) {
    case CXBinaryOperator_Add:
    case CXBinaryOperator_Mul:
    case CXBinaryOperator_Div:
        return nonnegative(b, ch.items[0]) && nonnegative(b, ch.items[1]);
    default:
        return false;
    }
}

/* ---- tile operations ---- */

typedef struct OpBuild {
    Builder *b;
    IrGrid *g;
    CXCursor call;
    Children args;
    IrTileOp *op;
} OpBuild;

/* An argument as C text, with the casts a conditional between a 16-bit float
 * and another type needs in CUDA (build_plain_text). */
static char *arg_text(OpBuild *ob, int i) { return build_plain_text(ob->b, ob->args.items[i]); }

/* A tile buffer of the block, named by argument i. */
static IrBuffer *tile_arg(OpBuild *ob, int i, const char *role)
{
    CXCursor a = strip(ob->args.items[i]);
    IrBuffer *t = kind_of(a) == CXCursor_DeclRefExpr ? grid_tile(ob->g, spelling(a)) : NULL;
    if (t && t->space == SPACE_GLOBAL)
        return NULL; /* a tile whose declaration was refused: reported there */
    if (!t)
        error_at(loc_of(ob->b, ob->args.items[i]),
                 "%s of '%s' must be a '#pragma tile shared' or 'fragment' array of this block", role,
                 spelling(ob->call));
    return t;
}

/* A tile of the block named by `ref`, or NULL. */
static const IrBuffer *tile_named(OpBuild *ob, CXCursor ref)
{
    if (kind_of(ref) != CXCursor_DeclRefExpr || kind_of(clang_getCursorReferenced(ref)) != CXCursor_VarDecl)
        return NULL;
    const IrBuffer *t = grid_tile(ob->g, spelling(ref));
    return t && t->space != SPACE_GLOBAL ? t : NULL;
}

/* Does expression e assign or step anything? The first such part in *at. */
static bool has_side_effect(CXCursor e, CXCursor *at)
{
    enum CXCursorKind k = kind_of(e);
    if (k == CXCursor_UnaryExpr) /* sizeof and _Alignof do not evaluate their operand */
        return false;
    bool assigns = k == CXCursor_CompoundAssignOperator ||
                   (k == CXCursor_BinaryOperator && clang_getCursorBinaryOperatorKind(e) == CXBinaryOperator_Assign);
    if (k == CXCursor_UnaryOperator) {
        enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(e);
        assigns = op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec || op == CXUnaryOperator_PreInc ||
                  op == CXUnaryOperator_PreDec;
    }
    if (assigns) {
        *at = e;
        return true;
    }
    Children ch = children_of(e);
    for (int i = 0; i < ch.n; i++)
        if (has_side_effect(ch.items[i], at))
            return true;
    return false;
}

/* The first element of a tile of the block that e reads, or NULL. */
static const IrBuffer *reads_tile(OpBuild *ob, CXCursor e, CXCursor *at)
{
    if (kind_of(e) == CXCursor_UnaryExpr) /* sizeof xs reads nothing */
        return NULL;
    const IrBuffer *t = tile_named(ob, e);
    if (t) {
        *at = e;
        return t;
    }
    Children ch = children_of(e);
    for (int i = 0; i < ch.n; i++)
        if ((t = reads_tile(ob, ch.items[i], at)) != NULL)
            return t;
    return NULL;
}

/* A coordinate, extent, offset or value of a tile operation (`what`, e.g.
 * "argument 3") must have one value for the whole block: every thread
 * evaluates it, once for each element it moves (tile80::for_each_shared
 * and the fragments' for_each take it into their loops). A side effect
 * would happen that often; a fragment's elements differ from thread to
 * thread; a shared tile's element would be read without the barrier that
 * orders it after the block's writes. Reports and returns false if not. */
static bool uniform_arg(OpBuild *ob, CXCursor e, const char *what)
{
    CXCursor at;
    const char *op = spelling(ob->call);
    if (has_side_effect(e, &at)) {
        error_at(loc_of(ob->b, at),
                 "%s of '%s' changes a variable ('%s'): every thread of the block evaluates it, once for each "
                 "element the operation moves; change the variable in a statement before",
                 what, op, fe_cursor_text(ob->b->fe, at));
        return false;
    }
    const IrBuffer *t = reads_tile(ob, e, &at);
    if (t && t->space == SPACE_FRAGMENT) {
        error_at(loc_of(ob->b, at),
                 "%s of '%s' reads fragment '%s', whose elements each thread holds its own part of: the "
                 "arguments of a tile operation have one value for the whole block",
                 what, op, t->name);
        return false;
    }
    if (t) {
        error_at(loc_of(ob->b, at),
                 "%s of '%s' reads shared tile '%s': the barriers tilepp places between a block's statements do not "
                 "see reads in a tile operation's arguments; read the element into a variable of the block in a "
                 "statement before",
                 what, op, t->name);
        return false;
    }
    return true;
}

static bool pointer_like(CXCursor e)
{
    enum CXTypeKind k = clang_getCanonicalType(clang_getCursorType(e)).kind;
    return k == CXType_Pointer || k == CXType_ConstantArray || k == CXType_VariableArray || k == CXType_IncompleteArray;
}

/* The offsets of a vector `x + a + b`, in source order. */
typedef struct Offsets {
    CXCursor items[4];
    int n;
} Offsets;

/* A vector `x + off` (or `off + x`, `x + a + b`) is x moved by off
 * elements: returns x and puts the offsets in *offs. Anything else is
 * returned as it is. */
static CXCursor vector_base(CXCursor a, Offsets *offs)
{
    CXCursor rev[4];
    int n = 0;
    for (;;) {
        a = strip(a);
        Children ch = children_of(a);
        if (n == 4 || kind_of(a) != CXCursor_BinaryOperator || ch.n != 2 ||
            clang_getCursorBinaryOperatorKind(a) != CXBinaryOperator_Add)
            break;
        int base = pointer_like(ch.items[0]) ? 0 : pointer_like(ch.items[1]) ? 1 : -1;
        if (base < 0)
            break;
        rev[n++] = ch.items[1 - base];
        a = ch.items[base];
    }
    offs->n = n;
    for (int i = 0; i < n; i++) /* the outermost `+` was met first */
        offs->items[i] = rev[n - 1 - i];
    return a;
}

/* The offsets of a vector `x + off`, checked and summed into m->shift:
 * the vector starts off elements into x, and its window, edges and all,
 * is measured from there, as in the C (the kernel reads and writes
 * through the moved pointer, emit_tile.c's matrix_ref). */
static bool vector_shift(OpBuild *ob, int i, const Offsets *offs, IrMatrix *m)
{
    Str shift = {0};
    for (int o = 0; o < offs->n; o++) {
        if (!uniform_arg(ob, offs->items[o], aprintf("the offset of argument %d", i + 1))) {
            str_free(&shift);
            return false;
        }
        char *text = fe_cursor_text(ob->b->fe, offs->items[o]);
        if (offs->n == 1)
            str_add(&shift, text);
        else
            str_addf(&shift, "%s(%s)", o ? " + " : "", text);
    }
    m->shift = offs->n ? atake(&shift) : NULL;
    return true;
}

/* A matrix (rank 2) or vector (rank 1) in global memory: a buffer
 * parameter, or a slice of one (`Q[b][h]`, a row `X[b]`); a vector may be
 * moved, `x + off`. */
static bool matrix_arg(OpBuild *ob, int i, int rank, IrMatrix *m)
{
    Offsets offs = {.n = 0};
    CXCursor a = rank == 1 ? vector_base(ob->args.items[i], &offs) : strip(ob->args.items[i]);
    CXCursor subs[IR_MAX_RANK];
    int n = 0;
    while (kind_of(a) == CXCursor_ArraySubscriptExpr && n < IR_MAX_RANK) {
        Children ch = children_of(a);
        subs[n++] = ch.items[1];
        a = strip(ch.items[0]);
    }
    const IrParam *p = kind_of(a) == CXCursor_DeclRefExpr ? param_of(ob->b, clang_getCursorReferenced(a)) : NULL;
    if (!p || p->kind != PARAM_BUFFER || p->buf->rank - n != rank) {
        if (rank == 2)
            error_at(loc_of(ob->b, ob->args.items[i]),
                     "argument %d of '%s' must be a matrix parameter (a 2-D array such as 'const half A[M][K]', or a "
                     "2-D slice of one such as 'Q[b][h]')",
                     i + 1, spelling(ob->call));
        else
            error_at(loc_of(ob->b, ob->args.items[i]),
                     "argument %d of '%s' with a 1-D tile must be a vector parameter (a pointer such as 'const float "
                     "*x', a 1-D array, or a row of a parameter such as 'X[b]'), or one moved by an offset, 'x + off'",
                     i + 1, spelling(ob->call));
        return false;
    }
    m->buf = p->buf;
    m->nlead = n;
    for (int d = 0; d < n; d++) {
        if (!uniform_arg(ob, subs[n - 1 - d], aprintf("a subscript of argument %d", i + 1)))
            return false;
        m->lead[d] = fe_cursor_text(ob->b->fe, subs[n - 1 - d]);
    }
    return vector_shift(ob, i, &offs, m);
}

static bool expect_args(OpBuild *ob, int lo, int hi)
{
    if (ob->args.n >= lo && ob->args.n <= hi)
        return true;
    error_at(loc_of(ob->b, ob->call), "'%s' takes %d%s%d arguments, not %d", spelling(ob->call), lo,
             hi == lo + 2 ? " or " : " to ", hi, ob->args.n);
    return false;
}

static bool same_elem(const IrBuffer *x, const IrBuffer *y)
{
    return x->elem.kind == y->elem.kind && x->elem.size == y->elem.size;
}

/* Is the offset of the vector argument (if any) a multiple of m? */
static bool shift_multiple_of(OpBuild *ob, long long m)
{
    Offsets offs = {.n = 0};
    if (ob->op->mat.shift)
        vector_base(ob->args.items[ob->op->kind == TILE_LOAD ? 1 : 0], &offs);
    for (int i = 0; i < offs.n; i++)
        if (!multiple_of(ob->b, offs.items[i], m))
            return false;
    return true;
}

/* tile_load(tile, matrix, r0, c0 [, rows, cols]) and tile_store(matrix,
 * tile, ...); with a 1-D tile, tile_load(tile, vector, i0 [, n]). A 1-D
 * window is kept as row 0 of a one-row matrix. */
static bool build_move(OpBuild *ob, bool load)
{
    IrTileOp *op = ob->op;
    if (ob->args.n < 3 || ob->args.n > 6) {
        error_at(loc_of(ob->b, ob->call),
                 "'%s' takes 4 or 6 arguments (tile and matrix, r0, c0 [, rows, cols]), or 3 or 4 with a 1-D tile "
                 "(tile and vector, i0 [, n])",
                 spelling(ob->call));
        return false;
    }
    IrBuffer *t = tile_arg(ob, load ? 0 : 1, load ? "the destination" : "the source");
    if (!t)
        return false;
    bool vector = t->rank == 1;
    if (vector ? ob->args.n != 3 && ob->args.n != 4 : ob->args.n != 4 && ob->args.n != 6) {
        error_at(loc_of(ob->b, ob->call), "'%s' of a %d-D tile takes %s arguments, not %d", spelling(ob->call), t->rank,
                 vector ? "3 or 4" : "4 or 6", ob->args.n);
        return false;
    }
    if (!matrix_arg(ob, load ? 1 : 0, t->rank, &op->mat))
        return false;
    if (op->mat.shift && ob->args.n == 3) { /* tile.h's in-bounds form measures the vector: an lvalue */
        error_at(loc_of(ob->b, ob->args.items[load ? 1 : 0]),
                 "the 3-argument '%s' takes a vector it can measure (tile.h takes its address, so C refuses 'x + "
                 "off' here): move the window instead, '%s', or give the extent, '%s'",
                 spelling(ob->call), load ? "tile_load(t, x, off + i0)" : "tile_store(x, t, off + i0)",
                 load ? "tile_load(t, x + off, i0, n)" : "tile_store(x + off, t, i0, n)");
        return false;
    }
    for (int i = 2; i < ob->args.n; i++)
        if (!uniform_arg(ob, ob->args.items[i], aprintf("argument %d", i + 1)))
            return false;
    if (load)
        op->dst = t;
    else
        op->src = t;
    if (vector) {
        op->r0 = "0";
        op->c0 = arg_text(ob, 2);
        if (ob->args.n == 4) {
            op->rows = "1";
            op->cols = arg_text(ob, 3);
        }
    } else {
        op->r0 = arg_text(ob, 2);
        op->c0 = arg_text(ob, 3);
        if (ob->args.n == 6) {
            op->rows = arg_text(ob, 4);
            op->cols = arg_text(ob, 5);
        }
    }
    long long align = 16 / (t->elem.size ? t->elem.size : 1);
    op->c0_aligned = multiple_of(ob->b, ob->args.items[vector ? 2 : 3], align) && shift_multiple_of(ob, align);
    op->origin_nonneg = nonnegative(ob->b, ob->args.items[2]) && (vector || nonnegative(ob->b, ob->args.items[3]));
    return true;
}

/* Shapes that multiply, and operands the tensor cores take. */
bool gemm_operands_ok(Builder *b, const IrTileOp *op, const char *what)
{
    (void)b;
    long long m = op->a_trans ? op->a->dims[1] : op->a->dims[0], ka = op->a_trans ? op->a->dims[0] : op->a->dims[1];
    long long kb = op->b_trans ? op->b->dims[1] : op->b->dims[0], n = op->b_trans ? op->b->dims[0] : op->b->dims[1];
    if (op->a->rank != 2 || op->b->rank != 2 || op->c->rank != 2 || ka != kb || op->c->dims[0] != m ||
        op->c->dims[1] != n) {
        error_at(op->loc, "'%s': the shapes do not match: A %sis %lldx%lld, B %sis %lldx%lld, C is %lldx%lld", what,
                 op->a_trans ? "(transposed) " : "", m, ka, op->b_trans ? "(transposed) " : "", kb, n, op->c->dims[0],
                 op->c->dims[1]);
        return false;
    }
    if (ka % 16) {
        error_at(op->loc, "'%s': the tensor cores multiply in steps of 16 along k; here k is %lld", what, ka);
        return false;
    }
    bool a_in_registers = op->a->space == SPACE_FRAGMENT;
    bool inputs_ok = (op->a->space == SPACE_SHARED || a_in_registers) && op->b->space == SPACE_SHARED &&
                     same_elem(op->a, op->b) && (op->a->elem.kind == SCALAR_HALF || op->a->elem.kind == SCALAR_BF16);
    if (!inputs_ok || op->c->space != SPACE_FRAGMENT || op->c->elem.kind != SCALAR_FLOAT) {
        error_at(op->loc,
                 "'%s' on tensor cores takes A as a half or bfloat16 shared tile or fragment, B as a shared tile "
                 "of the same type, and a float fragment C",
                 what);
        return false;
    }
    if (a_in_registers && op->a_trans) {
        error_at(op->loc,
                 "'%s': A is fragment '%s', whose registers hold its rows as the product reads them; a transposed "
                 "fragment is not implemented in this version of tilepp (use tile_gemm or tile_gemm_nt)",
                 what, op->a->name);
        return false;
    }
    return true;
}

static bool build_gemm(OpBuild *ob, const TileOpName *name)
{
    IrTileOp *op = ob->op;
    if (!expect_args(ob, 3, 3))
        return false;
    op->a_trans = name->a_trans;
    op->b_trans = name->b_trans;
    op->a = tile_arg(ob, 0, "the A operand");
    op->b = tile_arg(ob, 1, "the B operand");
    op->c = tile_arg(ob, 2, "the accumulator");
    if (!op->a || !op->b || !op->c)
        return false;
    return gemm_operands_ok(ob->b, op, name->name);
}

/* tile_copy(dst, src): between tiles of the same shape in any spaces,
 * converting elements (e.g. float to half). */
static bool build_copy(OpBuild *ob)
{
    IrTileOp *op = ob->op;
    if (!expect_args(ob, 2, 2))
        return false;
    op->dst = tile_arg(ob, 0, "the destination");
    op->src = tile_arg(ob, 1, "the source");
    if (!op->dst || !op->src)
        return false;
    bool same = op->dst->rank == op->src->rank;
    for (int d = 0; same && d < op->dst->rank; d++)
        same = op->dst->dims[d] == op->src->dims[d];
    if (!same) {
        error_at(op->loc, "tile_copy: '%s' and '%s' must be tiles of the same shape", op->dst->name, op->src->name);
        return false;
    }
    return true;
}

/* tile_reduce_OP(src, dst, dim, clear) as tile.h defines it; on the GPU,
 * a 2-D fragment's or shared tile's rows or columns into a 1-D fragment or
 * shared tile (lowering gives a 1-D fragment that a fragment reduces into
 * the rows' or the columns' layout). */
static bool build_reduce(OpBuild *ob, const TileOpName *name)
{
    IrTileOp *op = ob->op;
    if (!expect_args(ob, 4, 4))
        return false;
    op->reduce = name->reduce;
    op->reduce_abs = name->reduce_abs;
    op->src = tile_arg(ob, 0, "the source");
    op->dst = tile_arg(ob, 1, "the destination");
    if (!op->src || !op->dst)
        return false;
    long long dim;
    if (!const_int(ob->args.items[2], &dim) || (dim != 0 && dim != 1)) {
        error_at(loc_of(ob->b, ob->args.items[2]), "'%s': dim must be the constant 0 or 1", name->name);
        return false;
    }
    op->dim = (int)dim;
    op->clear = arg_text(ob, 3);
    if (op->src->rank != 2 || op->dst->rank != 1) {
        error_at(op->loc, "'%s': src must be a 2-D tile and dst a 1-D tile", name->name);
        return false;
    }
    long long n = dim == 1 ? op->src->dims[0] : op->src->dims[1];
    if (op->dst->dims[0] != n) {
        error_at(op->loc, "'%s': a %lld x %lld tile reduced along dim %lld gives %lld values, but '%s' has %lld",
                 name->name, op->src->dims[0], op->src->dims[1], dim, n, op->dst->name, op->dst->dims[0]);
        return false;
    }
    if (op->dst->space != SPACE_FRAGMENT && op->dst->space != SPACE_SHARED) {
        error_at(op->loc, "'%s': dst '%s' must be a 1-D fragment or shared tile", name->name, op->dst->name);
        return false;
    }
    if (op->src->space == SPACE_SHARED) { /* one thread a line, in index order (tile80::reduce_shared) */
        bool floating = op->src->elem.kind == SCALAR_FLOAT || op->src->elem.kind == SCALAR_HALF ||
                        op->src->elem.kind == SCALAR_BF16;
        if (!floating) {
            error_at(op->loc, "'%s' on the GPU reduces shared tiles of float, half or bfloat16; '%s' holds %s",
                     name->name, op->src->name, op->src->elem.spelling);
            return false;
        }
        return true;
    }
    if (op->src->space != SPACE_FRAGMENT) {
        error_at(op->loc, "'%s' on the GPU reduces a shared tile or a fragment; '%s' is neither", name->name,
                 op->src->name);
        return false;
    }
    return true;
}

/* The argument's text as `#x` spells it in tile.h's CPU tile_print: runs of
 * white space (comments included) one space, none at either end. */
static char *print_name(const char *text)
{
    Str s = {0};
    bool space = false;
    for (const char *p = text; *p; p++) {
        bool comment = p[0] == '/' && (p[1] == '*' || p[1] == '/');
        if (comment && p[1] == '*') {
            const char *end = strstr(p + 2, "*/");
            p = end ? end + 1 : p + strlen(p) - 1;
        } else if (comment) {
            while (p[1] && p[1] != '\n')
                p++;
        }
        if (comment || isspace((unsigned char)*p)) {
            space = true;
            continue;
        }
        if (space && s.len)
            str_add(&s, " ");
        space = false;
        str_addf(&s, "%c", *p);
    }
    return atake(&s);
}

/* The argument of the tile_print call `call` as written in the file (what
 * `#x` stringizes in tile.h: before macro expansion), or NULL when the call
 * is not written there as `tile_print(...)`. */
static char *print_argument(const FrontEnd *fe, CXCursor call)
{
    CXFile file;
    unsigned at, end;
    clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(call)), &file, NULL, NULL, &at);
    if (!file || !clang_File_isEqual(file, fe->file) || at + 10 > fe->len || strncmp(fe->text + at, "tile_print", 10))
        return NULL;
    unsigned open = at + 10;
    while (open < fe->len && isspace((unsigned char)fe->text[open]))
        open++;
    if (open >= fe->len || fe->text[open] != '(' || !call_end(fe, open, &end))
        return NULL;
    return astrndup(fe->text + open + 1, end - open - 2);
}

/* A buffer parameter of the kernel that e reads, or NULL (*at: where). */
static const IrParam *reads_buffer(Builder *b, CXCursor e, CXCursor *at)
{
    if (kind_of(e) == CXCursor_UnaryExpr)
        return NULL;
    if (kind_of(e) == CXCursor_DeclRefExpr) {
        const IrParam *p = param_of(b, clang_getCursorReferenced(e));
        if (p && p->kind == PARAM_BUFFER) {
            *at = e;
            return p;
        }
    }
    Children ch = children_of(e);
    for (int i = 0; i < ch.n; i++) {
        const IrParam *p = reads_buffer(b, ch.items[i], at);
        if (p)
            return p;
    }
    return NULL;
}

/* tile_print(x) (tile_ops.h passes x as the second argument): a whole tile
 * of the block, or a scalar with one value for the whole block. */
static bool build_print(OpBuild *ob)
{
    IrTileOp *op = ob->op;
    if (ob->args.n != 2) {
        error_at(op->loc, "tile_print takes one argument");
        return false;
    }
    CXCursor arg = ob->args.items[1], e = strip(arg), at;
    char *text = print_argument(ob->b->fe, ob->call);
    if (!text) {
        error_at(op->loc, "the argument of tile_print must be written in the file itself, not made by a macro");
        return false;
    }
    op->print_name = print_name(text);
    if (kind_of(e) == CXCursor_DeclRefExpr && grid_tile(ob->g, spelling(e))) {
        op->src = tile_arg(ob, 1, "the argument");
        return op->src != NULL;
    }
    CXType type = clang_getCanonicalType(clang_getCursorType(e));
    if (type.kind == CXType_ConstantArray || type.kind == CXType_VariableArray || type.kind == CXType_IncompleteArray ||
        type.kind == CXType_Pointer) {
        error_at(loc_of(ob->b, arg),
                 "tile_print on the GPU prints a whole tile of the block ('#pragma tile shared' or 'fragment') or "
                 "a scalar, not '%s'",
                 op->print_name);
        return false;
    }
    if (!uniform_arg(ob, arg, "the argument"))
        return false;
    const IrParam *p = reads_buffer(ob->b, e, &at);
    if (p) {
        error_at(loc_of(ob->b, at),
                 "tile_print on the GPU prints a value of the block, not an element of '%s' in memory: read it into "
                 "a variable of the block in a statement before and print that",
                 p->name);
        return false;
    }
    op->print_type = ir_type(clang_getCursorType(e));
    if (op->print_type.kind == SCALAR_OTHER) {
        error_at(loc_of(ob->b, arg), "tile_print prints a tile or an arithmetic value, not a '%s'",
                 op->print_type.spelling);
        return false;
    }
    op->value = text;
    return true;
}

static IrStmt *build_tile_op(Builder *b, IrGrid *g, CXCursor call, const TileOpName *name)
{
    IrTileOp *op = anew(sizeof *op);
    op->kind = name->kind;
    op->loc = loc_of(b, call);
    OpBuild ob = {b, g, call, {0}, op};
    int nargs = clang_Cursor_getNumArguments(call);
    ob.args.items = anew((size_t)(nargs + 1) * sizeof *ob.args.items);
    for (int i = 0; i < nargs; i++)
        ob.args.items[ob.args.n++] = clang_Cursor_getArgument(call, (unsigned)i);
    bool ok;
    switch (name->kind) {
    case TILE_CLEAR:
    case TILE_FILL:
        ok = expect_args(&ob, name->kind == TILE_CLEAR ? 1 : 2, name->kind == TILE_CLEAR ? 1 : 2) &&
             (op->dst = tile_arg(&ob, 0, "the tile")) != NULL;
        if (ok && name->kind == TILE_FILL) {
            ok = uniform_arg(&ob, ob.args.items[1], "the value");
            op->value = arg_text(&ob, 1);
        }
        break;
    case TILE_LOAD:
    case TILE_STORE:
        ok = build_move(&ob, name->kind == TILE_LOAD);
        break;
    case TILE_GEMM:
        ok = build_gemm(&ob, name);
        break;
    case TILE_COPY:
        ok = build_copy(&ob);
        break;
    case TILE_REDUCE:
        ok = build_reduce(&ob, name);
        break;
    case TILE_PRINT:
        ok = build_print(&ob);
        break;
    default:
        error_at(op->loc, "'%s' is not implemented yet on the GPU in this version of tilepp", name->name);
        ok = false;
    }
    if (!ok)
        return NULL;
    const Pragma *gemm = fe_pragma_on(b->fe, call, PRAGMA_GEMM);
    if (gemm) {
        use_pragma(b, gemm);
        if (op->kind != TILE_GEMM) {
            error_at(gemm->loc, "'#pragma tile gemm' applies to a matrix multiply, not to '%s'", name->name);
            return NULL;
        }
        const PClause *policy = pragma_clause(gemm, "policy");
        op->policy = policy ? policy_name(policy) : NULL;
    }
    return op_stmt(b, op, call, gemm);
}

/* ---- block bodies ---- */

/* Where block statements stand: at the block's top level, in its pipelined
 * loop, or in a sequential loop of the block. */
typedef enum { AT_BLOCK, IN_PIPELINE, IN_SEQ } BlockPlace;

static bool build_block_stmts(Builder *b, IrGrid *g, CXCursor body, Vec *out, BlockPlace place);

static IrStmt *build_pipelined(Builder *b, IrGrid *g, CXCursor loop, const Pragma *p)
{
    IrPipelined *pipe = anew(sizeof *pipe);
    pipe->loc = p->loc;
    pipe->stages = 1;
    const PClause *stages = pragma_clause(p, "stages");
    long long s = 1;
    if (stages && !clause_int(b, p, stages, 1, 8, &s))
        return NULL;
    pipe->stages = (int)s;
    CXCursor var, body;
    if (!canonical_loop(b, loop, &pipe->loop, &var, &body))
        return NULL;
    add_block_var(b, var, &pipe->loop);
    if (!build_block_stmts(b, g, body, &pipe->body, IN_PIPELINE))
        return NULL;
    /* The pipeline overlaps the loads of later iterations with the work of
     * this one: the loads must come first, and fill shared tiles only (which
     * get one buffer per stage). */
    bool computing = false;
    for (int i = 0; i < pipe->body.len; i++) {
        const IrStmt *st = pipe->body.items[i];
        bool load = st->kind == STMT_TILE_OP && st->op->kind == TILE_LOAD;
        if (load && computing) {
            error_at(st->loc, "in a pipelined loop the tile loads come first, before the work that uses them");
            return NULL;
        }
        if (load && st->op->dst->space != SPACE_SHARED) {
            error_at(st->loc,
                     "in a pipelined loop tile_load fills shared tiles, which have a buffer per stage; load fragment "
                     "'%s' before or after the loop, or through a shared tile",
                     st->op->dst->name);
            return NULL;
        }
        computing |= !load;
    }
    IrStmt *st = new_stmt(b, STMT_PIPELINED, loop, p);
    st->pipe = pipe;
    return st;
}

static bool declares_array(CXCursor stmt)
{
    Children vars = children_of(stmt);
    for (int i = 0; i < vars.n; i++) {
        CXType t = clang_getCanonicalType(clang_getCursorType(vars.items[i]));
        if (kind_of(vars.items[i]) == CXCursor_VarDecl &&
            (t.kind == CXType_ConstantArray || t.kind == CXType_VariableArray || t.kind == CXType_IncompleteArray))
            return true;
    }
    return false;
}

/* An array in a block without a tile pragma: where would it live? Refused,
 * but known to the block, so that its uses draw no further errors. */
static bool refuse_plain_array(Builder *b, IrGrid *g, CXCursor stmt)
{
    Children vars = children_of(stmt);
    for (int i = 0; i < vars.n; i++) {
        if (kind_of(vars.items[i]) != CXCursor_VarDecl)
            continue;
        IrBuffer *t = anew(sizeof *t);
        t->name = spelling(vars.items[i]);
        t->loc = loc_of(b, vars.items[i]);
        vec_push(&g->tiles, t);
        error_at(t->loc, "array '%s' in a grid block: say where it lives with '#pragma tile shared' or 'fragment'",
                 t->name);
    }
    return false;
}

/* `#pragma tile gemm` on the user's own loop nest or micro-kernel call. */
static IrStmt *build_matched_gemm(Builder *b, IrGrid *g, CXCursor stmt, const Pragma *p)
{
    use_pragma(b, p);
    IrTileOp *op =
        kind_of(stmt) == CXCursor_ForStmt ? match_gemm_loop(b, &g->tiles, stmt) : match_gemm_call(b, &g->tiles, stmt);
    if (!op)
        return NULL;
    const PClause *policy = pragma_clause(p, "policy");
    op->policy = policy ? policy_name(policy) : NULL;
    return op_stmt(b, op, stmt, p);
}

static bool add_stmt(Vec *out, IrStmt *s)
{
    if (s)
        vec_push(out, s);
    return s != NULL;
}

/* The first tile pragma inside stmt (not on it), or NULL. */
static const Pragma *pragma_inside(Builder *b, CXCursor stmt)
{
    unsigned begin, end;
    if (!fe_cursor_range(b->fe, stmt, &begin, &end))
        return NULL;
    for (int i = 0; i < b->fe->attached.len; i++) {
        const Pragma *p = ((const Attached *)b->fe->attached.items[i])->pragma;
        if (p->begin_offset > begin && p->begin_offset < end)
            return p;
    }
    return NULL;
}

/* Any other statement of a block: every thread runs it alike; one thread
 * runs a statement that writes memory. */
static IrStmt *build_scalar_stmt(Builder *b, CXCursor stmt)
{
    const Pragma *inner = pragma_inside(b, stmt);
    if (inner) {
        use_pragma(b, inner);
        error_at(inner->loc,
                 "'#pragma tile %s' inside this statement of a grid block is not supported: a block's parallel "
                 "loops stand in the block itself or in its sequential for loops",
                 pragma_kind_name(inner->kind));
        return NULL;
    }
    IrStmt *s = new_stmt(b, STMT_SCALAR, stmt, NULL);
    bool failed = false;
    CodeEffects fx;
    s->code = build_code(b, stmt, CODE_UNIFORM, &s->accesses, &fx, &failed);
    if (failed)
        return NULL;
    if (fx.writes_memory && fx.writes_locals) {
        error_at(s->loc, "this statement of a grid block writes memory and assigns variables of the block: one thread "
                         "writes the memory, every thread keeps the variables; split it into two statements");
        return NULL;
    }
    s->writes_memory = fx.writes_memory;
    s->assigns = fx.assigns;
    return s;
}

/* A `for` loop without a pragma in a block: every thread runs it alike,
 * and its body is block statements (parallel loops among them). */
static IrStmt *build_seq(Builder *b, IrGrid *g, CXCursor loop)
{
    Children ch = children_of(loop);
    CXCursor body = ch.items[ch.n - 1];
    unsigned begin, end, body_begin, body_end;
    if (!fe_cursor_range(b->fe, loop, &begin, &end) || !fe_cursor_range(b->fe, body, &body_begin, &body_end)) {
        error_at(loc_of(b, loop), "a loop of a grid block must be written in the file itself, not in a macro");
        return NULL;
    }
    IrStmt *s = new_stmt(b, STMT_SEQ, loop, NULL);
    IrSeqLoop *seq = anew(sizeof *seq);
    seq->loc = s->loc;
    seq->header = ir_code_new(s->loc);
    ir_code_add_text(seq->header, b->fe->text + begin, body_begin - begin);
    s->seq = seq;
    /* The header runs on every thread as written: it may read, not write, memory. */
    bool ok = true;
    for (int i = 0; i < ch.n - 1; i++) {
        CXCursor part = ch.items[i];
        if (kind_of(part) == CXCursor_DeclStmt) {
            Children vars = children_of(part);
            for (int v = 0; v < vars.n; v++) {
                CXCursor *saved = anew(sizeof *saved);
                *saved = vars.items[v];
                vec_push(&b->block_locals, saved);
                vec_push(&seq->vars, spelling(vars.items[v]));
            }
        }
        CodeEffects fx;
        bool failed = false;
        Vec header_accesses = {0};
        build_code(b, part, CODE_UNIFORM, &header_accesses, &fx, &failed);
        for (int a = 0; a < header_accesses.len && !failed; a++) {
            const IrAccess *acc = header_accesses.items[a];
            if (acc->buf->space != SPACE_GLOBAL) {
                error_at(acc->loc, "the header of a loop in a grid block cannot use tile '%s'", acc->buf->name);
                failed = true;
            }
            vec_push(&s->accesses, (void *)acc);
        }
        if (!failed && fx.writes_memory) {
            error_at(loc_of(b, part), "the header of a loop in a grid block runs on every thread: it may not write "
                                      "memory");
            failed = true;
        }
        ok &= !failed;
    }
    if (!ok || !build_block_stmts(b, g, body, &seq->body, IN_SEQ))
        return NULL;
    return s;
}

static IrStmt *build_block_parallel(Builder *b, CXCursor loop, const Pragma *p)
{
    IrParallel *par = build_parallel(b, loop, p);
    if (!par)
        return NULL;
    par->in_block = true;
    IrStmt *s = new_stmt(b, STMT_PARALLEL, loop, p);
    s->par = par;
    return s;
}

static bool build_block_stmts(Builder *b, IrGrid *g, CXCursor body, Vec *out, BlockPlace place);

/* Does the condition of a guard mention a variable that a guarded loop
 * reduces into (and so changes between the loops it guards)? */
static const IrReduce *reduces_into_guard(const Vec *guarded, const IrCode *cond)
{
    for (int i = 0; i < guarded->len; i++) {
        const IrParallel *par = ((const IrStmt *)guarded->items[i])->par;
        for (int r = 0; r < par->reduces.len; r++) {
            const IrReduce *red = par->reduces.items[r];
            if (code_mentions(cond, red->var))
                return red;
        }
    }
    return NULL;
}

/* `if (cond) A [else B]` in a block, around parallel loops: each loop of A
 * runs where cond holds, each of B where it does not. The condition is
 * evaluated before each loop, by every thread alike, so it may read only
 * what the loops cannot change: scalars of the block, parameters,
 * constants. Anything but parallel loops under it is refused (a product or
 * a load under a condition would need the pipeline's stages and the
 * warp-specialized roles to agree on it). */
static bool build_guarded(Builder *b, IrGrid *g, CXCursor stmt, BlockPlace place, Vec *out)
{
    Children ch = children_of(stmt);
    if (ch.n < 2 || ch.n > 3) {
        error_at(loc_of(b, stmt), "this 'if' of a grid block has a form tilepp does not take apart: write "
                                  "'if (condition) { ... } else { ... }'");
        return false;
    }
    Vec accesses = {0};
    CodeEffects fx;
    bool failed = false;
    IrCode *cond = build_condition_code(b, ch.items[0], &accesses, &fx, &failed);
    if (failed)
        return false;
    if (accesses.len || fx.writes_memory || fx.writes_locals) {
        error_at(loc_of(b, ch.items[0]),
                 accesses.len ? "the condition of an 'if' around parallel loops in a grid block reads '%s': it may "
                                "read only scalars (the block's variables, parameters, constants), the same for "
                                "every thread"
                              : "the condition of an 'if' around parallel loops in a grid block changes %s: it "
                                "may only read",
                 accesses.len       ? ((const IrAccess *)accesses.items[0])->buf->name
                 : fx.writes_memory ? "memory"
                                    : "variables of the block");
        return false;
    }
    Vec guarded = {0};
    for (int branch = 1; branch < ch.n; branch++) {
        Vec inner = {0};
        if (!build_block_stmts(b, g, ch.items[branch], &inner, place))
            return false;
        for (int i = 0; i < inner.len; i++) {
            IrStmt *s = inner.items[i];
            if (s->kind != STMT_PARALLEL) {
                error_at(s->loc, "only parallel loops may stand under an 'if' in a grid block in this version of "
                                 "tilepp: move this statement out of the 'if'");
                return false;
            }
            IrGuard *gd = anew(sizeof *gd);
            *gd = (IrGuard){cond, branch == 2, s->par->guard};
            s->par->guard = gd;
            vec_push(&guarded, s);
        }
    }
    const IrReduce *red = reduces_into_guard(&guarded, cond);
    if (red) {
        error_at(loc_of(b, ch.items[0]),
                 "the condition of this 'if' reads '%s', which a parallel loop under it reduces into: it would change "
                 "between the loops it guards; test a copy taken before the 'if'",
                 red->var);
        return false;
    }
    for (int i = 0; i < guarded.len; i++)
        vec_push(out, guarded.items[i]);
    return true;
}

/* Adds what the statement becomes to `out`; false after reporting. */
static bool build_block_stmt(Builder *b, IrGrid *g, CXCursor stmt, BlockPlace place, Vec *out)
{
    enum CXCursorKind k = kind_of(stmt);
    const Attached *a = fe_attached_on(b->fe, stmt);
    bool in_pipeline = place == IN_PIPELINE;
    if (a && place == IN_SEQ && a->pragma->kind != PRAGMA_PARALLEL && a->pragma->kind != PRAGMA_GEMM) {
        use_pragma(b, a->pragma);
        error_at(a->pragma->loc,
                 "'#pragma tile %s' in a sequential loop of a grid block is not implemented yet in "
                 "this version of tilepp (parallel loops, tile operations and products are): %s",
                 pragma_kind_name(a->pragma->kind),
                 a->pragma->kind == PRAGMA_PIPELINED ? "a block's pipelined loop stands at its top level"
                                                     : "declare the block's tiles at its top level");
        return false;
    }
    if (a &&
        (a->pragma->kind == PRAGMA_SHARED || a->pragma->kind == PRAGMA_FRAGMENT || a->pragma->kind == PRAGMA_LOCAL)) {
        use_pragma(b, a->pragma);
        return build_tile_decls(b, g, stmt, a->pragma, in_pipeline, out);
    }
    if (a && a->pragma->kind == PRAGMA_PIPELINED) {
        use_pragma(b, a->pragma);
        if (in_pipeline) {
            error_at(a->pragma->loc, "pipelined loops cannot be nested");
            return false;
        }
        return add_stmt(out, build_pipelined(b, g, stmt, a->pragma));
    }
    if (k == CXCursor_CallExpr) {
        const TileOpName *name = tile_op_named(spelling(stmt));
        if (name && name->kind == TILE_PRINT && in_pipeline) {
            error_at(loc_of(b, stmt), "tile_print in a pipelined loop is not implemented yet in this version of "
                                      "tilepp: print before or after the loop");
            return false;
        }
        if (name)
            return add_stmt(out, build_tile_op(b, g, stmt, name));
    }
    if (a && a->pragma->kind == PRAGMA_GEMM && (k == CXCursor_ForStmt || k == CXCursor_CallExpr))
        return add_stmt(out, build_matched_gemm(b, g, stmt, a->pragma));
    if (a && a->pragma->kind == PRAGMA_PARALLEL) { /* in a pipelined loop: over fragments (lower_block.c) */
        use_pragma(b, a->pragma);
        return add_stmt(out, build_block_parallel(b, stmt, a->pragma));
    }
    if (a && a->pragma->kind != PRAGMA_GEMM) {
        use_pragma(b, a->pragma);
        refuse_misplaced(b, a->pragma, "inside a grid block");
        return false;
    }
    if (k == CXCursor_DeclStmt && declares_array(stmt))
        return refuse_plain_array(b, g, stmt);
    if (k == CXCursor_NullStmt)
        return true;
    if (k == CXCursor_IfStmt && pragma_inside(b, stmt))
        return build_guarded(b, g, stmt, place, out);
    if (in_pipeline) {
        error_at(loc_of(b, stmt), "a pipelined loop holds its tile loads, then tile operations on what they loaded; "
                                  "this statement belongs before or after the loop");
        return false;
    }
    if (k == CXCursor_DeclStmt)
        return add_stmt(out, build_decl_stmt(b, stmt));
    if (k == CXCursor_ForStmt)
        return add_stmt(out, build_seq(b, g, stmt));
    return add_stmt(out, build_scalar_stmt(b, stmt));
}

/* Refuses a tile operation of `body` (sequential loops' too) on `t`, a
 * tile the pipelined loop loads. */
static bool staged_tile_unused(const Vec *body, const IrBuffer *t)
{
    for (int j = 0; j < body->len; j++) {
        const IrStmt *s = body->items[j];
        if (s->kind == STMT_SEQ && !staged_tile_unused(&s->seq->body, t))
            return false;
        if (s->kind == STMT_TILE_OP && tile_op_uses(s->op, t)) {
            error_at(s->loc,
                     "'%s' is loaded in the pipelined loop, which keeps several stages of it: use it inside that loop",
                     t->name);
            return false;
        }
    }
    return true;
}

/* A block has one pipelined loop, and the shared tiles it loads are
 * multi-buffered: outside the loop no stage holds "the" tile. */
static bool check_pipeline_use(const IrGrid *g)
{
    const IrPipelined *pipe = NULL;
    for (int i = 0; i < g->body.len; i++) {
        const IrStmt *s = g->body.items[i];
        if (s->kind != STMT_PIPELINED)
            continue;
        if (pipe) {
            error_at(s->loc, "a grid block has at most one pipelined loop in this version of tilepp");
            return false;
        }
        pipe = s->pipe;
    }
    for (int i = 0; pipe && i < pipe->body.len; i++) {
        const IrStmt *load = pipe->body.items[i];
        if (load->kind == STMT_TILE_OP && load->op->kind == TILE_LOAD && !staged_tile_unused(&g->body, load->op->dst))
            return false;
    }
    return true;
}

static bool build_block_stmts(Builder *b, IrGrid *g, CXCursor body, Vec *out, BlockPlace place)
{
    Children stmts = kind_of(body) == CXCursor_CompoundStmt ? children_of(body) : (Children){0};
    if (kind_of(body) != CXCursor_CompoundStmt) {
        stmts.items = anew(sizeof *stmts.items);
        stmts.items[stmts.n++] = body;
    }
    bool ok = true;
    for (int i = 0; i < stmts.n; i++)
        ok &= build_block_stmt(b, g, stmts.items[i], place, out);
    return ok;
}

IrGrid *build_grid(Builder *b, CXCursor loop, const Pragma *pragma)
{
    IrGrid *g = anew(sizeof *g);
    g->loc = pragma->loc;
    const PClause *swizzle = pragma_clause(pragma, "swizzle");
    long long panel = 0;
    if (swizzle && !clause_int(b, pragma, swizzle, 1, 64, &panel))
        return NULL;
    g->swizzle = (int)panel;
    b->block_vars.len = 0;
    CXCursor body = loop;
    for (;;) {
        CXCursor var;
        if (!canonical_loop(b, loop, &g->loops[g->depth], &var, &body))
            return NULL;
        b->loop_vars[g->depth] = var;
        add_block_var(b, var, &g->loops[g->depth]);
        g->depth++;
        CXCursor inner;
        if (g->depth == IR_MAX_NEST || !only_loop_in(body, &inner) || fe_attached_on(b->fe, inner))
            break;
        Children ch = children_of(inner);
        if (ch.n != 4 || bounds_mention_outer(b, inner, g->depth))
            break;
        loop = inner;
    }
    if (g->swizzle && g->depth == 1)
        warning_at(swizzle->loc, "swizzle(%d) has no effect on a grid of one loop: its blocks have one order",
                   g->swizzle);
    b->grid = g;
    b->block_locals.len = 0;
    bool ok = build_block_stmts(b, g, body, &g->body, AT_BLOCK) && check_pipeline_use(g);
    b->grid = NULL;
    return ok ? g : NULL;
}

/* ir.h — the tilepp IR: kernels, buffers, loops and code.
 *
 * Takes: built by build_ir.c from the parsed file. Gives: what checks,
 * lowering and emission work on; nothing after the front end sees libclang.
 *
 * The IR is explicit where tilepp changes the program and keeps C where it
 * does not. Loops, buffers and their accesses are structured: that is what
 * the checks reason about and what lowering maps onto threads, registers and
 * wide memory operations. Everything else — the scalar C inside a loop body —
 * is an IrCode: the original source text, cut at each buffer access. The text
 * is valid in both C and the generated CUDA because the device runtime gives
 * `half`, `bfloat16` and C99 array parameters the same meaning there.
 *
 * Later stages extend this file, not replace it: shared/fragment/local
 * buffers (BufferSpace), grid nests and tile operations (IrStmtKind) already
 * have their place. */
#ifndef TILEPP_IR_H
#define TILEPP_IR_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"
#include "pragma.h"
#include "util.h"

enum { IR_MAX_NEST = 3, IR_MAX_RANK = 8, IR_MAX_REDUCE = 16 };

typedef enum {
    SCALAR_BOOL,
    SCALAR_INT, /* any integer type; see is_signed and size */
    SCALAR_HALF,
    SCALAR_BF16,
    SCALAR_FLOAT,
    SCALAR_DOUBLE,
    SCALAR_OTHER, /* structs and the like: carried as text only */
} ScalarKind;

typedef struct IrType {
    ScalarKind kind;
    int size; /* bytes */
    bool is_signed;
    char *spelling; /* as written, qualifiers included: "const half" */
} IrType;

typedef enum { SPACE_GLOBAL, SPACE_SHARED, SPACE_FRAGMENT, SPACE_LOCAL } BufferSpace;

/* An array in some memory space. A kernel's pointer and array parameters are
 * global buffers; `#pragma tile shared` declarations will be shared ones. */
typedef struct IrBuffer {
    char *name;
    IrType elem;
    bool is_const;
    bool is_restrict; /* a parameter declared `T *restrict x` or `T x[restrict n]...` */
    int rank;
    char *extents[IR_MAX_RANK];  /* C text per dimension; [0] may be NULL */
    long long dims[IR_MAX_RANK]; /* tiles: the constant extents */
    BufferSpace space;
    SrcLoc loc;
} IrBuffer;

typedef enum { PARAM_SCALAR, PARAM_BUFFER } IrParamKind;

typedef struct IrParam {
    IrParamKind kind;
    char *name;
    IrType type;   /* PARAM_SCALAR */
    IrBuffer *buf; /* PARAM_BUFFER */
    SrcLoc loc;
} IrParam;

/* An index expression as sum(coef[d] * loopvar[d]) + offset + rest, where
 * rest is loop-invariant C (canonical token text, "" if none). */
typedef struct Affine {
    bool ok;
    long long coef[IR_MAX_NEST];
    long long offset;
    char *rest;
} Affine;

/* One subscript of a buffer inside a loop body, e.g. `y[r][c]`: of a
 * kernel's buffer parameter, or (in grid blocks) of a shared tile. */
typedef struct IrAccess {
    IrBuffer *buf;
    char *text;              /* the access as written */
    int ndims;               /* subscripts given; == buf->rank for an element access */
    char *subs[IR_MAX_RANK]; /* the subscripts as written */
    Affine index[IR_MAX_RANK];
    bool is_read, is_write;
    bool conditional; /* under if, ?:, &&, ||, switch or an inner loop, or after a continue */
    bool nested;      /* inside another access's subscript */
    bool escapes;     /* address taken, or not a whole-element access */
    SrcLoc loc;
} IrAccess;

typedef enum { SEG_TEXT, SEG_ACCESS } IrSegKind;

typedef struct IrSeg {
    IrSegKind kind;
    char *text;       /* SEG_TEXT */
    IrAccess *access; /* SEG_ACCESS: replaced by a register when vectorised */
} IrSeg;

/* C source text with its top-level buffer accesses cut out. */
typedef struct IrCode {
    IrSeg *segs;
    int nsegs;
    SrcLoc loc; /* where the text starts, for #line */
} IrCode;

/* A canonical for loop: for (T var = lo; var REL hi; var += step). */
typedef struct IrLoop {
    char *var;
    IrType var_type;
    char *lo, *hi, *step; /* C text */
    bool step_is_const;
    long long step_const;
    bool bounds_const; /* lo and hi are integer constant expressions: */
    long long lo_const, hi_const;
    bool inclusive; /* <= or >= */
    bool descending;
    SrcLoc loc;
} IrLoop;

typedef enum { RED_SUM, RED_PROD, RED_MAX, RED_MIN, RED_AND, RED_OR, RED_XOR, RED_LAND, RED_LOR } IrReduceOp;

/* `reduce(op: var)`, as OpenMP means it: each thread updates a private copy
 * that starts at op's identity, and after the loop the variable holds its
 * value before the loop combined with every copy. */
typedef struct IrReduce {
    IrReduceOp op;
    char *op_text; /* as written: "+", "max", ... */
    char *var;
    IrType type;       /* of the variable */
    bool kernel_level; /* a variable of the kernel, reduced over the whole grid */
    SrcLoc loc;
} IrReduce;

/* `#pragma tile parallel`: a perfect nest whose iterations are independent. */
/* A condition every thread of a block evaluates alike (it reads scalars of
 * the block, its parameters and constants, nothing in memory), under which
 * a parallel loop of the block runs: the user's `if (cond)` around it
 * (negate: the loop stands in the `else`). Nested ifs chain, outermost
 * first. */
typedef struct IrGuard {
    IrCode *cond;
    bool negate;
    const struct IrGuard *inner;
} IrGuard;

typedef struct IrParallel {
    IrLoop loops[IR_MAX_NEST];
    int depth;
    int vector; /* iterations of the innermost loop per thread */
    SrcLoc vector_loc;
    IrCode *body;
    Vec accesses;         /* IrAccess*, every access in the body, nested ones too */
    Vec reduces;          /* IrReduce* */
    bool in_block;        /* inside a grid block: over the block's threads */
    const IrGuard *guard; /* in a block: runs only where these hold; NULL: always */
    Vec inner_pragmas;    /* const Pragma*: `#pragma tile local` in the body, honoured as they stand */
    SrcLoc loc;           /* of the pragma */
} IrParallel;

/* ---- tiles ----
 * Inside a `#pragma tile grid` nest each iteration is one thread block, which
 * works on tiles: shared-memory and register (fragment) buffers, moved and
 * combined by tile operations, the calls of tile.h. */

typedef enum {
    TILE_CLEAR,  /* tile_clear(t) */
    TILE_FILL,   /* tile_fill(t, v) */
    TILE_LOAD,   /* tile_load(dst tile, src matrix, r0, c0 [, rows, cols]) */
    TILE_STORE,  /* tile_store(dst matrix, src tile, r0, c0 [, rows, cols]) */
    TILE_COPY,   /* tile_copy(dst, src) */
    TILE_GEMM,   /* tile_gemm[_nt|_tn|_tt](A, B, C): C += op(A) op(B) */
    TILE_REDUCE, /* tile_reduce_max|min|sum|absmax|abssum(src, dst, dim, clear) */
    TILE_PRINT   /* tile_print(x): a whole tile (src) or a scalar (value) */
} TileOpKind;

/* A matrix operand in global memory: a buffer parameter, or a 2-D slice of
 * one (`Q[b][h]` of `Q[B][H][S][D]`), with its leading indices as C text. */
typedef struct IrMatrix {
    IrBuffer *buf;
    char *lead[IR_MAX_RANK]; /* the subscripts that select the slice */
    int nlead;
    char *shift; /* a vector `x + off`: off, the elements its start is moved by (C text); NULL: none */
} IrMatrix;

typedef struct IrTileOp {
    TileOpKind kind;
    IrBuffer *dst, *src;   /* tiles (LOAD: dst; STORE: src; COPY: both) */
    IrMatrix mat;          /* LOAD: the source; STORE: the destination */
    char *r0, *c0;         /* LOAD/STORE: the tile's origin in the matrix (C text) */
    bool c0_aligned;       /* LOAD: c0 is always a multiple of 16 bytes' worth of elements */
    bool origin_nonneg;    /* LOAD/STORE: r0 and c0 are never negative (the window never starts before
                              the matrix), as far as tilepp can tell */
    char *rows, *cols;     /* LOAD/STORE: the matrix's extent (C text); NULL: 4-argument form */
    char *value;           /* FILL: the value (C text) */
    IrBuffer *a, *b, *c;   /* GEMM */
    bool a_trans, b_trans; /* GEMM: _tn / _nt / _tt */
    char *policy;          /* GEMM: warp arrangement from `#pragma tile gemm policy(...)`, or NULL */
    IrReduceOp reduce;     /* REDUCE: RED_MAX, RED_MIN or RED_SUM (of |x| when reduce_abs) */
    bool reduce_abs;
    int dim;           /* REDUCE: 1, one value per row of src; 0, per column */
    char *clear;       /* REDUCE: C text; nonzero starts from the identity, zero combines with dst's values */
    char *print_name;  /* PRINT: the argument as `#x` spells it (the name printed) */
    IrType print_type; /* PRINT of a scalar: its type */
    SrcLoc loc;
} IrTileOp;

typedef struct IrStmt IrStmt;

/* `#pragma tile pipelined stages(S)`: a loop whose tile loads for iteration
 * k + S - 1 are in flight while iteration k computes. */
typedef struct IrPipelined {
    IrLoop loop;
    int stages;
    Vec body; /* IrStmt*: tile operations */
    SrcLoc loc;
} IrPipelined;

/* `#pragma tile grid [swizzle(P)]`: one thread block per iteration. */
typedef struct IrGrid {
    IrLoop loops[IR_MAX_NEST];
    int depth;
    int swizzle; /* L2 panel height in blocks; 0: plain order */
    Vec body;    /* IrStmt* */
    Vec tiles;   /* IrBuffer*: its shared and fragment buffers */
    SrcLoc loc;
} IrGrid;

/* A sequential `for` loop in a grid block, around block statements: every
 * thread runs it alike. */
typedef struct IrSeqLoop {
    IrCode *header; /* `for (int c = 0; c < n; c += 256)`: the text up to the body */
    Vec vars;       /* char*: the variables its header declares */
    Vec body;       /* IrStmt* */
    SrcLoc loc;
} IrSeqLoop;

typedef enum {
    STMT_DECL,      /* a scalar declaration */
    STMT_SCALAR,    /* in a grid block: a statement every thread runs alike (one thread, if it writes memory) */
    STMT_SEQ,       /* in a grid block: a sequential loop around block statements */
    STMT_PARALLEL,  /* a parallel loop nest */
    STMT_GRID,      /* a grid of thread blocks */
    STMT_TILE_DECL, /* a shared / fragment / local buffer */
    STMT_TILE_OP,   /* a tile operation */
    STMT_PIPELINED, /* a software-pipelined loop */
} IrStmtKind;

struct IrStmt {
    IrStmtKind kind;
    SrcLoc loc;
    unsigned src_begin;   /* byte offset of the source statement it comes from */
    const Pragma *pragma; /* the pragma it honours (parallel, grid, pipelined, shared/fragment, gemm), or NULL */
    IrCode *code;         /* STMT_DECL, STMT_SCALAR: the text (accesses cut out in grid blocks) */
    Vec accesses;         /* STMT_DECL, STMT_SCALAR in grid blocks: IrAccess*, nested ones too */
    bool writes_memory;   /* STMT_SCALAR: writes a buffer (or passes one away): one thread runs it */
    Vec assigns;          /* STMT_SCALAR: the variables of the block it assigns (char*) */
    Vec decl_names;       /* STMT_DECL: the variables it declares (char*) */
    Vec decl_uses;        /* STMT_DECL: names of params/locals its initializers read (char*) */
    bool reads_memory;    /* STMT_DECL: dereferences a pointer or buffer */
    IrParallel *par;      /* STMT_PARALLEL */
    IrGrid *grid;         /* STMT_GRID */
    IrBuffer *tile;       /* STMT_TILE_DECL */
    IrTileOp *op;         /* STMT_TILE_OP */
    IrPipelined *pipe;    /* STMT_PIPELINED */
    IrSeqLoop *seq;       /* STMT_SEQ */
};

/* One constant of a `#pragma tile tune` space: its values, and where the
 * file defines it, as the bytes of the main file that a variant replaces
 * with its value (the enum constant's initializer, the macro's body, the
 * const variable's initializer; for an enum constant without one, an empty
 * range after its name where " = value" goes in). */
typedef struct IrTuneParam {
    char *name;
    SrcLoc loc; /* of the clause */
    long long *values;
    int nvalues;
    long long source_value; /* the file's own value */
    unsigned def_begin, def_end;
    bool insert_eq;  /* the definition has no '=' yet */
    bool after_name; /* a macro without a body: the value goes after a blank */
} IrTuneParam;

/* `#pragma tile tune NAME(v, ...) ...`: the points are the product of the
 * values, the last NAME varying fastest. */
typedef struct IrTune {
    const Pragma *pragma;
    SrcLoc loc;
    IrTuneParam *params;
    int nparams;
    long long npoints;
} IrTune;

typedef struct IrKernel {
    char *name;
    SrcLoc loc;
    const Pragma *pragma; /* its `#pragma tile kernel` */
    IrTune *tune;         /* its `#pragma tile tune`, or NULL */
    int threads;
    /* flops(...) and bytes(...): the work of one call as C over the scalar
     * parameters (constants already folded in), or NULL. The profiler
     * turns them into TFLOP/s and GB/s. */
    char *flops, *bytes;
    Vec params; /* IrParam* */
    Vec stmts;  /* IrStmt* */
} IrKernel;

typedef enum { PRELUDE_INCLUDE, PRELUDE_MACRO, PRELUDE_DECL, PRELUDE_FUNCTION, PRELUDE_VARIABLE } IrPreludeKind;

/* Something from the user's file the kernels need on the device: a quoted
 * #include, a macro, a type, a helper function or a constant table. */
typedef struct IrPrelude {
    IrPreludeKind kind;
    char *text;
    bool is_static; /* functions and variables: already `static` */
    SrcLoc loc;
} IrPrelude;

typedef enum { ARCH_SM80 = 1, ARCH_SM90A = 2 } IrArch;

typedef struct IrModule {
    char *source_path; /* as given on the command line */
    Vec prelude;       /* IrPrelude*, in source order */
    Vec kernels;       /* IrKernel* */
    unsigned archs;    /* IrArch bits */
    bool debug;        /* -g: lowering plans bounds checks (lower_debug.c) */
} IrModule;

IrModule *ir_module_new(const char *source_path);
void ir_module_free(IrModule *m);

IrCode *ir_code_new(SrcLoc loc);
void ir_code_add_text(IrCode *code, const char *text, size_t len);
void ir_code_add_access(IrCode *code, IrAccess *access);
/* Does the code mention `name` (in its text or its accesses)? */
bool code_mentions(const IrCode *code, const char *name);
/* Does the loop's body, or a condition it runs under, mention `name`? */
bool parallel_mentions(const IrParallel *par, const char *name);
/* Is buffer t one of the tile operation's operands (dst, src, a, b, c)? */
bool tile_op_uses(const IrTileOp *op, const IrBuffer *t);
/* The statements a block statement holds: a pipelined or a sequential
 * loop's body; NULL for the others. Walks over a block's statements that
 * look for tile operations recurse through it, so that they see the
 * operations of every loop. */
const Vec *stmt_nested(const IrStmt *s);

const IrParam *ir_kernel_param(const IrKernel *k, const char *name);
bool ir_type_is_float(const IrType *t);
/* The spelling of a reduction operator in a reduce clause: "+", "max", ... */
const char *ir_reduce_op_name(IrReduceOp op);
/* The kernel parameter that is buffer `buf`, or NULL (a tile, a local). */
const IrParam *ir_param_of_buffer(const IrKernel *k, const IrBuffer *buf);

/* The IR as readable text (`tilepp --emit ir`). */
void ir_dump(FILE *out, const IrModule *m);

#endif

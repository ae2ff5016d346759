/* build_internal.h — what the files of the IR builder share (build_ir.c,
 * build_loop.c, build_body.c, affine.c, const_eval.c, build_prelude.c).
 * Not an interface for other stages: they see build_ir.h. */
#ifndef TILEPP_BUILD_INTERNAL_H
#define TILEPP_BUILD_INTERNAL_H

#include "build_ir.h"

/* The direct children of a cursor. */
typedef struct Children {
    CXCursor *items; /* arena memory */
    int n, cap;
} Children;

/* The state of building one module; the current kernel and nest, if any. */
typedef struct Builder {
    FrontEnd *fe;
    IrModule *m;
    IrKernel *k;
    CXCursor kernel_cursor;
    Vec kernel_locals; /* CXCursor*: VarDecls at kernel level */
    IrParallel *par;
    CXCursor loop_vars[IR_MAX_NEST];
    Vec used_pragmas;                     /* const Pragma* the builder has honoured */
    Vec block_vars;                       /* BlockVar*: loop variables of the grid and pipeline being built */
    IrGrid *grid;                         /* the grid whose block is being built, or NULL */
    Vec block_locals;                     /* CXCursor*: variables declared in that block (sequential loops' too) */
    CXCursor reduce_decls[IR_MAX_REDUCE]; /* the variables the parallel loop being built reduces */
    int nreduce;
} Builder;

/* How code runs: the body of a parallel loop runs once per iteration, each
 * on some thread; a statement of a grid block runs on every thread of the
 * block alike. */
typedef enum { CODE_PARALLEL, CODE_UNIFORM } CodeMode;

/* A loop variable of a grid block: its values are lo + t * step. */
typedef struct BlockVar {
    CXCursor var;
    const IrLoop *loop;
} BlockVar;

Children children_of(CXCursor c);
enum CXCursorKind kind_of(CXCursor c);
/* A read of memory through a pointer: a[i], p->f or s.f, *p. */
bool is_memory_read(CXCursor c);
CXCursor strip(CXCursor c);
char *spelling(CXCursor c);
ScalarKind scalar_kind(CXType t, int *size, bool *is_signed);
/* half or bfloat16 (_Float16, __bf16), however libclang shows it. */
bool is_16bit_float(CXType t);
IrType ir_type(CXType t);
/* Why a local array of device code cannot be one on the GPU (variable
 * length, or past a thread's local memory), or NULL. */
const char *device_array_refusal(CXCursor var);
void use_pragma(Builder *b, const Pragma *p);
/* A statement of the IR made from the source statement `src`, honouring
 * pragma `p` (or NULL). */
IrStmt *new_stmt(Builder *b, IrStmtKind kind, CXCursor src, const Pragma *p);
bool pragma_used(const Builder *b, const Pragma *p);
SrcLoc loc_of(Builder *b, CXCursor c);
const IrParam *param_of(Builder *b, CXCursor decl);
int loop_var_index(Builder *b, CXCursor decl);
bool is_kernel_local(Builder *b, CXCursor decl);
/* Declared in the grid block being built (or by one of its sequential loops). */
bool is_block_local(Builder *b, CXCursor decl);
/* A loop variable of the grid or of its pipelined loop. */
bool is_block_var(Builder *b, CXCursor decl);
/* The end of a statement whose extent stops before its ';' (libclang's
 * extents of expression statements): after that ';'. */
unsigned statement_end(const FrontEnd *fe, unsigned end);

/* build_names.c */
/* Refuses the names the generated C++ cannot declare (C++ keywords, CUDA's
 * built-ins and file-scope declarations, tilepp's tile_ names) in the
 * kernels (their parameters and locals) and the declarations `used` (the
 * prelude's cursors), and functions named like a kernel's launcher. */
void check_names(Builder *b, const Vec *kernels, const Vec *used);
/* Why the CUDA, where the file's macros are copied, cannot define a macro of
 * this name (it would rename a name the generated code uses), or NULL. */
char *macro_name_refusal(const char *name);

/* const_eval.c */
/* The definition of `name` (enum constant, macro or variable) in effect at
 * byte `at` of the main file; false if there is none. */
bool find_constant(FrontEnd *fe, const char *name, unsigned at, CXCursor *out);
bool clause_int(Builder *b, const Pragma *p, const PClause *cl, long long lo, long long hi, long long *value);

/* affine.c */
Affine affine_of(Builder *b, CXCursor e);
bool const_int(CXCursor e, long long *v);
bool invariant_decl(Builder *b, CXCursor decl);

/* What a piece of code changes besides its own variables. */
typedef struct CodeEffects {
    bool writes_memory; /* an access writes a buffer, or a buffer is passed away */
    bool writes_locals; /* block code: it assigns variables of the block */
    Vec assigns;        /* block code: their names (char*) */
} CodeEffects;

/* build_body.c: the code of cursor c, its accesses appended to `accesses`,
 * what it changes in *fx (if given). Statements of blocks (CODE_UNIFORM)
 * take their closing ';' along. */
IrCode *build_code(Builder *b, CXCursor c, CodeMode mode, Vec *accesses, CodeEffects *fx, bool *failed);
/* The same for the condition of an `if` in a grid block (an expression,
 * without a closing ';'). */
IrCode *build_condition_code(Builder *b, CXCursor c, Vec *accesses, CodeEffects *fx, bool *failed);
/* The text [begin, end) of cursor c as it is, but for the casts conditionals
 * between 16-bit floats and other types need in CUDA; NULL after reporting. */
IrCode *build_plain_code(Builder *b, CXCursor c, unsigned begin, unsigned end);
/* The same for a declaration of the file that the kernels use (a helper
 * function): its text, with those casts. */
char *build_plain_text(Builder *b, CXCursor c);
/* The end (past its ')') of the parenthesized text of the file that starts
 * at offset `open`, skipping literals and comments; false if it does not end. */
bool call_end(const FrontEnd *fe, unsigned open, unsigned *end);
/* Which of the reductions of the parallel loop being built has variable decl; -1 if none. */
int reduce_index(const Builder *b, CXCursor decl);

/* build_loop.c */
/* Is `ref` (parentheses and casts aside) a use of declaration decl? */
bool refers_to(CXCursor ref, CXCursor decl);
/* Does the expression or statement use decl anywhere? */
bool mentions(CXCursor tree, CXCursor decl);
IrParallel *build_parallel(Builder *b, CXCursor loop, const Pragma *pragma);
bool canonical_loop(Builder *b, CXCursor loop, IrLoop *l, CXCursor *var_out, CXCursor *body_out);
bool only_loop_in(CXCursor body, CXCursor *inner);
bool bounds_mention_outer(Builder *b, CXCursor loop, int depth);

/* build_ir.c */
IrStmt *build_decl_stmt(Builder *b, CXCursor stmt);
/* Reports pragma p, found `where` ("at the top level of a kernel"), as out of place. */
void refuse_misplaced(Builder *b, const Pragma *p, const char *where);

/* build_tile.c */
IrGrid *build_grid(Builder *b, CXCursor loop, const Pragma *pragma);
bool gemm_operands_ok(Builder *b, const IrTileOp *op, const char *what);

/* build_f16.c: warns where the kernel body `body` does arithmetic on two
 * half or two bfloat16 operands whose result is not stored straight into a
 * 16-bit object (clang and gcc give it different meanings). */
void warn_f16_arithmetic(Builder *b, CXCursor body);

/* gemm_match.c */
IrTileOp *match_gemm_loop(Builder *b, const Vec *tiles, CXCursor loop);
IrTileOp *match_gemm_call(Builder *b, const Vec *tiles, CXCursor call);

/* build_tune.c: the space of the kernel's `#pragma tile tune`, or NULL
 * after reporting. */
IrTune *build_tune(Builder *b, CXCursor fn, const Pragma *tune);

/* build_prelude.c */
bool build_prelude(Builder *b);
bool is_const_object(CXType t);
/* Whether function fn, called at `user`, is defined in the main file (and
 * so can become a device function); reports at `user` if not. */
bool defined_here(Builder *b, CXCursor fn, CXCursor user);

#endif

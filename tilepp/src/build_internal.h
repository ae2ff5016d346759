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
    Vec used_pragmas; /* const Pragma* the builder has honoured */
    Vec block_vars;   /* BlockVar*: loop variables of the grid and pipeline being built */
} Builder;

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
IrType ir_type(CXType t);
void use_pragma(Builder *b, const Pragma *p);
/* A statement of the IR made from the source statement `src`, honouring
 * pragma `p` (or NULL). */
IrStmt *new_stmt(Builder *b, IrStmtKind kind, CXCursor src, const Pragma *p);
bool pragma_used(const Builder *b, const Pragma *p);
SrcLoc loc_of(Builder *b, CXCursor c);
const IrParam *param_of(Builder *b, CXCursor decl);
int loop_var_index(Builder *b, CXCursor decl);
bool is_kernel_local(Builder *b, CXCursor decl);

/* const_eval.c */
bool clause_int(Builder *b, const Pragma *p, const PClause *cl, long long lo, long long hi, long long *value);

/* affine.c */
Affine affine_of(Builder *b, CXCursor e);
bool const_int(CXCursor e, long long *v);
bool invariant_decl(Builder *b, CXCursor decl);

/* build_body.c */
IrCode *build_body(Builder *b, CXCursor body, bool *failed);

/* build_loop.c */
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

/* gemm_match.c */
IrTileOp *match_gemm_loop(Builder *b, const Vec *tiles, CXCursor loop);
IrTileOp *match_gemm_call(Builder *b, const Vec *tiles, CXCursor call);

/* build_prelude.c */
bool build_prelude(Builder *b);
bool is_const_object(CXType t);
/* Whether function fn, called at `user`, is defined in the main file (and
 * so can become a device function); reports at `user` if not. */
bool defined_here(Builder *b, CXCursor fn, CXCursor user);

#endif

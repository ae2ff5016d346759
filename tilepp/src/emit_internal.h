/* emit_internal.h — what the CUDA emitters share (emit_cuda.c: files,
 * parallel loops and launchers; emit_tile.c: grids and tiles). */
#ifndef TILEPP_EMIT_INTERNAL_H
#define TILEPP_EMIT_INTERNAL_H

#include "emit_cuda.h"
#include "tune.h"

typedef struct Out {
    Str s;
    int line; /* 1-based number of the line being written */
    const EmitNames *names;
    const char *variant; /* writing a tune point's variant ("BM=64,BN=128"): its launcher has C++ linkage */
} Out;

void put(Out *o, const char *text);
void putf(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* #line back to the user's file before user text, and back to the generated
 * file after it. */
void line_to_source(Out *o, SrcLoc loc);
void line_to_self(Out *o);
char *kernel_param(const IrParam *p);
/* The name the parameter has in a __global__ function (views: tile_p_NAME). */
char *kernel_param_name(const IrParam *p);
char *launcher_param(const IrParam *p);
void put_param_list(Out *o, const IrKernel *k, char *(*form)(const IrParam *));
/* A C string literal's body: quotes, backslashes and control bytes escaped. */
char *c_string(const char *text);
void put_arg_names(Out *o, const IrKernel *k);
void put_code(Out *o, const IrCode *code, const ParallelPlan *pp, bool statement);
/* The same with the accesses of pp's wide buffers (FORM_WIDE) and cached
 * buffers (FORM_CACHED) in registers; with FORM_GROUPED, the wide
 * buffers' registers are those of group tile_k; with FORM_FRAGMENT,
 * fragments at the thread's element tile_e (a loop over their layout). */
enum { FORM_WIDE = 1, FORM_CACHED = 2, FORM_GROUPED = 4, FORM_FRAGMENT = 8 };
void put_code_form(Out *o, const IrCode *code, const ParallelPlan *pp, int form, bool statement);
/* The `if` around a parallel loop of a block that stands under one (its
 * guards), and its closing brace; nothing for a loop without. */
void put_guard_open(Out *o, const IrGuard *guard, const char *in);
void put_guard_close(Out *o, const IrGuard *guard, const char *in);
/* The runtime's name of a reduction operator: TILE_RED_SUM, ... */
const char *reduce_op_enum(IrReduceOp op);

/* How a parallel loop's per-thread loop is written: the names of its loop
 * descriptors (tile_l0.. in a __global__ function of its own, tile_q0.. in
 * a block), the indentation around and inside the loop, and the first
 * group a thread takes and the stride to its next. */
typedef struct LoopForm {
    const char *desc, *base, *in, *first, *stride;
    bool unroll_plain; /* the plain loop unrolled by 4 (blocks) */
    bool variants;     /* the unrolled form takes TILE_K groups (at most its own) */
} LoopForm;

/* Kernel-level declarations a __global__ function placed at statement `at`
 * of its kernel needs (values reduced on the GPU come from their slots). */
void put_kernel_decls(Out *o, const KernelPlan *kp, const Vec *decls, int at, const char *indent);
/* The reduction scratch of a kernel's launcher: parameters and arguments. */
void put_scratch_params(Out *o, const KernelPlan *kp);
void put_scratch_args(Out *o, const KernelPlan *kp);
/* A parallel loop over fragments' layout, at indentation `in` (emit_tile.c). */
void put_fragment_loop(Out *o, const ParallelPlan *pp, const char *in);
/* A parallel loop inside a grid block, at indentation `in`. */
void put_block_parallel(Out *o, const IrKernel *k, const ParallelPlan *pp, bool variants, const char *in);
void put_decls(Out *o, const Vec *decls);
/* Views (tile_view) for the C99 array parameters among `params`. */
void put_views(Out *o, const Vec *params, const char *indent);
void put_loop_descriptor(Out *o, const IrLoop *l, int d);
void put_loop_var(Out *o, const IrLoop *l, const char *desc, const char *k_expr, const char *indent);

/* emit_cuda.c: a kernel's __global__ functions and launcher; an item of
 * the file's prelude; the includes and checks every generated .cu starts
 * with. */
void put_kernel(Out *o, const KernelPlan *kp);
void put_prelude_item(Out *o, const IrPrelude *p);
void put_file_head(Out *o, const Plan *plan);

/* emit_tune.c: a tuned kernel's launcher, in the file's order (the variants
 * it declares are printed by put_tune_sections or in part files). */
void put_tuned_kernel(Out *o, const TunedKernel *tk);
/* The variants of every tuned kernel of the plan that go to part `part`
 * of `nparts` (part 0 of 1: all of them). */
void put_tune_sections(Out *o, const Plan *plan, int part, int nparts);
/* Whether any kernel, or variant of a tuned one, has a grid; an sm_90a grid. */
bool plan_uses_tiles(const Plan *plan);
bool plan_uses_sm90(const Plan *plan);

/* emit_tile.c: grids. A Block is the grid kernel being written. */
typedef struct Block {
    Out *o;
    const KernelPlan *kp;
    const IrKernel *k;
    const GridPlan *gp;
    const char *stage;    /* C expression of the shared-memory stage in use */
    const Sm90Plan *sm90; /* writing the sm_90a variant */
} Block;

/* A matrix operand as pointer + leading dimension + extent (C text). */
typedef struct MatrixRef {
    char *ptr, *ld, *rows, *cols;
} MatrixRef;

MatrixRef matrix_ref(const Block *bl, const IrTileOp *op);
const char *elem(const IrBuffer *b);
void put_tile_decl(Block *bl, const IrBuffer *t);
/* A shared tile as a function of its stage: `type` at tile_smem + offset +
 * stage x bytes. */
void put_staged_tile(Out *o, const IrBuffer *t, const char *type, long long offset, long long bytes);
void put_op(Block *bl, const IrTileOp *op, const char *indent);
void put_block_index(Out *o, const IrGrid *g, const char *id, const char *indent);
void put_grid_kernel(Out *o, const KernelPlan *kp, const GridPlan *gp);
void put_grid_launch(Out *o, const KernelPlan *kp, const GridPlan *gp);

/* emit_sm90.c: the warp-specialized sm_90a variant of a grid. */
void put_tile_decl_sm90(Block *bl, const IrBuffer *t);
void put_grid_kernel_sm90(Out *o, const IrKernel *k, const GridPlan *gp);
/* In the launcher: launches the sm_90a variant where the device and the
 * operands allow, setting `tile_launched`. */
void put_grid_launch_sm90(Out *o, const IrKernel *k, const GridPlan *gp);

#endif

/* lower.h — lowering: from IR loops to a thread mapping.
 *
 * Takes: a checked IrModule. Gives: a Plan per kernel — which generated
 * __global__ function each parallel nest becomes, how its iterations map onto
 * threads (each thread takes `vector` consecutive iterations of the innermost
 * loop, the rest of the nest linearised over the grid), which buffers move in
 * wide vector loads and stores through registers, and which kernel-level
 * declarations the host launcher must evaluate to size the grid.
 *
 * Later lowering passes (layouts, pipelining) add their results here. */
#ifndef TILEPP_LOWER_H
#define TILEPP_LOWER_H

#include "ir.h"

/* A buffer whose accesses in a nest all read or write element `first + j`
 * for the j-th iteration of a thread's group: it moves as one vector. */
typedef struct VecBuffer {
    IrBuffer *buf;
    const IrAccess *access; /* one of its (identical) accesses */
    bool load, store;
    int bytes; /* vector * element size */
} VecBuffer;

typedef struct ParallelPlan {
    const IrParallel *par;
    char *kernel_name; /* the generated __global__ function */
    int index;         /* position among the kernel's parallel nests */
    int stmt_index;    /* position among the kernel's statements */
    Vec vec_buffers;   /* VecBuffer* */
    Vec decls;         /* const IrStmt*: kernel-level declarations the body reads */
    Vec params_used;   /* const IrParam*: parameters the body or those declarations read */
} ParallelPlan;

/* A shared tile in the block's dynamic shared memory: `stages` copies when
 * a pipelined loop loads it, one otherwise. */
typedef struct SharedPlan {
    const IrBuffer *buf;
    int stages;
    long long offset, bytes; /* bytes: one copy */
} SharedPlan;

/* A grid: one __global__ function, one thread block per iteration of its nest. */
typedef struct GridPlan {
    const IrGrid *grid;
    char *kernel_name;
    int stmt_index;
    Vec shared; /* SharedPlan* */
    long long smem_bytes;
    int warps_m, warps_n; /* how the warps share the block's fragments */
    int min_blocks;       /* blocks per SM the register budget must allow (__launch_bounds__) */
    bool align_variants;  /* two instantiations: 16-byte-aligned loads only, and any alignment */
    Vec loads;            /* const IrTileOp*: the block's tile loads */
    Vec decls;            /* const IrStmt*: kernel-level declarations the block reads */
} GridPlan;

typedef struct KernelPlan {
    const IrKernel *k;
    Vec parallels;  /* ParallelPlan* */
    Vec grids;      /* GridPlan* */
    Vec host_decls; /* const IrStmt*: declarations the launcher evaluates */
} KernelPlan;

typedef struct Plan {
    const IrModule *m;
    Vec kernels; /* KernelPlan* */
} Plan;

/* NULL after reporting an error. */
Plan *lower_module(const IrModule *m);

/* lower_tile.c: the plan of a grid, or NULL after reporting why it cannot run. */
GridPlan *lower_grid(const IrKernel *k, int stmt_index, unsigned archs);
const SharedPlan *grid_shared(const GridPlan *gp, const IrBuffer *buf);

/* True if `text` contains `name` as a whole identifier. */
bool text_mentions(const char *text, const char *name);

#endif

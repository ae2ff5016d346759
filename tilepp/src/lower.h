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

typedef struct KernelPlan {
    const IrKernel *k;
    Vec parallels;  /* ParallelPlan* */
    Vec host_decls; /* const IrStmt*: declarations the launcher evaluates */
} KernelPlan;

typedef struct Plan {
    const IrModule *m;
    Vec kernels; /* KernelPlan* */
} Plan;

/* NULL after reporting an error. */
Plan *lower_module(const IrModule *m);

/* True if `text` contains `name` as a whole identifier. */
bool text_mentions(const char *text, const char *name);

#endif

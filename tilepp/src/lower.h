/* lower.h — lowering: from IR loops to a thread mapping.
 *
 * Takes: a checked IrModule. Gives: a Plan per kernel — which generated
 * __global__ function each parallel nest becomes, how its iterations map onto
 * threads (each thread takes `vector` consecutive iterations of the innermost
 * loop, the rest of the nest linearised over the grid), which buffers move in
 * wide vector loads and stores through registers, and which kernel-level
 * declarations the host launcher must evaluate to size the grid.
 *
 * Later lowering passes add their results here: lower_tile.c the layout,
 * warps and stages of grids (GridPlan), lower_sm90.c their sm_90a variants
 * (Sm90Plan). */
#ifndef TILEPP_LOWER_H
#define TILEPP_LOWER_H

#include "ir.h"

/* A buffer whose accesses in a nest all read or write element `first + j`
 * for the j-th iteration of a thread's group: it moves as one vector. */
typedef struct VecBuffer {
    IrBuffer *buf;
    const IrAccess *access; /* one of its (identical) accesses */
    bool load, store;
    int bytes;     /* vector * element size */
    bool streamed; /* in a block: its elements differ from one grid iteration to the next (x[r][c], not w[c]):
                      the unrolled form loads every group of it up front, to have them in flight together */
} VecBuffer;

/* How a fragment's elements sit in the block's threads, chosen for each
 * fragment of a grid by lower_block.c (plan_layouts); the emitter declares
 * the fragment and walks its elements from it. */
typedef enum {
    LAYOUT_ACCUM,  /* 2-D: the tensor-core accumulator of warps_m x warps_n warps (tile80::accum, wgmma's) */
    LAYOUT_STRIPS, /* 2-D, in a block without products: strips of `vec` consecutive columns of a row a thread,
                      a row's strips in `lanes` consecutive lanes, warps_m x warps_n warps (tile80::strips) */
    LAYOUT_SPREAD, /* 1-D: element e on thread e % threads */
    LAYOUT_ROWS,   /* 1-D: one value per row of the 2-D fragment `of`, held by every thread that holds elements of
                      that row (tile_reduce_* along dim 1 gives it; `m[i]` in a loop over `of` reads it) */
    LAYOUT_COLS,   /* 1-D: one value per column of `of`, held by every thread that holds elements of that column
                      (tile_reduce_* along dim 0 gives it; `b[j]` in a loop over `of` reads it) */
} LayoutKind;

typedef struct FragLayout {
    const IrBuffer *frag;
    LayoutKind kind;
    int warps_m, warps_n; /* LAYOUT_ACCUM and LAYOUT_STRIPS */
    int vec;              /* LAYOUT_STRIPS: columns a strip */
    int lanes;            /* LAYOUT_STRIPS: consecutive lanes over a row (a power of two up to 32) */
    const IrBuffer *of;   /* LAYOUT_ROWS, LAYOUT_COLS: the 2-D fragment whose rows or columns it holds (its
                             layout: fragment_layout) */
    bool packed;          /* LAYOUT_ACCUM of a half or bfloat16 fragment whose only uses are tile_copy from a
                             float fragment and the A operand of products: held as the products read it, in
                             pairs of 16-bit values (tile80::packed_a) */
} FragLayout;

typedef struct ParallelPlan {
    const IrParallel *par;
    const FragLayout *layout; /* in blocks: the layout of the fragments the loop runs over (each thread visits its
                                 own elements), or NULL: the iterations spread over the block's threads */
    char *kernel_name;        /* the generated __global__ function (kernel level) */
    char *combine_name;       /* kernel level, with reduce: the one-block kernel that combines the blocks' parts */
    int index;                /* position among the kernel's parallel nests */
    int stmt_index;           /* position among the kernel's statements */
    Vec vec_buffers;          /* VecBuffer* */
    Vec col_reads;            /* const IrBuffer*: in a loop over a 2-D fragment, the fragments of its columns it
                                 reads at [j] (LAYOUT_COLS; those of its rows are read at [i]) */
    Vec decls;                /* const IrStmt*: kernel-level declarations the body reads */
    Vec params_used;          /* const IrParam*: parameters the body or those declarations read */
    int slots[IR_MAX_REDUCE]; /* kernel level: the ReduceSlot of each reduction */
    int unroll;               /* in blocks: groups a thread takes in the unrolled form (0: none) */
    Vec caches;               /* in blocks: RegCache* whose registers stand for their buffer here */
    Vec fills;                /* in blocks: the RegCache* this loop loads (a subset of caches) */
    Vec combine_decls;        /* kernel level, with reduce: the declarations of the reduced variables */
    Vec combine_params;       /* const IrParam*: the parameters those declarations read */
} ParallelPlan;

/* A buffer that parallel loops of a block read, one after another, at the
 * same elements, with the same iterations on the same threads: each thread
 * keeps its elements in registers (`groups` groups of `vector`) from the
 * first of the loops, which loads them, for the others. Used when the loops
 * have at most groups x threads groups of iterations; beyond, every loop
 * reads memory. */
typedef struct RegCache {
    const IrBuffer *buf;
    const IrAccess *access; /* the access the registers stand for */
    int groups, vector;
    int index; /* tile_c<index> in the generated code */
} RegCache;

/* A variable of a kernel that a parallel loop at its top level reduces over
 * the whole grid: its value lives in device memory from that loop on, in
 * slot `index` of the launcher's scratch (8 bytes a slot), and every later
 * __global__ function of the kernel reads it from there. */
typedef struct ReduceSlot {
    const char *var;
    IrType type;
    int index;
    int first_stmt; /* the statement of the kernel that reduces it first */
} ReduceSlot;

/* A shared tile in the block's dynamic shared memory: `stages` copies when
 * a pipelined loop loads it, one otherwise. */
typedef struct SharedPlan {
    const IrBuffer *buf;
    int stages;
    long long offset, bytes; /* bytes: one copy */
} SharedPlan;

/* The sm_90a variant of a grid (lower_sm90.c): a producer warpgroup issues
 * the pipelined loop's tile loads as TMA copies, consumer warpgroups multiply
 * with wgmma; stages change hands through mbarriers. */
typedef struct Sm90Tile {
    const IrBuffer *buf;
    const IrTileOp *load; /* its load in the pipelined loop, or before it (preload) */
    bool preload;         /* loaded once per grid iteration before the loop (FlashAttention's Q): one copy,
                             handed over through a barrier pair of its own */
    int swizzle;          /* bytes per panel row: 128, 64 or 32 */
    long long offset, bytes;
} Sm90Tile;

/* A tile_store of a fragment that goes out through shared memory and TMA
 * stores (where the launcher can make the matrix's tensor map). */
typedef struct Sm90Store {
    const IrTileOp *op;
    int chunk_cols; /* columns of one 64-row, 128-byte chunk */
    /* Where TMA cannot take the window, it goes out from registers; the
     * launcher's tensor map aside, these are tested in the kernel (a TMA
     * store whose box starts before the matrix, or at a column not on a
     * 16-byte boundary, stops the kernel with an illegal instruction on the
     * H200): */
    bool origin_test; /* the window may start before the matrix (tilepp cannot tell otherwise) */
    int c0_multiple;  /* the column the window starts at is a multiple of this (16 bytes' worth of elements) */
} Sm90Store;

/* Copies in flight per multiprocessor below which wgmma starves: the tensor
 * cores consume a 16 KB stage of a 128 x 128 tile in about 0.2 us, L2
 * answers in about 0.7. Measured on the H200 (bench/RESULTS.md): 48 KB
 * (128x128x32, 3 stages) runs slower than the sm_80 kernel, 64 KB and more
 * faster. */
enum { SM90_MIN_IN_FLIGHT = 64 * 1024 };

/* Threads a block may have. */
enum { MAX_BLOCK_THREADS = 1024 };

/* Dynamic shared memory a block may have, per architecture. */
enum { SMEM_LIMIT_SM80 = 163 * 1024, SMEM_LIMIT_SM90A = 227 * 1024 };

/* A wait of the consumers for their products in flight (wgmma groups,
 * which complete in the order issued): before `before`, until at most
 * `pending` of the newest groups are still running. `pinned` are the
 * fragments written since the previous wait that no product in flight
 * touches: their work must be done before the wait, under the products
 * (left alone, the compiler may sink it past the wait and serialize it).
 * `after` are the fragments that the statements from `before` to the next
 * wait read before writing them, but not the products left running: their work stays after
 * the wait (hoisted above it, it would hold registers the whole time the
 * products run, and ptxas would rather wait early than spill). */
typedef struct Sm90Wait {
    const IrStmt *before;
    int pending;
    Vec pinned, after; /* const IrBuffer* */
    /* The wait is held after the pinned work: some of the products it
     * waits for run under that work. ptxas's scheduler issues a wait as
     * early as its basic block allows (the wait itself costs nothing to
     * issue), which would run the work after the products instead of
     * under them; a held wait starts a block of its own. */
    bool held;
} Sm90Wait;

typedef struct Sm90Plan {
    const IrPipelined *pipe;
    int pipe_at;          /* its position in the grid body */
    const IrTileOp *gemm; /* the loop's first product: its accumulator sets the warpgroups' arrangement */
    Vec waits;            /* Sm90Wait*: where the consumers wait in the loop's body (a statement touches a
                             fragment that a product in flight writes or reads); in order, the last product of
                             an iteration stays in flight into the next; rotated, each iteration ends waiting
                             for all */
    /* Software pipelining of the loop: `rotated`, iteration i issues its
     * first product (the body up to `head`), then iteration i-1's last
     * product (`tail`, the body's last statement), then the rest of its
     * body; so the tensor cores run the last product under the next
     * iteration's fragment work (FlashAttention's P V under the softmax of
     * the next S). The first iteration has no previous one (it runs
     * before the loop); after the loop, the last iteration's tail. */
    bool rotated;
    int head, tail;         /* indices in pipe->body */
    Vec under_head;         /* const IrStmt*, rotated: work of the body between head and tail that runs an iteration
                               late, after the next head is issued and before this iteration's tail (the last
                               iteration's before the last tail); the tensor cores run the head under it */
    Vec under_head_fenced;  /* const IrBuffer*: the products' registers (a C or a register A) that work touches, read
                               after the previous iteration's last wait (fenced there against nvcc's reordering) */
    Vec producer_decls;     /* const IrStmt*: the declarations before the loop that the producer's loop bounds and
                               copies read (the consumers run all of them) */
    long long pre_bytes;    /* bytes the preloads bring */
    long long pre_barriers; /* offset of the preloads' full and empty barriers, or of the ping-pong turns */
    int groups_m, groups_n; /* consumer warpgroups over one tile's accumulator */
    /* Ping-pong: `consumers` warpgroups take turns on whole tiles (each
     * holds the whole accumulator, groups_m = groups_n = 1): the block's
     * iterations go to them in turn, so one runs its epilogue while the
     * other multiplies. Otherwise the consumers share every tile. */
    bool pingpong;
    int consumers;           /* consumer warpgroups in the block */
    int threads;             /* the consumers and the producer warpgroup */
    int consumer_regs;       /* setmaxnreg for the consumers; 0: as launched */
    int producer_regs;       /* setmaxnreg for the producer; 0 when the consumers' is */
    long long fragment_regs; /* registers a consumer thread holds fragments in */
    int min_blocks;          /* blocks per SM the registers must allow (__launch_bounds__) */
    long long in_flight;     /* bytes of copies a multiprocessor keeps in flight */
    bool shallow;            /* too few of them for wgmma: the launcher prefers the sm_80 kernel */
    Vec tiles;               /* Sm90Tile*, in load order */
    long long stage_bytes;   /* bytes each stage's copies bring */
    Vec stores;              /* Sm90Store*: the epilogue's TMA stores */
    long long epilogue;      /* offset of the consumers' staging buffers */
    long long cols_scratch;  /* offset of the column reductions' scratch (tile90::accum::col_scratch), or -1 */
    long long barriers;      /* offset of the stages' barriers */
    /* The work of the grid's iterations varies (the pipelined loop's trip
     * count reads the grid's variables: FlashAttention's causal blocks).
     * Blocks then take iterations as they finish them, from a counter in
     * device memory that the launcher zeroes (the first gridDim.x
     * iterations go one to each block), rather than every gridDim.x-th:
     * the iterations a block finishes late are then the last ones, not a
     * share of long ones fixed at launch. The producer fetches each next
     * iteration and hands it to the consumers through a queue of
     * SM90_QUEUE_SLOTS slots in shared memory. */
    bool dynamic;
    long long queue;      /* offset of the queue's barriers and slots (dynamic) */
    long long smem_bytes; /* everything, with the slack to align to 1024 */
} Sm90Plan;

/* Slots of the queue of iterations (Sm90Plan.dynamic): the producer runs
 * at most this many iterations ahead of the slowest consumer. */
enum { SM90_QUEUE_SLOTS = 2 };

/* A kernel variant of a grid whose block loops unroll, chosen by the
 * launcher from the loops' bounds: each thread takes up to `groups` groups
 * of a loop's iterations at once (TILE_K), and `team` threads run one
 * iteration of the grid (TILE_TEAM): a block runs threads / team
 * iterations side by side. Teams smaller than the block exist only where
 * the block is loops and scalar code (no shared tiles): a team then
 * reduces and waits on its own (warp shuffles, a named barrier), so short
 * rows do not leave threads idle and more rows are in flight. */
typedef struct BlockVariant {
    int groups, team;
} BlockVariant;
enum { MAX_BLOCK_VARIANTS = 16 };

/* A grid: one __global__ function, one thread block per iteration of its
 * nest (or per `threads / team` iterations, BlockVariant). */
typedef struct GridPlan {
    const IrGrid *grid;
    char *kernel_name;
    int stmt_index;
    Vec shared; /* SharedPlan* */
    long long smem_bytes;
    int warps_m, warps_n;      /* how the warps share the block's fragments */
    FragLayout strips;         /* kind LAYOUT_STRIPS: the block's 2-D fragments are in strips (block_strips) */
    long long fragment_values; /* registers a thread holds for the block's fragments */
    int min_blocks;            /* blocks per SM the register budget must allow (__launch_bounds__) */
    bool align_variants;       /* two instantiations: 16-byte-aligned loads only, and any alignment */
    Vec loads;                 /* const IrTileOp*: the block's asynchronous tile loads (tile_load_is_async) */
    Vec decls;                 /* const IrStmt*: kernel-level declarations the block reads */
    Vec parallels;             /* ParallelPlan*: the block's parallel loops (over its threads) */
    Vec syncs;                 /* const IrStmt*: block statements that need a __syncthreads() before them */
    Vec shared_syncs;          /* const IrTileOp*: tile operations whose barrier before them is the barrier after
                                  the operation just before (two loads in a row: one barrier between them) */
    Vec views;                 /* const IrParam*: C99 array parameters that block code indexes */
    Vec caches;                /* RegCache*: buffers kept in registers between the block's loops */
    Vec layouts;               /* FragLayout*: one per fragment of the grid */
    bool unroll_variants;      /* instantiated per BlockVariant; the launcher picks one from the loops' bounds */
    BlockVariant variants[MAX_BLOCK_VARIANTS];
    int nvariants;         /* the launcher takes the first that covers the widest loop; the last covers any */
    int variant_blocks[4]; /* blocks per SM each TILE_K (1, 2, 4, 8) asks registers for (__launch_bounds__) */
    bool block_reductions; /* some parallel loop of the block reduces: scratch in shared memory */
    Sm90Plan *sm90;        /* the sm_90a variant, or NULL: the sm_80 kernel runs on Hopper too */
    const char *sm90_why;  /* when there is no sm_90a variant although 90a was asked for */
    bool prints;           /* the block has tile_print: the kernel takes the launcher's tile_print_sel */
    long long print_offset, print_bytes; /* shared scratch a fragment's print passes its rows through */
    long long cols_offset, cols_bytes;   /* shared scratch column reductions of fragments combine warps through */
} GridPlan;

/* -g (lower_debug.c): a tile_load or tile_store that checks, before it
 * runs, its window against the matrix (WINDOW: the 4-argument form's
 * promise, or the 1-D form's without an extent) or the extents it was given
 * against the matrix's (BOUNDS); a violation is recorded for the launcher
 * and the access is skipped. The matrix's extents are those its
 * declaration gives (C text the kernel evaluates; NULL: not declared). */
typedef enum { CHECK_WINDOW, CHECK_BOUNDS } TileCheckKind;

typedef struct TileCheck {
    const IrTileOp *op;
    const IrGrid *grid; /* whose loop variables name the block in a report */
    TileCheckKind kind;
    int site;          /* its number in the file: the device record names it, the launcher's table says where */
    char *rows, *cols; /* the matrix's extents (a vector: rows "1", cols its length) */
} TileCheck;

typedef struct KernelPlan {
    const IrKernel *k;
    Vec parallels;   /* ParallelPlan* */
    Vec grids;       /* GridPlan* */
    Vec host_decls;  /* const IrStmt*: declarations the launcher evaluates */
    Vec slots;       /* ReduceSlot*: variables reduced over the grid */
    int max_reduces; /* most variables one kernel-level loop reduces */
    bool debug;      /* -g: the launcher waits for its kernels and reports a failed check */
    Vec checks;      /* TileCheck*, -g: the checks of its grids, in site order */
} KernelPlan;

typedef struct Plan {
    const IrModule *m;
    Vec kernels; /* KernelPlan* */
    Vec tuned;   /* TunedKernel* (tune.h): kernels with a tune space, lowered once per point; not in kernels */
} Plan;

/* NULL after reporting an error. */
Plan *lower_module(const IrModule *m);

/* lower_tile.c: the plan of a grid, or NULL after reporting why it cannot run. */
GridPlan *lower_grid(const IrKernel *k, int stmt_index, unsigned archs);

/* The barriers a tile operation (outside a pipelined loop's loads) has
 * around it: the threads that wrote or read a shared tile before are not
 * the ones that touch its elements in the operation, nor after it. */
typedef struct TileSyncs {
    bool before, after;
} TileSyncs;
TileSyncs tile_op_syncs(const IrTileOp *op);

/* Rows of fragment t that one pass of its tile_print gathers in the grid's
 * print scratch (8 KB of float, at least one row). */
long long print_chunk_rows(const IrBuffer *t);

/* lower_block.c: the statements of a grid's block beside its tile work:
 * the layouts of its fragments, the plans of its parallel loops, the
 * barriers between statements that share memory, the views block code
 * indexes. False after reporting a loop it cannot map. */
bool lower_block(GridPlan *gp, const IrKernel *k);
/* The strips layout (LAYOUT_STRIPS: kind, warps, vec and lanes filled in)
 * for the 2-D fragments of a grid without products whose 2-D fragments have
 * one shape, for a block of `threads`; false where the grid keeps the
 * accumulator layout. lower_tile.c's plan_warps asks, once a grid. */
bool block_strips(const GridPlan *gp, int threads, FragLayout *strips);
/* The most columns of a fragment a tile_reduce_* along dim 0 of `body`
 * (pipelined loops' too) reduces, 0 if none: its scratch in shared memory
 * holds that many floats for each warp stacked over the rows. */
long long block_cols_width(const Vec *body);

/* The layout of fragment `frag` of the grid. */
const FragLayout *fragment_layout(const GridPlan *gp, const IrBuffer *frag);
/* The plan of a block-level parallel loop. */
const ParallelPlan *block_parallel(const GridPlan *gp, const IrParallel *par);
/* Whether a __syncthreads() goes before block statement s. */
bool block_sync_before(const GridPlan *gp, const IrStmt *s);
/* Does tile operation `op` go without its own barrier before it, the one
 * after the operation before it standing for it (tile_op_syncs)? */
bool block_sync_shared(const GridPlan *gp, const IrTileOp *op);

/* lower_debug.c, -g: the checks of a grid's tile loads and stores, numbered
 * from *next_site on; the grid takes the sm_80 kernel on every device. */
void lower_grid_checks(KernelPlan *kp, GridPlan *gp, int *next_site);
/* The check op carries, or NULL (always, without -g). */
const TileCheck *tile_check_of(const KernelPlan *kp, const IrTileOp *op);

/* lower.c */
void plan_vectors(ParallelPlan *pp);
/* Do the two accesses index the same element in every iteration? */
bool same_index(const IrAccess *a, const IrAccess *b, int depth);
/* Do the bounds or steps of the loops mention `name`? */
bool loops_mention(const IrLoop *loops, int depth, const char *name);
const SharedPlan *grid_shared(const GridPlan *gp, const IrBuffer *buf);
/* Whether a tile_load copies asynchronously (cp.async, or TMA on sm_90a): a
 * 2-D shared tile of the matrix's element type, at an origin that is never
 * negative. Other loads go element by element through registers, converting
 * and reading 0 before and past the matrix. */
bool tile_load_is_async(const IrTileOp *op);
/* Registers a thread spends on fragment t: the 2-D accumulator layout, or
 * a 1-D fragment spread element by element over the block's threads. */
long long fragment_values_per_thread(const IrBuffer *t, int threads);
/* lower_block.c: is fragment t kept packed (FragLayout.packed)? Decided
 * from the IR alone, so that the register budgets can count it at half. */
bool fragment_packs(const IrGrid *g, const IrBuffer *t);

/* lower_sm90.c: the sm_90a plan of a grid, or NULL with *why saying what
 * keeps the grid on the sm_80 kernel. Never an error: that kernel runs on
 * Hopper as well. */
Sm90Plan *lower_grid_sm90(const IrKernel *k, const GridPlan *gp, const char **why);
const Sm90Tile *sm90_tile(const Sm90Plan *p, const IrBuffer *buf);
/* The wait planned before statement s of the pipelined loop: NULL if none. */
const Sm90Wait *sm90_wait_before(const Sm90Plan *p, const IrStmt *s);
/* The position of the op's TMA store among p->stores, or -1. */
int sm90_store_index(const Sm90Plan *p, const IrTileOp *op);

/* The declarations among the kernel's first `end` statements that some code
 * reads (reads(ctx, name) says whether it reads `name`), directly or through
 * the declarations it needs; appended to `out` in source order. */
void needed_decls(const IrKernel *k, int end, bool (*reads)(const void *ctx, const char *name), const void *ctx,
                  Vec *out);

#endif

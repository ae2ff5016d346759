/* inspect.h — `tilepp inspect`: the landmarks of compiled kernels.
 *
 * Takes: a .c file (translated, then compiled per architecture), a
 * .tile.cu (compiled), or a binary (read with cuobjdump). Gives: per kernel
 * and architecture, how many tensor-core instructions, asynchronous copies,
 * barriers, matrix loads, shuffles and local-memory accesses its code has,
 * its registers, shared memory, stack and spills, and warnings where those
 * contradict what the source asked for.
 *
 * The parsers below are pure: text in, records out (inspect_parse.c), so
 * the unit tests feed them canned tool output. inspect.c runs the tools
 * and prints the report. */
#ifndef TILEPP_INSPECT_H
#define TILEPP_INSPECT_H

#include <stdbool.h>

#include "driver.h"
#include "util.h"

/* The landmark families, in report order. */
typedef enum {
    LM_TENSOR_CORE, /* HGMMA, HMMA, IMMA, ...; wgmma.mma_async, mma.sync */
    LM_ASYNC_COPY,  /* UTMALDG, UTMASTG, LDGSTS, UBLKCP; cp.async.bulk.tensor, cp.async.bulk, cp.async */
    LM_BARRIER,     /* BAR, SYNCS, ARRIVES; bar.*, barrier.*, mbarrier.* */
    LM_MATRIX_LOAD, /* LDSM, STSM; ldmatrix, stmatrix */
    LM_SHUFFLE,     /* SHFL; shfl.sync */
    LM_LOCAL_STORE, /* STL; st.local (register spills, or arrays in local memory) */
    LM_LOCAL_LOAD,  /* LDL; ld.local */
    LM_FAMILIES,
    LM_NONE = -1,
} Landmark;

/* The family's JSON key: "tensor_core", "async_copy", "barrier",
 * "matrix_load", "shuffle", "local_store", "local_load". */
const char *landmark_key(Landmark family);

/* The family of one instruction, by its opcode as the listing writes it
 * ("HGMMA.64x128x16.F32", "cp.async.bulk.tensor.2d.shared::cluster..."),
 * and *mnemonic the name it is counted under ("HGMMA", "cp.async.bulk.tensor";
 * arena memory). LM_NONE for the rest. */
Landmark sass_landmark(const char *opcode, const char **mnemonic);
Landmark ptx_landmark(const char *opcode, const char **mnemonic);

typedef struct OpCount {
    const char *mnemonic;
    Landmark family;
    int count;
} OpCount;

/* What tilepp construct a generated kernel comes from, read off its name:
 * tile_<k>_grid<s> (the grid that is statement s of kernel k),
 * tile_<k>_grid<s>_sm90 (its sm_90a variant), tile_<k>_<n> (the n-th
 * kernel-level parallel loop), tile_<k>_<n>_combine (its reduction's
 * combining kernel). */
typedef struct TileOrigin {
    bool known;
    char *kernel;          /* the C function with `#pragma tile kernel` */
    const char *construct; /* "grid", "parallel" or "combine" */
    int index;             /* s or n above */
    bool sm90;             /* the sm_90a variant of a grid */
    bool tuned;            /* in the variant of a tune point: tile_tune_<kernel>_v<variant>::... */
    int variant;
} TileOrigin;

TileOrigin tile_origin(const char *name);

/* The function name of a mangled C++ name, with template arguments and
 * without parameters: "_Z15tile_gemm_grid0ILi16EEviii..." ->
 * "tile_gemm_grid0<16>". A name that is not mangled comes back as it is;
 * a part it cannot read is written "?" (arena memory). */
char *demangle_name(const char *mangled);

/* One kernel on one architecture. Sizes are bytes; -1: not known. */
typedef struct KernelReport {
    char *mangled;
    char *name;       /* demangle_name(mangled) */
    const char *arch; /* "sm_90a" (the PTX view too: the ptxas target) */
    int counts[LM_FAMILIES];
    Vec ops; /* OpCount*: the landmark instructions by mnemonic, by family, then in order of appearance */
    int instructions;
    long long registers, shared_bytes, stack_bytes, spill_store_bytes, spill_load_bytes;
    long long dynamic_shared_bytes; /* what the launcher asks for (known from a .c) */
    TileOrigin origin;
    int source_line;     /* of its grid in the .c; 0: not known */
    bool stub;           /* an sm_90a variant compiled for another architecture: empty on purpose */
    const char *want_tc; /* why it should have tensor-core instructions, or NULL */
    const char *want_cp; /* why it should have asynchronous copies, or NULL */
    bool has_resources;  /* registers etc. were found for it */
} KernelReport;

typedef enum { VIEW_SASS, VIEW_PTX } InspectView;

typedef struct InspectReport {
    InspectView view;
    Vec kernels; /* KernelReport*, in the order of the listings */
} InspectReport;

/* The record of (mangled, arch), the last one if there are several;
 * NULL if none. */
KernelReport *find_kernel(const InspectReport *r, const char *mangled, const char *arch);

/* `cuobjdump -sass` or `nvdisasm` output: a record per function listed,
 * its instructions counted. The architecture comes from the listing
 * ("code for sm_90a", ".target sm_90a"), else `default_arch`. */
void parse_sass(const char *text, const char *default_arch, InspectReport *r);
/* PTX (nvcc -ptx, cuobjdump -ptx): a record per .entry. */
void parse_ptx(const char *text, const char *default_arch, InspectReport *r);
/* `cuobjdump -res-usage`: REG, STACK and SHARED of the functions already
 * recorded (per "arch = " section, else `default_arch`). */
void parse_res_usage(const char *text, const char *default_arch, InspectReport *r);
/* `ptxas -v`: registers, static shared memory, stack frame and spills of
 * each entry function (recorded if it is not yet). */
void parse_ptxas_verbose(const char *text, InspectReport *r);

/* What the source says of one generated kernel (a .c input, from its plan). */
typedef struct KernelSource {
    const char *kernel_name; /* the __global__ function's name, without template arguments */
    bool gemm, pipelined;
    const char *file;
    int line;
    long long dynamic_shared_bytes;
} KernelSource;

/* Fills origin, stub, want_tc and want_cp of every record:
 *  - from `sources` where given (a .c: its block has tile_gemm, a
 *    pipelined loop);
 *  - from the names: tilepp writes an sm_90a variant (tile_<k>_grid<s>_sm90)
 *    only of a block whose pipelined loop has tile_gemm, so both it and its
 *    sm_80 sibling should have tensor-core instructions and async copies;
 *  - from the other architectures: a kernel with tensor-core instructions
 *    on one should have them on all (binaries of any origin). */
void apply_expectations(InspectReport *r, const KernelSource *sources, int nsources);

typedef struct InspectWarning {
    const KernelReport *k;
    const char *kind; /* "spills", "local_memory", "no_tensor_core", "no_async_copy" */
    char *message;
} InspectWarning;

/* The warnings of a report, per record in order (InspectWarning*). */
void inspect_warnings(const InspectReport *r, Vec *out);

/* `tilepp inspect ...`: argv[0] is "inspect". `translate` is the command
 * line's translation (for a .c), `include_dir` where tilepp/tile.h is
 * (NULL: unknown). Returns the exit status. */
int inspect_main(int argc, char **argv, const char *include_dir, int (*translate)(Options *opt));

#endif

/* cuda_tools.h — the CUDA toolkit's programs: found, and run on generated
 * code (`--emit ptx`, `tilepp inspect`).
 *
 * Where each is looked for, in order:
 *   nvcc       $CUDACXX (a path or a name, as CMake reads it; set but not
 *              found is an error), $CUDA_PATH/bin, $CUDA_HOME/bin, PATH,
 *              /usr/local/cuda/bin
 *   ptxas      beside nvcc, PATH
 *   cuobjdump  $TILEPP_CUOBJDUMP (set but not found is an error), beside
 *              nvcc, PATH, the PyPI package nvidia-cuda-cuobjdump
 *   nvdisasm   $TILEPP_NVDISASM (likewise), beside cuobjdump (or
 *              $TILEPP_CUOBJDUMP), beside nvcc, PATH, the PyPI package
 *              nvidia-cuda-nvdisasm
 * PyPI packages are located with `python3 -m pip show <package>` (its
 * Location, then nvidia/<any>/bin/<tool>), asked only when the other
 * places have nothing, as it takes a moment. */
#ifndef TILEPP_CUDA_TOOLS_H
#define TILEPP_CUDA_TOOLS_H

#include <stdbool.h>

#include "driver.h"
#include "util.h"

/* A program found, or why not. */
typedef struct Tool {
    const char *path; /* NULL: not found */
    const char *why;  /* when not found: where it was looked for, or what was wrong */
    bool bad_setting; /* an environment variable named it, and it is not there: an error, not a fallback */
} Tool;

Tool find_nvcc(void);
Tool find_ptxas(const char *nvcc);
/* nvcc may be NULL (reading a binary needs no compiler). */
Tool find_cuobjdump(const char *nvcc);
Tool find_nvdisasm(const char *nvcc, const char *cuobjdump);

/* An --arch value as an SM architecture: "90a", "sm_90a", "compute_90a" and
 * "90" give "sm_90a" (tilepp's Hopper path needs the "a" features); "80",
 * "sm_86", "compute_89", "100a" give "sm_80", "sm_86", "sm_89", "sm_100a".
 * NULL: not an architecture of sm_80 or newer. Arena memory. */
const char *sm_arch_name(const char *value);
/* "sm_90a" -> "compute_90a" (arena memory). */
char *compute_arch_name(const char *sm);
/* Splits an --arch list ("80,90a") into SM names, each once, in order;
 * false (and *bad the offending value) when one is not an architecture. */
bool parse_sm_archs(const char *list, Vec *archs, const char **bad);

/* nvcc's flags for a generated .cu: C++17, tilepp's headers, the input's
 * directory, the parse's include directories; with `defines`, also its -D,
 * -U and -include (a .tile.cu given as is; a translation writes them at the
 * top of the .cu). Appends char* to `flags`. */
void nvcc_flags(const Options *opt, const char *include_dir, bool defines, Vec *flags);

/* nvcc -ptx for one architecture (SM name) into `ptx`; on failure reports
 * nvcc's output and returns false. */
bool compile_ptx(const char *nvcc, const Vec *flags, const char *cu, const char *sm, const char *ptx);
/* ptxas -v: `ptx` to a cubin for `sm`; *verbose gets ptxas's report (the
 * registers, stack, spills and shared memory of each function). */
bool assemble_cubin(const char *ptxas, const char *ptx, const char *sm, const char *cubin, char **verbose);

/* `tilepp --emit ptx`: translates `opt->input` through `translate` (the
 * command line's, so diagnostics look the same) into a temporary
 * directory, then has nvcc write one PTX per architecture of `arch_list`
 * (the --arch value; NULL: 80,90a): <base>.compute_<arch>.ptx, where
 * <base> is -o without a ".ptx" or ".cu" suffix, or <stem>.tile by default
 * (gemm.c -> gemm.tile.compute_90a.ptx). -MD names those files. All files
 * or none; returns the exit status. */
int emit_ptx(Options *opt, const char *arch_list, int (*translate)(Options *opt));

#endif

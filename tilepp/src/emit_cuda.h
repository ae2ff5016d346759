/* emit_cuda.h — CUDA emission.
 *
 * Takes: the IR and its lowering Plan. Gives: the text of `x.tile.cu` (the
 * prelude the kernels need, one __global__ function per parallel nest, the
 * host launchers) and of `x.tile.h` (launcher prototypes in plain C).
 *
 * The output is meant to be read: each part says where it comes from, user
 * code keeps its text and carries #line directives back to the .c file. */
#ifndef TILEPP_EMIT_CUDA_H
#define TILEPP_EMIT_CUDA_H

#include "lower.h"

typedef struct EmitNames {
    const char *source_name; /* the .c as named in #line and comments */
    const char *cu_name;     /* the .cu as named in #line back to itself */
    const char *header_name; /* the .h as the .cu includes it */
    /* The translator's command-line arguments for the parse: the -D, -U and
     * -include among them are written at the top of the .cu, so nvcc
     * compiles the kernels with the macros the CPU reference had. */
    const char *const *parse_args;
    int nparse_args;
    /* The variants of tuned kernels go to this many part files (emit_tune_part),
     * or, when 0, into the .cu itself. */
    int parts;
} EmitNames;

char *emit_cuda(const Plan *plan, const EmitNames *names);
char *emit_header(const Plan *plan, const EmitNames *names);
/* Part `part` (1..names->parts) of the tuned kernels' variants: a .cu of its
 * own that nvcc compiles beside the others (names->cu_name is the part's). */
char *emit_tune_part(const Plan *plan, const EmitNames *names, int part);

#endif

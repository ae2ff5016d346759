/* driver.h — the pipeline, stage by stage:
 *
 *   parse (libclang + pragmas) -> build_ir -> check -> lower -> emit -> output
 *
 * Takes: Options from the command line (main.c) or from tests. Gives: the
 * output files, or diagnostics and no files. */
#ifndef TILEPP_DRIVER_H
#define TILEPP_DRIVER_H

#include <stdbool.h>

typedef enum { EMIT_CUDA, EMIT_IR } EmitKind;

typedef struct Options {
    const char *input;
    const char *output;     /* NULL: <input stem>.tile.cu in the current directory */
    const char *header;     /* NULL: the output with .cu replaced by .h */
    const char *depfile;    /* -MF; NULL: the output with its suffix replaced by .d, as gcc */
    bool make_depfile;      /* -MD or -MMD */
    bool depfile_user_only; /* -MMD: system headers left out */
    bool depfile_phony;     /* -MP: an empty rule for each header */
    const char *dep_target; /* -MT/-MQ targets in Make syntax, space separated; NULL: the output */
    bool syntax_only;       /* -fsyntax-only: every check, no file written */
    bool debug;             /* -g: bounds checks on tile loads and stores, reported by the launchers */
    EmitKind emit;
    unsigned archs;          /* IrArch bits */
    const char **clang_args; /* -I, -D, -std, -isystem, -include, ... */
    int nclang_args;
    const char *include_dir;  /* where tilepp/tile.h lives; NULL: next to the executable */
    const char *unsaved_text; /* tests: the input's content */
    int parts;          /* --parts N: tuned kernels' variants in N more files, x.tile.part1.cu ...; 0: in the .cu */
    bool list_variants; /* --list-variants: print the points of tune spaces, write nothing */
    bool no_tune;       /* --no-tune: a kernel with a tune space is translated at the file's values only */
} Options;

/* Runs the pipeline; returns the process exit code (0 or 1). */
int tilepp_translate(const Options *opt);

/* "dir/x.c" -> "x.tile.cu"; arena memory. */
char *default_output_name(const char *input);
/* "dir/x.tile.cu" -> "dir/x.tile.d": gcc's depfile name for -o FILE -MD. */
char *default_depfile_name(const char *output);
/* A path in Make syntax, as -MQ quotes a target: spaces and '#' escaped with
 * a backslash, '$' doubled; arena memory. */
char *make_quote(const char *path);

#endif

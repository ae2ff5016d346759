/* pragma.h — the `#pragma tile` clause parser.
 *
 * Takes: the tokens of one pragma line after `#pragma tile` (the front end
 * lexes them with libclang, so continuation lines are already joined and every
 * token has its own location). Gives: a Pragma — the directive and its clauses
 * with their argument tokens — or diagnostics at the offending token.
 *
 * This stage knows the spelling of every directive and clause and checks the
 * syntax; values (is 3 a valid vector width?) are checked by the IR builder,
 * which can evaluate enum constants and macros. */
#ifndef TILEPP_PRAGMA_H
#define TILEPP_PRAGMA_H

#include <stdbool.h>

#include "diag.h"

typedef enum { PTOK_IDENT, PTOK_NUMBER, PTOK_PUNCT, PTOK_STRING, PTOK_OTHER } PTokKind;

typedef struct PTok {
    PTokKind kind;
    char *text;
    SrcLoc loc;
} PTok;

typedef enum {
    PRAGMA_KERNEL,
    PRAGMA_GRID,
    PRAGMA_PARALLEL,
    PRAGMA_PIPELINED,
    PRAGMA_SHARED,
    PRAGMA_FRAGMENT,
    PRAGMA_LOCAL,
    PRAGMA_GEMM,
    PRAGMA_TUNE,
    PRAGMA_COUNT
} PragmaKind;

/* One argument: the tokens between two top-level commas. */
typedef struct PArg {
    PTok *toks;
    int ntoks;
    SrcLoc loc;
} PArg;

typedef struct PClause {
    char *name;
    SrcLoc loc;
    bool has_parens;
    /* reduce(op: a, b): op is the operator spelling, args the variables. */
    char *reduce_op;
    PArg *args;
    int nargs;
} PClause;

typedef struct Pragma {
    PragmaKind kind;
    SrcLoc loc;      /* of the `#` */
    SrcLoc kind_loc; /* of the directive word */
    PClause *clauses;
    int nclauses;
    /* Byte offsets in the main file, for attaching to what follows. */
    unsigned begin_offset, end_offset;
} Pragma;

/* Parses `toks` (everything after `tile`). `tile_loc` is where the word `tile`
 * stands, for the diagnostic when no directive follows. Returns NULL after
 * reporting an error. */
Pragma *pragma_parse(const PTok *toks, int ntoks, SrcLoc hash_loc, SrcLoc tile_loc);
void pragma_free(Pragma *p);

const char *pragma_kind_name(PragmaKind kind);
/* The clause named `name`, or NULL. */
const PClause *pragma_clause(const Pragma *p, const char *name);
/* Joins an argument's tokens with single spaces, e.g. "BM * 2". */
char *parg_text(const PArg *arg);

#endif

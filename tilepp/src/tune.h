/* tune.h — `#pragma tile tune`: the file translated once per point of a
 * kernel's space.
 *
 * Takes: the parse options and text of the file, and a kernel of its IR that
 * has a tune space. Gives: for every point, its name and either the plan of
 * the rewritten file's translation, holding that kernel alone, or the reason
 * the translation was refused (the point is pruned). The emitter prints the
 * valid points as variants beside one tuned launcher (emit_tune.c); the
 * runtime (tile_tune.cuh) picks among them.
 *
 * A point is the file with the constants' definitions rewritten, parsed and
 * translated again from scratch: every use of a constant sees the point's
 * value, as if the user had edited the file. Diagnostics of the points are
 * captured, not printed: the file's own values were checked by the main
 * translation, and a point's refusal is an answer, not a failure. */
#ifndef TILEPP_TUNE_H
#define TILEPP_TUNE_H

#include "lower.h"
#include "parse.h"

typedef struct TunePoint {
    char *name;         /* "BM=64,BN=128": the space's names, in the pragma's order */
    long long *values;  /* one per IrTuneParam */
    const Plan *plan;   /* the point's plan (its module holds the kernel alone); NULL: pruned */
    const char *pruned; /* pruned: the first error of its translation, "file:line:col: message" */
    const char *said;   /* pruned: everything its translation said, as it would have been printed */
    int said_errors, said_warnings;
    /* Not NULL: the point was refused for sm_80 (the first error, as
     * `pruned` would say it) but not for sm_90a alone, and is translated for
     * that (a Hopper block may have 227 KB of shared memory, an sm_80 one
     * 163 KB): its variant runs where the device has what it needs, and the
     * tuner passes over it where its launch fails. */
    const char *sm90a_only;
} TunePoint;

typedef struct TunedKernel {
    const IrKernel *k; /* in the file's own IR */
    TunePoint *points;
    int npoints, nvalid;
    int source_point; /* the point with the file's own values; -1 if they are not in the space */
    char key[17];     /* 16 hex digits: tilepp's version, the file, the space and the options (the cache key) */
} TunedKernel;

/* What a point's translation needs besides the text. */
typedef struct TuneContext {
    const ParseOptions *parse; /* the file's parse (its unsaved_text is replaced) */
    const char *text;          /* the file's own bytes */
    size_t len;
    unsigned archs;
    bool debug;
} TuneContext;

/* Translates every point of k's space. Never NULL. */
TunedKernel *tune_expand(const TuneContext *ctx, const IrKernel *k);

#endif

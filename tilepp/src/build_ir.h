/* build_ir.h — from the parsed file to the IR.
 *
 * Takes: a FrontEnd (translation unit + attached pragmas). Gives: an IrModule
 * with one IrKernel per `#pragma tile kernel` function, the loops and buffer
 * accesses of its parallel nests, and the prelude (macros, includes, helper
 * functions, types, constant tables) that device code needs from the file.
 *
 * Reports constructs the language does not have (a non-canonical loop, a
 * statement that cannot be spread over threads, a pragma not implemented in
 * this version) at their location, and returns NULL if it reported any. */
#ifndef TILEPP_BUILD_IR_H
#define TILEPP_BUILD_IR_H

#include "ir.h"
#include "parse.h"

IrModule *build_ir(FrontEnd *fe);

/* complete.c: checks that every statement of every kernel body (and of the
 * grid blocks and pipelined loops in it) is the origin of an IR statement,
 * that every `#pragma tile` of the file is honoured by exactly one, and that
 * every kernel launches something. Reports each violation as an internal
 * error; true if there is none. build_ir runs it on every module it builds
 * without error. */
bool check_complete(FrontEnd *fe, const IrModule *m);

/* Evaluates an integer constant expression given as pragma tokens: literals,
 * + - * / % << >> ( ), enum constants, object-like macros (as defined at byte
 * `at` of the file, where the pragma stands) and const globals of the file.
 * Returns false (after reporting at arg->loc) if it cannot, or on overflow. */
bool eval_pragma_int(FrontEnd *fe, const PArg *arg, unsigned at, long long *value);
/* The same without a diagnostic. */
bool eval_pragma_int_quiet(FrontEnd *fe, const PArg *arg, unsigned at, long long *value);
/* Appends to `out` (PTok*) the tokens with object-like macros replaced by
 * their bodies, as defined at byte `at`; false for a function-like macro or
 * an expansion too deep or long. */
bool expand_pragma_tokens(FrontEnd *fe, const PTok *toks, int n, unsigned at, Vec *out);

#endif

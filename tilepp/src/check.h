/* check.h — semantic checks on the IR.
 *
 * Takes: an IrModule from build_ir. Gives: diagnostics for what would make
 * the kernel compute something other than the C — loop-carried dependences
 * through buffers that tilepp can see, writes that every iteration makes to
 * the same element — and true if there were none.
 *
 * The checks are conservative in one direction only: what they report is a
 * real conflict between iterations for the subscripts as written; accesses
 * they cannot analyse (indirect subscripts, pointers passed to functions) are
 * the user's responsibility, as with OpenMP. */
#ifndef TILEPP_CHECK_H
#define TILEPP_CHECK_H

#include "ir.h"

bool check_module(const IrModule *m);

#endif

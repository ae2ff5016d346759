/* unit.h — shared helpers of the CMocka unit tests (tests/unit).
 *
 * Every test runs with unit_setup/unit_teardown: diagnostics go to a memory
 * stream the test can read (unit_diag), and the teardown releases what the
 * stages allocated (front ends, the arena, registered sources) so the
 * sanitizer build's leak checker sees a clean exit.
 *
 * Sources are parsed from memory (ParseOptions.unsaved_text) under the name
 * UNIT_FILE; tilepp/tile.h comes from the build tree (TILEPP_TEST_INCLUDE_DIR,
 * set by tests/unit/CMakeLists.txt). */
#ifndef TILEPP_UNIT_H
#define TILEPP_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "build_ir.h"
#include "check.h"
#include "diag.h"
#include "emit_cuda.h"
#include "ir.h"
#include "lower.h"
#include "parse.h"
#include "pragma.h"
#include "util.h"

#ifndef TILEPP_TEST_INCLUDE_DIR
#error "TILEPP_TEST_INCLUDE_DIR must name the build tree's include directory"
#endif

/* The name in-memory sources are parsed under (never read from disk). */
#define UNIT_FILE "unit_input.c"

int unit_setup(void **state);
int unit_teardown(void **state);

#define UNIT_TEST(f) cmocka_unit_test_setup_teardown(f, unit_setup, unit_teardown)

/* Everything reported since the test began (flushed). */
const char *unit_diag(void);
/* Its first line, without the newline (arena memory). */
const char *unit_diag_first_line(void);
/* True if some line of the diagnostics is exactly `line`. */
bool unit_diag_has_line(const char *line);

/* Front end on an in-memory source; NULL after reporting. The teardown frees it. */
FrontEnd *unit_parse(const char *src);
/* parse + build_ir; NULL if either reported an error. */
IrModule *unit_build(const char *src);
/* parse + build_ir + check_module + lower_module; NULL on any error. */
Plan *unit_lower(const char *src);

/* Lookups that fail the test when the thing is missing. */
const IrKernel *unit_kernel(const IrModule *m, const char *name);
const IrParam *unit_param(const IrKernel *k, const char *name);
/* The n-th parallel nest of a kernel (0-based). */
const IrParallel *unit_parallel(const IrKernel *k, int n);
/* The n-th access whose text is `text` (0-based, in recording order). */
const IrAccess *unit_access(const IrParallel *par, const char *text, int n);
/* Number of accesses whose text is `text`. */
int unit_count_accesses(const IrParallel *par, const char *text);
/* The VecBuffer of buffer `name` in a plan, or NULL if it is not vectorised. */
const VecBuffer *unit_vec_buffer(const ParallelPlan *pp, const char *name);

/* ---- tiles (test_tile.c, test_tile_issues.c) ---- */

/* parse + build_ir + check_module + lower_module for the targets `archs`
 * (IrArch bits) instead of the default 80,90a; NULL on any error. */
Plan *unit_lower_archs(const char *src, unsigned archs);
/* The n-th grid of a kernel (0-based). */
const IrGrid *unit_grid(const IrKernel *k, int n);
/* The tile `name` of a grid. */
const IrBuffer *unit_grid_tile(const IrGrid *g, const char *name);
/* The plan of the n-th grid of kernel `name` (0-based). */
const GridPlan *unit_grid_plan(const Plan *plan, const char *kernel, int n);
/* The SharedPlan of tile `name` in a grid plan. */
const SharedPlan *unit_shared_plan(const GridPlan *gp, const char *name);
/* The first pipelined loop of a grid's body. */
const IrPipelined *unit_pipelined(const IrGrid *g);
/* The n-th tile operation of kind `kind` in a statement list, searching
 * pipelined loops too (0-based, in source order). */
const IrTileOp *unit_tile_op(const Vec *body, TileOpKind kind, int n);

/* Count of non-overlapping occurrences of `needle` in `hay`. */
int unit_count(const char *hay, const char *needle);

#endif

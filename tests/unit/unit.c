#define _POSIX_C_SOURCE 200809L
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_FRONT_ENDS = 16 };

static FILE *diag_mem;
static char *diag_buf;
static size_t diag_len;
static FrontEnd *front_ends[MAX_FRONT_ENDS];
static int nfront_ends;

int unit_setup(void **state)
{
    (void)state;
    diag_reset();
    diag_buf = NULL;
    diag_len = 0;
    diag_mem = open_memstream(&diag_buf, &diag_len);
    if (!diag_mem)
        return -1;
    diag_set_stream(diag_mem);
    nfront_ends = 0;
    return 0;
}

int unit_teardown(void **state)
{
    (void)state;
    for (int i = 0; i < nfront_ends; i++)
        frontend_free(front_ends[i]);
    nfront_ends = 0;
    diag_set_stream(NULL);
    if (diag_mem)
        fclose(diag_mem);
    diag_mem = NULL;
    free(diag_buf);
    diag_buf = NULL;
    diag_len = 0;
    diag_reset();
    arena_free_all();
    return 0;
}

const char *unit_diag(void)
{
    if (!diag_mem)
        return "";
    fflush(diag_mem);
    return diag_buf ? diag_buf : "";
}

const char *unit_diag_first_line(void)
{
    const char *text = unit_diag();
    const char *nl = strchr(text, '\n');
    return nl ? astrndup(text, (size_t)(nl - text)) : astrdup(text);
}

bool unit_diag_has_line(const char *line)
{
    size_t n = strlen(line);
    for (const char *p = unit_diag(); *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len == n && strncmp(p, line, n) == 0)
            return true;
        if (!nl)
            break;
        p = nl + 1;
    }
    return false;
}

FrontEnd *unit_parse(const char *src)
{
    ParseOptions opt = {
        .path = UNIT_FILE,
        .args = NULL,
        .nargs = 0,
        .include_dir = TILEPP_TEST_INCLUDE_DIR,
        .unsaved_text = src,
    };
    FrontEnd *fe = frontend_parse(&opt);
    if (fe) {
        assert_true(nfront_ends < MAX_FRONT_ENDS);
        front_ends[nfront_ends++] = fe;
    }
    return fe;
}

IrModule *unit_build(const char *src)
{
    FrontEnd *fe = unit_parse(src);
    return fe ? build_ir(fe) : NULL;
}

Plan *unit_lower(const char *src)
{
    IrModule *m = unit_build(src);
    if (!m || !check_module(m))
        return NULL;
    return lower_module(m);
}

const IrKernel *unit_kernel(const IrModule *m, const char *name)
{
    assert_non_null(m);
    for (int i = 0; i < m->kernels.len; i++) {
        const IrKernel *k = m->kernels.items[i];
        if (strcmp(k->name, name) == 0)
            return k;
    }
    fail_msg("no kernel '%s' in the module", name);
    return NULL;
}

const IrParam *unit_param(const IrKernel *k, const char *name)
{
    const IrParam *p = ir_kernel_param(k, name);
    if (!p)
        fail_msg("kernel '%s' has no parameter '%s'", k->name, name);
    return p;
}

const IrParallel *unit_parallel(const IrKernel *k, int n)
{
    for (int i = 0; i < k->stmts.len; i++) {
        const IrStmt *s = k->stmts.items[i];
        if (s->kind == STMT_PARALLEL && n-- == 0)
            return s->par;
    }
    fail_msg("kernel '%s' has too few parallel nests", k->name);
    return NULL;
}

const IrAccess *unit_access(const IrParallel *par, const char *text, int n)
{
    for (int i = 0; i < par->accesses.len; i++) {
        const IrAccess *a = par->accesses.items[i];
        if (strcmp(a->text, text) == 0 && n-- == 0)
            return a;
    }
    fail_msg("no access '%s' (or too few of them) in the parallel nest", text);
    return NULL;
}

int unit_count_accesses(const IrParallel *par, const char *text)
{
    int n = 0;
    for (int i = 0; i < par->accesses.len; i++)
        n += strcmp(((const IrAccess *)par->accesses.items[i])->text, text) == 0;
    return n;
}

const VecBuffer *unit_vec_buffer(const ParallelPlan *pp, const char *name)
{
    for (int i = 0; i < pp->vec_buffers.len; i++) {
        const VecBuffer *vb = pp->vec_buffers.items[i];
        if (strcmp(vb->buf->name, name) == 0)
            return vb;
    }
    return NULL;
}

Plan *unit_lower_archs(const char *src, unsigned archs)
{
    IrModule *m = unit_build(src);
    if (!m)
        return NULL;
    m->archs = archs;
    if (!check_module(m))
        return NULL;
    return lower_module(m);
}

const IrGrid *unit_grid(const IrKernel *k, int n)
{
    for (int i = 0; i < k->stmts.len; i++) {
        const IrStmt *s = k->stmts.items[i];
        if (s->kind == STMT_GRID && n-- == 0)
            return s->grid;
    }
    fail_msg("kernel '%s' has too few grids", k->name);
    return NULL;
}

const IrBuffer *unit_grid_tile(const IrGrid *g, const char *name)
{
    for (int i = 0; i < g->tiles.len; i++) {
        const IrBuffer *t = g->tiles.items[i];
        if (strcmp(t->name, name) == 0)
            return t;
    }
    fail_msg("the grid has no tile '%s'", name);
    return NULL;
}

const GridPlan *unit_grid_plan(const Plan *plan, const char *kernel, int n)
{
    assert_non_null(plan);
    for (int i = 0; i < plan->kernels.len; i++) {
        const KernelPlan *kp = plan->kernels.items[i];
        if (strcmp(kp->k->name, kernel) != 0)
            continue;
        if (n >= kp->grids.len)
            break;
        return kp->grids.items[n];
    }
    fail_msg("no plan for grid %d of kernel '%s'", n, kernel);
    return NULL;
}

const SharedPlan *unit_shared_plan(const GridPlan *gp, const char *name)
{
    for (int i = 0; i < gp->shared.len; i++) {
        const SharedPlan *sp = gp->shared.items[i];
        if (strcmp(sp->buf->name, name) == 0)
            return sp;
    }
    fail_msg("the grid plan has no shared tile '%s'", name);
    return NULL;
}

const IrPipelined *unit_pipelined(const IrGrid *g)
{
    for (int i = 0; i < g->body.len; i++) {
        const IrStmt *s = g->body.items[i];
        if (s->kind == STMT_PIPELINED)
            return s->pipe;
    }
    fail_msg("the grid has no pipelined loop");
    return NULL;
}

static const IrTileOp *find_tile_op(const Vec *body, TileOpKind kind, int *n)
{
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        if (s->kind == STMT_TILE_OP && s->op->kind == kind && (*n)-- == 0)
            return s->op;
        if (s->kind == STMT_PIPELINED) {
            const IrTileOp *op = find_tile_op(&s->pipe->body, kind, n);
            if (op)
                return op;
        }
    }
    return NULL;
}

const IrTileOp *unit_tile_op(const Vec *body, TileOpKind kind, int n)
{
    const IrTileOp *op = find_tile_op(body, kind, &n);
    if (!op)
        fail_msg("too few tile operations of kind %d", (int)kind);
    return op;
}

int unit_count(const char *hay, const char *needle)
{
    int n = 0;
    size_t len = strlen(needle);
    for (const char *p = strstr(hay, needle); p; p = strstr(p + len, needle))
        n++;
    return n;
}

#include "ir.h"

#include <string.h>

IrModule *ir_module_new(const char *source_path)
{
    IrModule *m = anew(sizeof *m);
    m->source_path = astrdup(source_path);
    m->archs = ARCH_SM80 | ARCH_SM90A;
    return m;
}

void ir_module_free(IrModule *m) { (void)m; /* arena memory: released by arena_free_all() */ }

IrCode *ir_code_new(SrcLoc loc)
{
    IrCode *c = anew(sizeof *c);
    c->loc = loc;
    return c;
}

/* The segments grow by doubling: the capacity is the smallest power of two
 * that holds nsegs (arena memory is never given back, so growing by one
 * would cost memory quadratic in the accesses of a body). */
static IrSeg *new_seg(IrCode *code)
{
    int n = code->nsegs;
    if (n == 0 || (n & (n - 1)) == 0) {
        IrSeg *segs = anew((size_t)(n ? 2 * n : 1) * sizeof *segs);
        if (n)
            memcpy(segs, code->segs, (size_t)n * sizeof *segs);
        code->segs = segs;
    }
    return &code->segs[code->nsegs++];
}

void ir_code_add_text(IrCode *code, const char *text, size_t len)
{
    if (!len)
        return;
    if (code->nsegs && code->segs[code->nsegs - 1].kind == SEG_TEXT) {
        IrSeg *last = &code->segs[code->nsegs - 1];
        last->text = aprintf("%s%.*s", last->text, (int)len, text);
        return;
    }
    IrSeg *s = new_seg(code);
    s->kind = SEG_TEXT;
    s->text = astrndup(text, len);
}

void ir_code_add_access(IrCode *code, IrAccess *access)
{
    IrSeg *s = new_seg(code);
    s->kind = SEG_ACCESS;
    s->access = access;
}

const IrParam *ir_kernel_param(const IrKernel *k, const char *name)
{
    for (int i = 0; i < k->params.len; i++) {
        const IrParam *p = k->params.items[i];
        if (strcmp(p->name, name) == 0)
            return p;
    }
    return NULL;
}

bool ir_type_is_float(const IrType *t)
{
    return t->kind == SCALAR_HALF || t->kind == SCALAR_BF16 || t->kind == SCALAR_FLOAT || t->kind == SCALAR_DOUBLE;
}

const IrParam *ir_param_of_buffer(const IrKernel *k, const IrBuffer *buf)
{
    for (int i = 0; i < k->params.len; i++) {
        const IrParam *p = k->params.items[i];
        if (p->kind == PARAM_BUFFER && p->buf == buf)
            return p;
    }
    return NULL;
}

const char *ir_reduce_op_name(IrReduceOp op)
{
    static const char *names[] = {"+", "*", "max", "min", "&", "|", "^", "&&", "||"};
    return names[op];
}

/* ---- dump ---- */

static const char *space_name(BufferSpace s)
{
    static const char *names[] = {"global", "shared", "fragment", "local"};
    return names[s];
}

static void dump_affine(FILE *out, const Affine *a, const IrParallel *par)
{
    if (!a->ok) {
        fputs("?", out);
        return;
    }
    bool any = false;
    for (int d = 0; d < par->depth; d++)
        if (a->coef[d]) {
            fprintf(out, "%s%lld*%s", any ? " + " : "", a->coef[d], par->loops[d].var);
            any = true;
        }
    if (a->rest && *a->rest) {
        fprintf(out, "%s%s", any ? " + " : "", a->rest);
        any = true;
    }
    if (a->offset || !any)
        fprintf(out, "%s%lld", any ? " + " : "", a->offset);
}

static void dump_code(FILE *out, const IrCode *c, const char *indent)
{
    fprintf(out, "%s| ", indent);
    for (int i = 0; i < c->nsegs; i++) {
        const char *t = c->segs[i].kind == SEG_TEXT ? c->segs[i].text : NULL;
        if (!t) {
            fprintf(out, "<%s>", c->segs[i].access->text);
            continue;
        }
        for (; *t; t++) {
            fputc(*t, out);
            if (*t == '\n')
                fprintf(out, "%s| ", indent);
        }
    }
    fputc('\n', out);
}

static void dump_parallel(FILE *out, const IrParallel *par, const char *indent)
{
    fprintf(out, "%sparallel vector(%d) line %d%s\n", indent, par->vector, par->loc.line,
            par->in_block ? " over the block" : "");
    for (int d = 0; d < par->depth; d++) {
        const IrLoop *l = &par->loops[d];
        fprintf(out, "%s  loop %s %s: %s .. %s%s step %s\n", indent, l->var_type.spelling, l->var, l->lo,
                l->inclusive ? "inclusive " : "", l->hi, l->step);
    }
    for (const IrGuard *g = par->guard; g; g = g->inner) {
        fprintf(out, "%s  if%s\n", indent, g->negate ? " not" : "");
        dump_code(out, g->cond, aprintf("%s    ", indent));
    }
    for (int i = 0; i < par->reduces.len; i++) {
        const IrReduce *r = par->reduces.items[i];
        fprintf(out, "%s  reduce %s: %s %s%s\n", indent, r->op_text, r->type.spelling, r->var,
                r->kernel_level ? " over the grid" : "");
    }
    for (int i = 0; i < par->accesses.len; i++) {
        const IrAccess *a = par->accesses.items[i];
        fprintf(out, "%s  access %s%s%s %s [", indent, a->is_read ? "R" : "", a->is_write ? "W" : "",
                a->conditional ? " cond" : "", a->buf->name);
        for (int d = 0; d < a->ndims; d++) {
            fputs(d ? "][" : "", out);
            dump_affine(out, &a->index[d], par);
        }
        fprintf(out, "]%s%s\n", a->nested ? " nested" : "", a->escapes ? " escapes" : "");
    }
    dump_code(out, par->body, aprintf("%s  ", indent));
}

static const char *tile_op_name(const IrTileOp *op)
{
    static const char *names[] = {"clear", "fill", "load", "store", "copy", "gemm", "reduce", "print"};
    return names[op->kind];
}

static void dump_block(FILE *out, const Vec *body, const char *indent)
{
    for (int i = 0; i < body->len; i++) {
        const IrStmt *s = body->items[i];
        switch (s->kind) {
        case STMT_TILE_DECL: {
            const IrBuffer *t = s->tile;
            fprintf(out, "%stile %s %s %s", indent, space_name(t->space), t->elem.spelling, t->name);
            for (int d = 0; d < t->rank; d++)
                fprintf(out, "[%lld]", t->dims[d]);
            fputc('\n', out);
            break;
        }
        case STMT_TILE_OP: {
            const IrTileOp *op = s->op;
            fprintf(out, "%s%s", indent, tile_op_name(op));
            if (op->kind == TILE_REDUCE)
                fprintf(out, " %s%s %s -> %s dim %d clear %s", op->reduce_abs ? "abs" : "",
                        ir_reduce_op_name(op->reduce), op->src->name, op->dst->name, op->dim, op->clear);
            else if (op->kind == TILE_GEMM)
                fprintf(out, "%s%s %s %s %s", op->a_trans ? " A^T" : "", op->b_trans ? " B^T" : "", op->a->name,
                        op->b->name, op->c->name);
            else if (op->kind == TILE_PRINT)
                fprintf(out, " %s%s%s", op->print_name, op->src ? "" : " : ", op->src ? "" : op->print_type.spelling);
            else if (op->kind == TILE_LOAD || op->kind == TILE_STORE) {
                fprintf(out, " %s %s", op->kind == TILE_LOAD ? op->dst->name : op->src->name, op->mat.buf->name);
                for (int d = 0; d < op->mat.nlead; d++)
                    fprintf(out, "[%s]", op->mat.lead[d]);
                if (op->mat.shift)
                    fprintf(out, " + %s", op->mat.shift);
                fprintf(out, " (%s, %s) in %s x %s", op->r0, op->c0, op->rows ? op->rows : "?",
                        op->cols ? op->cols : "?");
            } else
                fprintf(out, " %s%s%s", op->dst->name, op->value ? " = " : "", op->value ? op->value : "");
            fputc('\n', out);
            break;
        }
        case STMT_PIPELINED:
            fprintf(out, "%spipelined stages(%d) %s: %s .. %s step %s\n", indent, s->pipe->stages, s->pipe->loop.var,
                    s->pipe->loop.lo, s->pipe->loop.hi, s->pipe->loop.step);
            dump_block(out, &s->pipe->body, aprintf("%s  ", indent));
            break;
        case STMT_DECL:
            dump_code(out, s->code, indent);
            break;
        case STMT_SCALAR:
            fprintf(out, "%sstatement%s\n", indent, s->writes_memory ? " (writes memory: one thread)" : "");
            dump_code(out, s->code, aprintf("%s  ", indent));
            break;
        case STMT_SEQ:
            fprintf(out, "%ssequential loop line %d\n", indent, s->loc.line);
            dump_code(out, s->seq->header, aprintf("%s  ", indent));
            dump_block(out, &s->seq->body, aprintf("%s  ", indent));
            break;
        case STMT_PARALLEL:
            dump_parallel(out, s->par, indent);
            break;
        case STMT_GRID:
            break; /* grids do not nest */
        }
    }
}

static void dump_grid(FILE *out, const IrGrid *g)
{
    fprintf(out, "    grid swizzle(%d) line %d\n", g->swizzle, g->loc.line);
    for (int d = 0; d < g->depth; d++) {
        const IrLoop *l = &g->loops[d];
        fprintf(out, "      block loop %s %s: %s .. %s%s step %s\n", l->var_type.spelling, l->var, l->lo,
                l->inclusive ? "inclusive " : "", l->hi, l->step);
    }
    dump_block(out, &g->body, "      ");
}

void ir_dump(FILE *out, const IrModule *m)
{
    fprintf(out, "module %s\n", m->source_path);
    for (int i = 0; i < m->prelude.len; i++) {
        const IrPrelude *p = m->prelude.items[i];
        static const char *kinds[] = {"include", "macro", "decl", "function", "variable"};
        const char *nl = strchr(p->text, '\n');
        fprintf(out, "  prelude %s line %d: %.*s%s\n", kinds[p->kind], p->loc.line,
                nl ? (int)(nl - p->text) : (int)strlen(p->text), p->text, nl ? " ..." : "");
    }
    for (int i = 0; i < m->kernels.len; i++) {
        const IrKernel *k = m->kernels.items[i];
        fprintf(out, "  kernel %s threads(%d) line %d\n", k->name, k->threads, k->loc.line);
        for (int j = 0; j < k->params.len; j++) {
            const IrParam *p = k->params.items[j];
            if (p->kind == PARAM_SCALAR) {
                fprintf(out, "    param scalar %s %s\n", p->type.spelling, p->name);
                continue;
            }
            const IrBuffer *b = p->buf;
            fprintf(out, "    param buffer %s %s %s", space_name(b->space), b->elem.spelling, b->name);
            for (int d = 0; d < b->rank; d++)
                fprintf(out, "[%s]", b->extents[d] ? b->extents[d] : "");
            fputc('\n', out);
        }
        for (int j = 0; j < k->stmts.len; j++) {
            const IrStmt *s = k->stmts.items[j];
            if (s->kind == STMT_GRID) {
                dump_grid(out, s->grid);
                continue;
            }
            if (s->kind == STMT_DECL) {
                fprintf(out, "    decl");
                for (int n = 0; n < s->decl_names.len; n++)
                    fprintf(out, " %s", (char *)s->decl_names.items[n]);
                fprintf(out, " line %d%s\n", s->loc.line, s->reads_memory ? " reads-memory" : "");
                dump_code(out, s->code, "      ");
            } else
                dump_parallel(out, s->par, "    ");
        }
    }
}

bool code_mentions(const IrCode *code, const char *name)
{
    for (int i = 0; i < code->nsegs; i++) {
        const IrSeg *seg = &code->segs[i];
        if (text_mentions(seg->kind == SEG_TEXT ? seg->text : seg->access->text, name))
            return true;
    }
    return false;
}

bool parallel_mentions(const IrParallel *par, const char *name)
{
    for (const IrGuard *g = par->guard; g; g = g->inner)
        if (code_mentions(g->cond, name))
            return true;
    return code_mentions(par->body, name);
}

bool tile_op_uses(const IrTileOp *op, const IrBuffer *t)
{
    return op->dst == t || op->src == t || op->a == t || op->b == t || op->c == t;
}

const Vec *stmt_nested(const IrStmt *s)
{
    return s->kind == STMT_PIPELINED ? &s->pipe->body : s->kind == STMT_SEQ ? &s->seq->body : NULL;
}

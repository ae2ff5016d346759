#include "pragma.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef enum {
    ARGS_ONE,    /* exactly one argument: threads(N), vector(V), stages(S) */
    ARGS_CHOICE, /* one identifier out of a fixed set: policy(row) */
    ARGS_REDUCE, /* reduce(op: var, ...) */
    ARGS_LIST,   /* one or more arguments: tune NAME(v1, v2, ...) */
} ArgsShape;

typedef struct ClauseSpec {
    const char *name;
    ArgsShape shape;
    const char *choices; /* for ARGS_CHOICE: "square|row|col" */
} ClauseSpec;

typedef struct DirectiveSpec {
    const char *name;
    const ClauseSpec *clauses; /* NULL-name terminated */
    bool any_clause_name;      /* tune: clause names are the user's constants */
} DirectiveSpec;

static const ClauseSpec kernel_clauses[] = {
    {"threads", ARGS_ONE, NULL}, {"flops", ARGS_ONE, NULL}, {"bytes", ARGS_ONE, NULL}, {NULL, 0, NULL}};
static const ClauseSpec grid_clauses[] = {{"swizzle", ARGS_ONE, NULL}, {NULL, 0, NULL}};
static const ClauseSpec parallel_clauses[] = {
    {"vector", ARGS_ONE, NULL}, {"reduce", ARGS_REDUCE, NULL}, {NULL, 0, NULL}};
static const ClauseSpec pipelined_clauses[] = {{"stages", ARGS_ONE, NULL}, {NULL, 0, NULL}};
static const ClauseSpec no_clauses[] = {{NULL, 0, NULL}};
static const ClauseSpec gemm_clauses[] = {{"policy", ARGS_CHOICE, "square|row|col"}, {NULL, 0, NULL}};
static const ClauseSpec tune_clauses[] = {{NULL, ARGS_LIST, NULL}};

static const DirectiveSpec directives[PRAGMA_COUNT] = {
    [PRAGMA_KERNEL] = {"kernel", kernel_clauses, false},
    [PRAGMA_GRID] = {"grid", grid_clauses, false},
    [PRAGMA_PARALLEL] = {"parallel", parallel_clauses, false},
    [PRAGMA_PIPELINED] = {"pipelined", pipelined_clauses, false},
    [PRAGMA_SHARED] = {"shared", no_clauses, false},
    [PRAGMA_FRAGMENT] = {"fragment", no_clauses, false},
    [PRAGMA_LOCAL] = {"local", no_clauses, false},
    [PRAGMA_GEMM] = {"gemm", gemm_clauses, false},
    [PRAGMA_TUNE] = {"tune", tune_clauses, true},
};

const char *pragma_kind_name(PragmaKind kind) { return directives[kind].name; }

static const char *reduce_ops[] = {"+", "*", "max", "min", "&", "|", "^", "&&", "||", NULL};

typedef struct Cursor {
    const PTok *toks;
    int n, pos;
    SrcLoc end_loc; /* for "expected ... at end of pragma" */
} Cursor;

static const PTok *peek(Cursor *c) { return c->pos < c->n ? &c->toks[c->pos] : NULL; }
static SrcLoc here(Cursor *c) { return c->pos < c->n ? c->toks[c->pos].loc : c->end_loc; }
static bool at_punct(Cursor *c, const char *p)
{
    const PTok *t = peek(c);
    return t && t->kind == PTOK_PUNCT && strcmp(t->text, p) == 0;
}

static const ClauseSpec *find_clause_spec(const DirectiveSpec *d, const char *name)
{
    if (d->any_clause_name)
        return &d->clauses[0];
    for (const ClauseSpec *s = d->clauses; s->name; s++)
        if (strcmp(s->name, name) == 0)
            return s;
    return NULL;
}

static char *expected_clause_list(const DirectiveSpec *d)
{
    Str s = {0};
    for (const ClauseSpec *c = d->clauses; c->name; c++)
        str_addf(&s, "%s'%s'", s.len ? ", " : "", c->name);
    return str_take(&s);
}

/* Reads the tokens of one argument up to a top-level ',' or ')'. */
static bool parse_arg(Cursor *c, PArg *arg)
{
    int depth = 0, start = c->pos;
    arg->loc = here(c);
    while (peek(c)) {
        if (at_punct(c, "(") || at_punct(c, "["))
            depth++;
        else if (at_punct(c, ")") || at_punct(c, "]")) {
            if (depth == 0 && at_punct(c, "]")) {
                error_at(here(c), "unbalanced ']' in the argument of a clause");
                return false;
            }
            if (depth == 0)
                break;
            depth--;
        } else if (at_punct(c, ",") && depth == 0)
            break;
        c->pos++;
    }
    if (!peek(c)) {
        error_at(here(c), "expected ')' to close the clause");
        return false;
    }
    if (c->pos == start) {
        error_at(here(c), "expected an argument");
        return false;
    }
    arg->ntoks = c->pos - start;
    arg->toks = xcalloc((size_t)arg->ntoks, sizeof *arg->toks);
    for (int i = 0; i < arg->ntoks; i++) {
        arg->toks[i] = c->toks[start + i];
        arg->toks[i].text = xstrdup(c->toks[start + i].text);
    }
    return true;
}

static bool parse_arg_list(Cursor *c, PClause *cl)
{
    for (;;) {
        cl->args = xrealloc(cl->args, (size_t)(cl->nargs + 1) * sizeof *cl->args);
        if (!parse_arg(c, &cl->args[cl->nargs]))
            return false;
        cl->nargs++;
        if (!at_punct(c, ","))
            return true;
        c->pos++;
    }
}

static bool parse_reduce_op(Cursor *c, PClause *cl)
{
    const PTok *t = peek(c);
    if (t) {
        for (const char **op = reduce_ops; *op; op++)
            if (strcmp(t->text, *op) == 0) {
                cl->reduce_op = xstrdup(t->text);
                c->pos++;
                if (!at_punct(c, ":")) {
                    error_at(here(c), "expected ':' after the reduction operator");
                    return false;
                }
                c->pos++;
                return true;
            }
    }
    error_at(here(c), "expected a reduction operator (+, *, max, min, &, |, ^, &&, ||)");
    return false;
}

static bool check_args(const ClauseSpec *spec, PClause *cl)
{
    if (spec->shape == ARGS_ONE || spec->shape == ARGS_CHOICE) {
        if (cl->nargs != 1) {
            error_at(cl->args[1].loc, "'%s' takes one argument", cl->name);
            return false;
        }
    }
    if (spec->shape == ARGS_CHOICE) {
        PArg *a = &cl->args[0];
        char *text = parg_text(a);
        Str want = {0};
        str_addf(&want, "|%s|", spec->choices);
        Str got = {0};
        str_addf(&got, "|%s|", text);
        bool ok = a->ntoks == 1 && strstr(want.data, got.data);
        if (!ok)
            error_at(a->loc, "bad argument '%s' for '%s': expected one of %s", text, cl->name, spec->choices);
        free(text);
        str_free(&want);
        str_free(&got);
        return ok;
    }
    if (spec->shape == ARGS_REDUCE) {
        for (int i = 0; i < cl->nargs; i++)
            if (cl->args[i].ntoks != 1 || cl->args[i].toks[0].kind != PTOK_IDENT) {
                error_at(cl->args[i].loc, "expected a variable name in 'reduce'");
                return false;
            }
    }
    return true;
}

static bool parse_clause(Cursor *c, const DirectiveSpec *d, Pragma *p)
{
    const PTok *name = peek(c);
    if (name->kind != PTOK_IDENT) {
        error_at(name->loc, "expected a clause name, found '%s'", name->text);
        return false;
    }
    const ClauseSpec *spec = find_clause_spec(d, name->text);
    if (!spec) {
        char *list = expected_clause_list(d);
        if (*list)
            error_at(name->loc, "unknown clause '%s' for '#pragma tile %s'; expected %s", name->text, d->name, list);
        else
            error_at(name->loc, "'#pragma tile %s' takes no clauses, found '%s'", d->name, name->text);
        free(list);
        return false;
    }
    if (pragma_clause(p, name->text) && strcmp(name->text, "reduce") != 0) { /* reductions of several operators */
        error_at(name->loc, "duplicate clause '%s'", name->text);
        return false;
    }
    p->clauses = xrealloc(p->clauses, (size_t)(p->nclauses + 1) * sizeof *p->clauses);
    PClause *cl = &p->clauses[p->nclauses++];
    *cl = (PClause){.name = xstrdup(name->text), .loc = name->loc};
    c->pos++;
    if (!at_punct(c, "(")) {
        error_at(here(c), "expected '(' after '%s'", cl->name);
        return false;
    }
    c->pos++;
    cl->has_parens = true;
    if (spec->shape == ARGS_REDUCE && !parse_reduce_op(c, cl))
        return false;
    if (!parse_arg_list(c, cl))
        return false;
    c->pos++; /* ')' */
    return check_args(spec, cl);
}

static int find_directive(const char *word)
{
    for (int k = 0; k < PRAGMA_COUNT; k++)
        if (strcmp(directives[k].name, word) == 0)
            return k;
    return -1;
}

Pragma *pragma_parse(const PTok *toks, int ntoks, SrcLoc hash_loc, SrcLoc tile_loc)
{
    Cursor c = {toks, ntoks, 0, tile_loc};
    if (ntoks > 0) {
        c.end_loc = toks[ntoks - 1].loc;
        c.end_loc.col += (int)strlen(toks[ntoks - 1].text);
    } else
        c.end_loc.col += 4;
    const PTok *word = peek(&c);
    if (!word) {
        error_at(c.end_loc, "expected a directive after '#pragma tile' (kernel, grid, parallel, pipelined, "
                            "shared, fragment, local, gemm, tune)");
        return NULL;
    }
    int kind = word->kind == PTOK_IDENT ? find_directive(word->text) : -1;
    if (kind < 0) {
        error_at(word->loc,
                 "unknown directive '%s' after '#pragma tile'; expected kernel, grid, parallel, pipelined, "
                 "shared, fragment, local, gemm or tune",
                 word->text);
        return NULL;
    }
    Pragma *p = xcalloc(1, sizeof *p);
    p->kind = (PragmaKind)kind;
    p->loc = hash_loc;
    p->kind_loc = word->loc;
    c.pos++;
    while (peek(&c)) {
        if (!parse_clause(&c, &directives[kind], p)) {
            pragma_free(p);
            return NULL;
        }
        if (at_punct(&c, ","))
            c.pos++; /* OpenMP style: clauses may be separated by commas */
    }
    return p;
}

static void free_arg(PArg *a)
{
    for (int i = 0; i < a->ntoks; i++)
        free(a->toks[i].text);
    free(a->toks);
}

void pragma_free(Pragma *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->nclauses; i++) {
        PClause *cl = &p->clauses[i];
        for (int j = 0; j < cl->nargs; j++)
            free_arg(&cl->args[j]);
        free(cl->args);
        free(cl->name);
        free(cl->reduce_op);
    }
    free(p->clauses);
    free(p);
}

const PClause *pragma_clause(const Pragma *p, const char *name)
{
    for (int i = 0; i < p->nclauses; i++)
        if (strcmp(p->clauses[i].name, name) == 0)
            return &p->clauses[i];
    return NULL;
}

char *parg_text(const PArg *arg)
{
    Str s = {0};
    for (int i = 0; i < arg->ntoks; i++)
        str_addf(&s, "%s%s", i ? " " : "", arg->toks[i].text);
    return str_take(&s);
}

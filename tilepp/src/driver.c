#define _POSIX_C_SOURCE 200809L
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_ir.h"
#include "check.h"
#include "emit_cuda.h"
#include "lower.h"
#include "output.h"
#include "parse.h"
#include "tune.h"

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

char *default_output_name(const char *input)
{
    const char *base = base_name(input);
    const char *dot = strrchr(base, '.');
    size_t stem = dot ? (size_t)(dot - base) : strlen(base);
    return aprintf("%.*s.tile.cu", (int)stem, base);
}

static char *header_for(const char *output)
{
    if (str_ends_with(output, ".cu"))
        return aprintf("%.*s.h", (int)(strlen(output) - 3), output);
    return aprintf("%s.h", output);
}

char *default_depfile_name(const char *output)
{
    const char *base = base_name(output);
    const char *dot = strrchr(base, '.');
    size_t keep = dot ? (size_t)(dot - output) : strlen(output);
    return aprintf("%.*s.d", (int)keep, output);
}

char *make_quote(const char *path)
{
    Str s = {0};
    for (const char *p = path; *p; p++) {
        if (*p == ' ' || *p == '#')
            str_addc(&s, '\\');
        if (*p == '$')
            str_addc(&s, '$');
        str_addc(&s, *p);
    }
    return atake(&s);
}

static bool in_system_header(const FrontEnd *fe, const char *path)
{
    CXFile file = clang_getFile(fe->tu, path);
    return file && clang_Location_isInSystemHeader(clang_getLocationForOffset(fe->tu, file, 0));
}

static bool has_path(const Vec *paths, const char *path)
{
    for (int i = 0; i < paths->len; i++)
        if (strcmp(paths->items[i], path) == 0)
            return true;
    return false;
}

/* The files the depfile names, each once (libclang lists a header at every
 * #include of it): the input first, then the headers (-MMD: those outside
 * the system directories). */
static Vec depfile_prerequisites(const Options *opt, const FrontEnd *fe)
{
    Vec deps = {0};
    for (int i = 0; i < fe->dependencies.len; i++) {
        const char *path = fe->dependencies.items[i];
        bool wanted = i == 0 || !opt->depfile_user_only || !in_system_header(fe, path);
        if (wanted && !has_path(&deps, path))
            vec_push(&deps, (void *)path);
    }
    return deps;
}

/* A Make rule, as gcc writes it: "target: input \ header ...", and with -MP
 * an empty rule for each header, so a deleted header does not stop make. */
static char *depfile_text(const Options *opt, const FrontEnd *fe, const char *output)
{
    Vec deps = depfile_prerequisites(opt, fe);
    Str s = {0};
    str_add(&s, opt->dep_target ? opt->dep_target : make_quote(output));
    str_add(&s, ":");
    for (int i = 0; i < deps.len; i++) {
        str_add(&s, " \\\n  ");
        str_add(&s, make_quote(deps.items[i]));
    }
    str_add(&s, "\n");
    for (int i = 1; i < deps.len && opt->depfile_phony; i++)
        str_addf(&s, "%s:\n", make_quote(deps.items[i]));
    return atake(&s);
}

static char *ir_text(const IrModule *m)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return astrdup("");
    ir_dump(f, m);
    fclose(f);
    char *text = astrndup(buf, len);
    free(buf);
    return text;
}

/* "dir/x.tile.cu" -> "dir/x.tile.part3.cu" */
static char *part_name(const char *output, int part)
{
    size_t stem = str_ends_with(output, ".cu") ? strlen(output) - 3 : strlen(output);
    return aprintf("%.*s.part%d.cu", (int)stem, output, part);
}

static int emit_outputs(const Options *opt, const FrontEnd *fe, const IrModule *m, const Plan *plan)
{
    const char *output = opt->output ? opt->output : default_output_name(opt->input);
    int nparts = opt->emit == EMIT_IR ? 0 : opt->parts;
    OutputFile *files = anew((size_t)(3 + nparts) * sizeof *files);
    int n = 0;
    if (opt->emit == EMIT_IR) {
        files[n++] = (OutputFile){opt->output ? opt->output : "-", ir_text(m)};
    } else {
        const char *header = opt->header ? opt->header : header_for(output);
        EmitNames names = {opt->input, base_name(output), base_name(header), opt->clang_args, opt->nclang_args, nparts};
        files[n++] = (OutputFile){output, emit_cuda(plan, &names)};
        files[n++] = (OutputFile){header, emit_header(plan, &names)};
        for (int i = 1; i <= nparts; i++) {
            const char *part = part_name(output, i);
            EmitNames part_names = names;
            part_names.cu_name = base_name(part);
            files[n++] = (OutputFile){part, emit_tune_part(plan, &part_names, i)};
        }
    }
    if (opt->make_depfile) {
        const char *depfile = opt->depfile ? opt->depfile : default_depfile_name(output);
        files[n++] = (OutputFile){depfile, depfile_text(opt, fe, output)};
    }
    if (opt->syntax_only)
        return 0;
    return write_outputs(files, n, opt->input) ? 0 : 1;
}

/* Takes the kernels with a tune space out of m: they are lowered once per
 * point (tune.c), not with the file's own values. With --no-tune, none: each
 * is translated as if it had no tune line (its space was still checked). */
static Vec take_tuned(IrModule *m, bool no_tune)
{
    Vec tuned = {0};
    int kept = 0;
    for (int i = 0; i < m->kernels.len; i++) {
        IrKernel *k = m->kernels.items[i];
        if (no_tune)
            k->tune = NULL;
        if (k->tune)
            vec_push(&tuned, k);
        else
            m->kernels.items[kept++] = k;
    }
    m->kernels.len = kept;
    return tuned;
}

/* A space none of whose points translates is an error of the file: what the
 * translation of its own values (or of the first point) said, then why. */
static void refuse_space(const TunedKernel *tk)
{
    int shown = tk->source_point >= 0 ? tk->source_point : 0;
    const TunePoint *p = &tk->points[shown];
    diag_replay(p->said, p->said_errors, p->said_warnings);
    error_at(tk->k->tune->loc, "every point of the tune space of '%s' was refused (%d point%s); above, why %s was",
             tk->k->name, tk->npoints, tk->npoints == 1 ? "" : "s", p->name);
}

static bool tune_kernels(const Options *opt, const ParseOptions *po, FrontEnd *fe, Vec *tuned, Plan *plan)
{
    TuneContext ctx = {po, fe->text, fe->len, opt->archs, opt->debug};
    bool ok = true;
    for (int i = 0; i < tuned->len; i++) {
        TunedKernel *tk = tune_expand(&ctx, tuned->items[i]);
        if (tk->nvalid == 0) {
            refuse_space(tk);
            ok = false;
        }
        vec_push(&plan->tuned, tk);
    }
    diag_register_source(fe->path, fe->text); /* the points registered their own texts */
    return ok;
}

/* The stages after the parse. --emit ir stops before the checks (the IR is
 * for looking at, also when it would be refused), unless -fsyntax-only asks
 * for every check. Returns false when a stage refused the input. */
static bool run_stages(const Options *opt, const ParseOptions *po, FrontEnd *fe, IrModule **m, Plan **plan)
{
    *m = build_ir(fe);
    if (!*m)
        return false;
    /* Still a translation: the outputs declare no kernels, and a build that
     * lists the file goes on (pragmas/README.md, "What tilepp writes"). */
    if ((*m)->kernels.len == 0)
        warning_at(((SrcLoc){fe->path, 0, 0}), "no '#pragma tile kernel' in this file: there is nothing to translate");
    (*m)->archs = opt->archs;
    (*m)->debug = opt->debug;
    if (opt->emit == EMIT_IR && !opt->syntax_only)
        return true;
    if (!check_module(*m))
        return false;
    Vec tuned = take_tuned(*m, opt->no_tune);
    *plan = lower_module(*m);
    return *plan != NULL && tune_kernels(opt, po, fe, &tuned, *plan);
}

/* --list-variants: every point of every tuned kernel, valid or pruned. */
static void list_variants(const Plan *plan)
{
    for (int i = 0; i < plan->tuned.len; i++) {
        const TunedKernel *tk = plan->tuned.items[i];
        for (int j = 0; j < tk->npoints; j++) {
            const TunePoint *p = &tk->points[j];
            const char *status = !p->plan        ? aprintf("pruned: %s", p->pruned)
                                 : p->sm90a_only ? aprintf("ok on sm_90a only: %s", p->sm90a_only)
                                                 : "ok";
            printf("%s %s  %s%s\n", tk->k->name, p->name, status, j == tk->source_point ? "  (the file's values)" : "");
        }
    }
}

int tilepp_translate(const Options *opt)
{
    ParseOptions po = {opt->input, opt->clang_args, opt->nclang_args, opt->include_dir, opt->unsaved_text};
    FrontEnd *fe = frontend_parse(&po);
    if (!fe)
        return 1;
    IrModule *m = NULL;
    Plan *plan = NULL;
    /* Any error, a warning under -Werror included, means no output at all. */
    bool ok = run_stages(opt, &po, fe, &m, &plan) && diag_error_count() == 0;
    int status = 1;
    if (ok && opt->list_variants) {
        list_variants(plan);
        status = 0;
    } else if (ok)
        status = emit_outputs(opt, fe, m, plan);
    frontend_free(fe);
    return status;
}

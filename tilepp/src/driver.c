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

/* Make syntax: spaces in paths are escaped. */
static void add_make_path(Str *s, const char *path)
{
    for (const char *p = path; *p; p++) {
        if (*p == ' ' || *p == '#')
            str_addc(s, '\\');
        if (*p == '$')
            str_addc(s, '$');
        str_addc(s, *p);
    }
}

static char *depfile_text(const FrontEnd *fe, const char *target)
{
    Str s = {0};
    add_make_path(&s, target);
    str_add(&s, ":");
    for (int i = 0; i < fe->dependencies.len; i++) {
        str_add(&s, " \\\n  ");
        add_make_path(&s, fe->dependencies.items[i]);
    }
    str_add(&s, "\n");
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

static int emit_outputs(const Options *opt, const FrontEnd *fe, const IrModule *m, const Plan *plan)
{
    const char *output = opt->output ? opt->output : default_output_name(opt->input);
    OutputFile files[3];
    int n = 0;
    if (opt->emit == EMIT_IR) {
        files[n++] = (OutputFile){opt->output ? opt->output : "-", ir_text(m)};
    } else {
        const char *header = opt->header ? opt->header : header_for(output);
        EmitNames names = {opt->input, base_name(output), base_name(header)};
        files[n++] = (OutputFile){output, emit_cuda(plan, &names)};
        files[n++] = (OutputFile){header, emit_header(plan, &names)};
    }
    if (opt->make_depfile) {
        const char *depfile = opt->depfile ? opt->depfile : aprintf("%s.d", output);
        files[n++] = (OutputFile){depfile, depfile_text(fe, output)};
    }
    return write_outputs(files, n) ? 0 : 1;
}

int tilepp_translate(const Options *opt)
{
    ParseOptions po = {opt->input, opt->clang_args, opt->nclang_args, opt->include_dir, opt->unsaved_text};
    FrontEnd *fe = frontend_parse(&po);
    if (!fe)
        return 1;
    int status = 1;
    IrModule *m = build_ir(fe);
    if (m && opt->emit == EMIT_IR) {
        m->archs = opt->archs;
        status = emit_outputs(opt, fe, m, NULL);
    } else if (m && check_module(m)) {
        m->archs = opt->archs;
        Plan *plan = lower_module(m);
        if (plan && diag_error_count() == 0)
            status = emit_outputs(opt, fe, m, plan);
    }
    frontend_free(fe);
    return status;
}

/* parse.h — the front end: libclang parse and `#pragma tile` discovery.
 *
 * Takes: a C file and compiler flags. Gives: the translation unit and every
 * `#pragma tile` in the file, parsed (pragma.h) and attached to the statement
 * or declaration that follows it. Clang's own errors, pragmas that attach to
 * nothing and `_Pragma("tile ...")` are reported here.
 *
 * Pragmas are found in the token stream of the main file, so a pragma split
 * over continuation lines is one pragma and one in an `#if 0` region is none. */
#ifndef TILEPP_PARSE_H
#define TILEPP_PARSE_H

#include <clang-c/Index.h>

#include "diag.h"
#include "pragma.h"
#include "util.h"

typedef struct ParseOptions {
    const char *path;        /* the file, as the user named it */
    const char *const *args; /* extra compiler flags: -I, -D, -std */
    int nargs;
    const char *include_dir;  /* holds tilepp/tile.h; NULL if unknown */
    const char *unsaved_text; /* tests: parse this as the file's content */
} ParseOptions;

typedef struct Attached {
    Pragma *pragma;
    CXCursor target; /* the statement or declaration the pragma applies to */
} Attached;

/* An #undef in the main file (libclang keeps no record of them). */
typedef struct Undef {
    char *name;
    unsigned offset;
} Undef;

typedef struct FrontEnd {
    CXIndex index;
    CXTranslationUnit tu;
    CXFile file;
    const char *path;
    const char *text; /* the main file's bytes */
    size_t len;
    Vec attached;      /* Attached*, in source order */
    Vec dependencies;  /* char*: every file the parse read (for -MD) */
    Vec undefs;        /* Undef*, in source order */
    int macro_pragmas; /* `tile` pragmas from macros (_Pragma), refused */
} FrontEnd;

/* Parses and attaches. On error reports diagnostics and returns NULL. */
FrontEnd *frontend_parse(const ParseOptions *opt);
void frontend_free(FrontEnd *fe);

/* Locations and text of the main file. */
SrcLoc fe_loc(const FrontEnd *fe, CXSourceLocation loc);
SrcLoc fe_cursor_loc(const FrontEnd *fe, CXCursor c);
bool fe_in_main_file(const FrontEnd *fe, CXCursor c);
/* The byte range [begin, end) a cursor spans in the main file, at expansion
 * locations. Returns false if it is not in the main file. */
bool fe_cursor_range(const FrontEnd *fe, CXCursor c, unsigned *begin, unsigned *end);
/* The source text of a cursor (arena memory). */
char *fe_cursor_text(const FrontEnd *fe, CXCursor c);
/* The pragma of a given kind attached to `c`, or NULL. */
const Pragma *fe_pragma_on(const FrontEnd *fe, CXCursor c, PragmaKind kind);
/* Any tile pragma attached to c (the first), or NULL. */
const Attached *fe_attached_on(const FrontEnd *fe, CXCursor c);
/* Skips white space, comments and preprocessor lines of the main file from
 * `off`; returns the offset of the first other character. */
unsigned fe_skip_to_code(const FrontEnd *fe, unsigned off);

/* The pragma parser's kind of a libclang token. */
PTokKind ptok_kind(CXTokenKind k);

/* CXString to arena string. */
char *cx_take(CXString s);

#endif

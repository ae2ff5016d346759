/* diag.h — diagnostics in the compiler's format:
 *
 *     file.c:12:9: error: unknown clause 'thread' for '#pragma tile kernel'
 *        12 | #pragma tile kernel thread(128)
 *           |                     ^
 *
 * Takes: locations and messages from every stage. Gives: formatted output on
 * the diagnostic stream and an error count that decides the exit code. */
#ifndef TILEPP_DIAG_H
#define TILEPP_DIAG_H

#include <stdbool.h>
#include <stdio.h>

typedef struct SrcLoc {
    const char *file; /* as the user named it; NULL for "no location" */
    int line, col;    /* 1-based; col counts bytes; line 0: the file as a whole ("x.c: warning: ...") */
} SrcLoc;

typedef enum { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagLevel;

/* Where diagnostics go (stderr unless set) — tests capture them. */
void diag_set_stream(FILE *stream);
/* Clang's colours (bold location, red error, magenta warning, cyan note,
 * green caret); off until set. */
void diag_set_color(bool on);
/* -w: warnings, and the notes that follow them, are dropped. Wins over -Werror,
 * as in gcc and clang. */
void diag_ignore_warnings(bool on);
/* -Werror: warnings are reported, and counted, as errors. */
void diag_warnings_as_errors(bool on);
/* Whether the front end reports the C compiler's own warnings on the parse
 * (clang's, beside tilepp's). The command line turns it on, as a compiler
 * shows its warnings; off by default, so the stages' tests see tilepp's
 * diagnostics alone. */
void diag_show_compiler_warnings(bool on);
bool diag_compiler_warnings(void);
/* Registers the text of a file so diagnostics can quote its lines without
 * reading it again; unregistered files are read on demand. */
void diag_register_source(const char *file, const char *text);
/* Forgets sources, counts and the settings (colour, -w, -Werror, compiler
 * warnings). */
void diag_reset(void);

void diag_report(DiagLevel level, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define error_at(loc, ...) diag_report(DIAG_ERROR, (loc), __VA_ARGS__)
#define warning_at(loc, ...) diag_report(DIAG_WARNING, (loc), __VA_ARGS__)
#define note_at(loc, ...) diag_report(DIAG_NOTE, (loc), __VA_ARGS__)

/* Capture: from begin to end, diagnostics are formatted (without colour)
 * into a buffer instead of the stream, and counted apart; the counts, the
 * errors printed so far and the settings are as before afterwards. For
 * translations whose refusal is an answer, not a failure (a tune point). */
typedef struct DiagCaptured {
    int errors, warnings;
    char *text;        /* everything, as it would have been printed (malloc'd) */
    char *first_error; /* "file:line:col: message" of the first error, or NULL (malloc'd) */
} DiagCaptured;
void diag_capture_begin(void);
DiagCaptured diag_capture_end(void);

/* Writes what a capture said to the diagnostic stream, and counts its
 * errors and warnings as reported now. */
void diag_replay(const char *text, int errors, int warnings);

int diag_error_count(void);
int diag_warning_count(void);
/* Clang's closing line for the counts: "1 warning and 2 errors generated.";
 * "" when both are 0 (malloc'd). */
char *diag_summary(int warnings, int errors);

#endif

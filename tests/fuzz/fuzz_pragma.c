/* fuzz_pragma.c — libFuzzer harness for the `#pragma tile` clause parser.
 *
 * The input is the text after `#pragma tile` on one line. A small lexer
 * splits it as libclang would hand it over (identifiers, numbers, strings,
 * punctuators, any other byte a token of its own), and pragma_parse() must
 * either return a Pragma or report errors: never crash, read out of bounds,
 * or leak (ASan, UBSan and LeakSanitizer watch each run). Diagnostics are
 * formatted in full (the line is registered, so they quote it and place
 * the caret) and then discarded. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "pragma.h"
#include "util.h"

enum { MAX_TOKENS = 4096 };

static const char *const two_char_puncts[] = {"&&", "||", "<<", ">>", "<=", ">=", "==", "!=", "->", "++", "--"};

/* The length of the token at p (p[0] != '\0'), and its kind. */
static size_t token_at(const char *p, PTokKind *kind)
{
    size_t n = 1;
    if (isalpha((unsigned char)*p) || *p == '_') {
        while (isalnum((unsigned char)p[n]) || p[n] == '_')
            n++;
        *kind = PTOK_IDENT;
    } else if (isdigit((unsigned char)*p)) {
        while (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.')
            n++;
        *kind = PTOK_NUMBER;
    } else if (*p == '"') {
        while (p[n] && p[n] != '"')
            n++;
        n += p[n] == '"';
        *kind = PTOK_STRING;
    } else if (ispunct((unsigned char)*p)) {
        for (size_t i = 0; i < sizeof two_char_puncts / sizeof *two_char_puncts; i++)
            if (strncmp(p, two_char_puncts[i], 2) == 0)
                n = 2;
        *kind = PTOK_PUNCT;
    } else {
        *kind = PTOK_OTHER;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink)
        sink = fopen("/dev/null", "w");
    diag_set_stream(sink);

    /* One line: what libclang gives the parser ends at the first newline. */
    static const char prefix[] = "#pragma tile ";
    size_t len = 0;
    while (len < size && data[len] != '\n' && data[len] != '\0')
        len++;
    char *line = malloc(sizeof prefix + len);
    if (!line)
        return 0;
    memcpy(line, prefix, sizeof prefix - 1);
    memcpy(line + sizeof prefix - 1, data, len);
    line[sizeof prefix - 1 + len] = '\0';
    diag_register_source("fuzz.c", line);

    PTok *toks = malloc(MAX_TOKENS * sizeof *toks);
    int ntoks = 0;
    for (const char *p = line + sizeof prefix - 1; *p && toks && ntoks < MAX_TOKENS;) {
        if (*p == ' ' || *p == '\t' || *p == '\r') {
            p++;
            continue;
        }
        PTokKind kind;
        size_t n = token_at(p, &kind);
        toks[ntoks++] = (PTok){kind, astrndup(p, n), {"fuzz.c", 1, (int)(p - line) + 1}};
        p += n;
    }
    if (toks) {
        Pragma *pr = pragma_parse(toks, ntoks, (SrcLoc){"fuzz.c", 1, 1}, (SrcLoc){"fuzz.c", 1, 9});
        pragma_free(pr);
    }
    free(toks);
    free(line);
    diag_reset();
    arena_free_all();
    return 0;
}

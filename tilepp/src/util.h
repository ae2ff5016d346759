/* util.h — growable strings and arrays, checked allocation.
 * Takes: nothing. Gives: the small data structures every stage uses. */
#ifndef TILEPP_UTIL_H
#define TILEPP_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A NUL-terminated, growable string. Zero-initialised is empty. */
typedef struct Str {
    char *data;
    size_t len, cap;
} Str;

void str_addn(Str *s, const char *text, size_t n);
void str_add(Str *s, const char *text);
void str_addf(Str *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void str_vaddf(Str *s, const char *fmt, va_list ap);
void str_addc(Str *s, char c);
/* The text so far; "" for an empty string, never NULL. */
const char *str_cstr(const Str *s);
/* Hands the buffer to the caller and empties s. */
char *str_take(Str *s);
void str_free(Str *s);

/* The arena: memory that lives until arena_free_all(). The IR and everything
 * the stages hand each other come from here, so no stage frees piecemeal. */
void *anew(size_t size); /* zeroed */
char *astrdup(const char *s);
char *astrndup(const char *s, size_t n);
char *aprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Moves a Str's text into the arena and empties the Str. */
char *atake(Str *s);
void arena_free_all(void);

/* A growable array of pointers, in the arena. */
typedef struct Vec {
    void **items;
    int len, cap;
} Vec;

void vec_push(Vec *v, void *item);
/* Whether `item` is one of v's items (the same pointer). */
bool vec_contains(const Vec *v, const void *item);

/* The whole file (malloc'd, NUL-terminated), or NULL if it cannot be read. */
char *read_file(const char *path, size_t *len);

bool str_starts_with(const char *s, const char *prefix);
bool str_ends_with(const char *s, const char *suffix);
/* A type's spelling without a leading `const `: "const half" -> "half". */
const char *unqualified(const char *spelling);
/* True if C text `text` contains `name` as a whole identifier. */
/* Whether `w` is one of the NULL-terminated `words`. */
bool word_in(const char *w, const char *const *words);
bool text_mentions(const char *text, const char *name);

#endif

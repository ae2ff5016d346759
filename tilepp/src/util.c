#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *check_alloc(void *p)
{
    if (!p) {
        fputs("tilepp: out of memory\n", stderr);
        exit(2);
    }
    return p;
}

void *xmalloc(size_t size) { return check_alloc(malloc(size ? size : 1)); }
void *xcalloc(size_t count, size_t size) { return check_alloc(calloc(count ? count : 1, size ? size : 1)); }
void *xrealloc(void *ptr, size_t size) { return check_alloc(realloc(ptr, size ? size : 1)); }
char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *xstrndup(const char *s, size_t n)
{
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *xasprintf(const char *fmt, ...)
{
    Str s = {0};
    va_list ap;
    va_start(ap, fmt);
    str_vaddf(&s, fmt, ap);
    va_end(ap);
    return str_take(&s);
}

static void str_reserve(Str *s, size_t extra)
{
    if (s->len + extra + 1 <= s->cap)
        return;
    size_t cap = s->cap ? s->cap : 64;
    while (cap < s->len + extra + 1)
        cap *= 2;
    s->data = xrealloc(s->data, cap);
    s->cap = cap;
}

void str_addn(Str *s, const char *text, size_t n)
{
    str_reserve(s, n);
    memcpy(s->data + s->len, text, n);
    s->len += n;
    s->data[s->len] = '\0';
}

void str_add(Str *s, const char *text) { str_addn(s, text, strlen(text)); }
void str_addc(Str *s, char c) { str_addn(s, &c, 1); }

void str_vaddf(Str *s, const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0)
        return;
    str_reserve(s, (size_t)n);
    vsnprintf(s->data + s->len, (size_t)n + 1, fmt, ap);
    s->len += (size_t)n;
}

void str_addf(Str *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    str_vaddf(s, fmt, ap);
    va_end(ap);
}

const char *str_cstr(const Str *s) { return s->data ? s->data : ""; }

char *str_take(Str *s)
{
    char *d = s->data ? s->data : xstrdup("");
    *s = (Str){0};
    return d;
}

void str_free(Str *s)
{
    free(s->data);
    *s = (Str){0};
}

typedef struct Chunk {
    struct Chunk *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
} Chunk;

static Chunk *arena;

void *anew(size_t size)
{
    size = (size + 15) & ~(size_t)15;
    if (!arena || arena->used + size > arena->cap) {
        size_t cap = size > 65536 ? size : 65536;
        Chunk *c = xmalloc(sizeof *c + cap);
        c->next = arena;
        c->used = 0;
        c->cap = cap;
        arena = c;
    }
    void *p = arena->data + arena->used;
    arena->used += size;
    memset(p, 0, size);
    return p;
}

char *astrndup(const char *s, size_t n)
{
    char *d = anew(n + 1);
    memcpy(d, s, n);
    return d;
}

char *astrdup(const char *s) { return astrndup(s, strlen(s)); }

char *aprintf(const char *fmt, ...)
{
    Str s = {0};
    va_list ap;
    va_start(ap, fmt);
    str_vaddf(&s, fmt, ap);
    va_end(ap);
    return atake(&s);
}

char *atake(Str *s)
{
    char *d = astrndup(str_cstr(s), s->len);
    str_free(s);
    return d;
}

void arena_free_all(void)
{
    while (arena) {
        Chunk *next = arena->next;
        free(arena);
        arena = next;
    }
}

void vec_push(Vec *v, void *item)
{
    if (v->len == v->cap) {
        int cap = v->cap ? v->cap * 2 : 8;
        void **items = anew((size_t)cap * sizeof *items);
        if (v->len)
            memcpy(items, v->items, (size_t)v->len * sizeof *items);
        v->items = items;
        v->cap = cap;
    }
    v->items[v->len++] = item;
}

bool vec_contains(const Vec *v, const void *item)
{
    for (int i = 0; i < v->len; i++)
        if (v->items[i] == item)
            return true;
    return false;
}

bool str_starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

bool str_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    Str s = {0};
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        str_addn(&s, buf, n);
    if (ferror(f)) { /* errno says why */
        fclose(f);
        str_free(&s);
        return NULL;
    }
    fclose(f);
    if (len)
        *len = s.len;
    return str_take(&s);
}

const char *unqualified(const char *spelling) { return str_starts_with(spelling, "const ") ? spelling + 6 : spelling; }

bool word_in(const char *w, const char *const *words)
{
    for (int i = 0; words[i]; i++)
        if (strcmp(w, words[i]) == 0)
            return true;
    return false;
}

bool text_mentions(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        bool start = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool end = !(isalnum((unsigned char)p[n]) || p[n] == '_');
        if (start && end)
            return true;
    }
    return false;
}

/* tilepp/tile.h — the C side of the tilepp language.
 *
 * An annotated file includes this header and stays ordinary C: gcc and clang
 * compile it, ignore the `#pragma tile` lines, and run it on the CPU. That CPU
 * run is the meaning of the file; the CUDA tilepp emits must compute the same.
 *
 * Three audiences read this header:
 *   - a C compiler building the CPU reference (plain C11 or later);
 *   - nvcc compiling code tilepp generated (__CUDACC__): the same names then
 *     map onto the device runtime in tile_runtime.cuh;
 *   - the tilepp translator itself (__TILEPP__), which parses the file with
 *     libclang and needs the types, not their CPU implementation.
 *
 * Identifiers starting with `tile_` and `TILE_` are reserved for tilepp.
 */
#ifndef TILEPP_TILE_H
#define TILEPP_TILE_H

#define TILEPP_VERSION_MAJOR 0
#define TILEPP_VERSION_MINOR 1

#if defined(__cplusplus) && !defined(TILEPP_GENERATED_CUDA)
/* Any other C++ or CUDA file (one that includes a generated x.tile.h to call
 * the launchers): half and bfloat16 are CUDA's __half and __nv_bfloat16, so
 * cuda_fp16.h, cuda_bf16.h and cuBLAS's headers can come before or after.
 * The launchers take device pointers to 16-bit values; these types have the
 * same size and layout as the ones the kernels use. The tile operations of
 * the CPU reference are C only and are not declared here. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#if defined(CUDA_NO_HALF)
typedef __half half;
#endif
typedef __nv_bfloat16 bfloat16;
#elif defined(__CUDACC__)
/* Generated device code: half/bfloat16 are the runtime's storage types. */
#include "tile_runtime.cuh"
typedef tile_half half;
typedef tile_bfloat16 bfloat16;

#else /* C: the CPU reference and the translator's view */

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* half: IEEE binary16. C computes on it in float (excess precision), rounding
 * when a value is stored; the generated CUDA does the same. */
#if defined(__FLT16_MAX__)
typedef _Float16 half;
#else
/* An incomplete type: any use names the missing compiler support. */
typedef struct tile_half_needs_Float16_gcc12_or_clang15 half;
#endif

/* bfloat16: storage type with float arithmetic, like half. */
#if defined(__BFLT16_MAX__) || (defined(__clang__) && __clang_major__ >= 17)
typedef __bf16 bfloat16;
#else
typedef struct tile_bfloat16_needs_bf16_gcc13_or_clang17 bfloat16;
#endif

#endif /* the types */

/* The rest is the C language's side (and generated code's): not for other
 * C++ files. */
#if !defined(__cplusplus) || defined(TILEPP_GENERATED_CUDA)

#if defined(__CUDACC__)
#define TILE_FN static inline __host__ __device__
#else
#define TILE_FN static inline
#endif

/* Ceiling division of non-negative a by positive b. */
TILE_FN long long tile_cdiv(long long a, long long b) { return (a + b - 1) / b; }
/* Type-generic, like fminf/fmaxf for any arithmetic type; each argument is
 * evaluated twice, so pass expressions without side effects. (Generated code
 * gets functions of the same type instead: tile_runtime.cuh.) */
#if !defined(__CUDACC__)
#define tile_min(a, b) ((a) < (b) ? (a) : (b))
#define tile_max(a, b) ((a) > (b) ? (a) : (b))
#endif

/* ======================================================================
 * The tile operations in C: the CPU reference.
 *
 * tile_load, tile_store, tile_copy, tile_clear, tile_fill, tile_gemm[_nt|_tn|
 * _tt], tile_reduce_max|min|sum|absmax|abssum and tile_print are macros.
 * They take arrays, find shapes with sizeof and element types with _Generic,
 * and call the small functions below with (pointer, element kind, shape).
 * pragmas/README.md ("Functions and types of tile.h") is their reference.
 *
 * Arguments:
 *   - a tile is a 1-D or 2-D array object (`half As[BM][BK]`, `float m[BM]`),
 *     not a pointer: its shape comes from sizeof. Passing a pointer is caught
 *     by -Wsizeof-pointer-div / -Wsizeof-array-argument (-Wall).
 *   - a matrix (the source of tile_load, the destination of tile_store) is any
 *     expression of 2-D array or pointer-to-row type: a local array, a C99
 *     parameter `const half A[M][K]`, a slice `Q[b][h]` of a 4-D array, a cast
 *     `(const half (*)[K])p` (not in the in-bounds forms, which measure the
 *     matrix and need an lvalue). Its row length comes from sizeof(m[0]). A
 *     1-D matrix is a 1-D array or an element pointer (`const float *x`).
 *   - element types: _Bool, char, signed/unsigned char, short, int, long,
 *     long long (signed and unsigned), float, double, half, bfloat16.
 *     Other types (long double, volatile elements, 3-D arrays) do not compile.
 *
 * Each argument is evaluated once, except that an array argument whose type
 * is variably modified (a VLA, or a slice of a VLA parameter such as Q[b][h]
 * with a run-time D) is evaluated again by the sizeof that reads its shape:
 * pass array expressions without side effects.
 *
 * Run-time checks (shapes, in-bounds promises) print `file:line: function:
 * message` to stderr and abort(). They are always on in C; define
 * TILE_NO_CHECKS before including tile.h to compile them out.
 *
 * Not for the translator (__TILEPP__), which sees the declarations of
 * tile_ops.h instead, nor for nvcc (__CUDACC__).
 * ====================================================================== */
#if !defined(__CUDACC__) && !defined(__TILEPP__)

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Which 16-bit float types this compiler has (same tests as the typedefs). */
#if defined(__FLT16_MAX__)
#define TILE_HAVE_HALF 1
#else
#define TILE_HAVE_HALF 0
#endif
#if defined(__BFLT16_MAX__) || (defined(__clang__) && __clang_major__ >= 17)
#define TILE_HAVE_BFLOAT16 1
#else
#define TILE_HAVE_BFLOAT16 0
#endif

/* ---- element kinds -----------------------------------------------------
 * TILE_TYPES_(X, a) calls X(a, NAME, type, read-as, wide, conversion) once
 * per element type:
 *   read-as: the type a value is read as (half and bfloat16: float, exact);
 *   wide: LL, ULL or DBL, the type that holds every value of the type
 *     exactly (long long, unsigned long long, double); conversions go
 *     source -> wide -> destination, which gives the same result as C's
 *     direct conversion, as C converts values, and the first step keeps them;
 *   conversion: applied to a wide value to get this type: a cast, or for
 *     bfloat16 the rounding function below.
 */
enum tile_kind_ {
    TILE_K_BOOL_,
    TILE_K_CHAR_,
    TILE_K_SCHAR_,
    TILE_K_UCHAR_,
    TILE_K_SHORT_,
    TILE_K_USHORT_,
    TILE_K_INT_,
    TILE_K_UINT_,
    TILE_K_LONG_,
    TILE_K_ULONG_,
    TILE_K_LLONG_,
    TILE_K_ULLONG_, /* the integer kinds end here */
    TILE_K_FLOAT_,
    TILE_K_DOUBLE_,
    TILE_K_HALF_,
    TILE_K_BF16_
};

#if TILE_HAVE_HALF
#define TILE_TYPES_HALF_(X, a) X(a, HALF, half, float, DBL, (half))
#else
#define TILE_TYPES_HALF_(X, a)
#endif
#if TILE_HAVE_BFLOAT16
#define TILE_TYPES_BF16_(X, a) X(a, BF16, bfloat16, float, DBL, TILE_BF16_FROM_)
#else
#define TILE_TYPES_BF16_(X, a)
#endif

#define TILE_TYPES_(X, a)                                                                                              \
    X(a, BOOL, _Bool, _Bool, LL, (_Bool))                                                                              \
    X(a, CHAR, char, char, LL, (char))                                                                                 \
    X(a, SCHAR, signed char, signed char, LL, (signed char))                                                           \
    X(a, UCHAR, unsigned char, unsigned char, LL, (unsigned char))                                                     \
    X(a, SHORT, short, short, LL, (short))                                                                             \
    X(a, USHORT, unsigned short, unsigned short, LL, (unsigned short))                                                 \
    X(a, INT, int, int, LL, (int))                                                                                     \
    X(a, UINT, unsigned int, unsigned int, LL, (unsigned int))                                                         \
    X(a, LONG, long, long, LL, (long))                                                                                 \
    X(a, ULONG, unsigned long, unsigned long, ULL, (unsigned long))                                                    \
    X(a, LLONG, long long, long long, LL, (long long))                                                                 \
    X(a, ULLONG, unsigned long long, unsigned long long, ULL, (unsigned long long))                                    \
    X(a, FLOAT, float, float, DBL, (float))                                                                            \
    X(a, DOUBLE, double, double, DBL, (double))                                                                        \
    TILE_TYPES_HALF_(X, a) TILE_TYPES_BF16_(X, a)

/* The wide types. */
enum { TILE_W_LL_, TILE_W_ULL_, TILE_W_DBL_ };
#define TILE_WTYPE_LL_ long long
#define TILE_WTYPE_ULL_ unsigned long long
#define TILE_WTYPE_DBL_ double

static inline size_t tile_kind_size_(int kind)
{
    switch (kind) {
#define TILE_SIZE_CASE_(a, N, T, R, W, C)                                                                              \
    case TILE_K_##N##_:                                                                                                \
        return sizeof(T);
        TILE_TYPES_(TILE_SIZE_CASE_, ~)
#undef TILE_SIZE_CASE_
    default:
        return 1;
    }
}

static inline const char *tile_kind_name_(int kind)
{
    switch (kind) {
#define TILE_NAME_CASE_(a, N, T, R, W, C)                                                                              \
    case TILE_K_##N##_:                                                                                                \
        return #T;
        TILE_TYPES_(TILE_NAME_CASE_, ~)
#undef TILE_NAME_CASE_
    default:
        return "?";
    }
}

static inline int tile_kind_is_int_(int kind) { return kind <= TILE_K_ULLONG_; }
static inline int tile_kind_is_signed_(int kind)
{
    return kind == TILE_K_SCHAR_ || kind == TILE_K_SHORT_ || kind == TILE_K_INT_ || kind == TILE_K_LONG_ ||
           kind == TILE_K_LLONG_ || (kind == TILE_K_CHAR_ && (char)-1 < 0);
}

/* ---- shapes and types of macro arguments (nothing here is evaluated) ----
 * TILE_KIND_(x): element kind of a 1-D or 2-D array or pointer x, read from
 *   x[0] (an element, or a row that decays to an element pointer).
 * TILE_RANK_(x): 1 when x[0] is an element, else 2.
 */
#define TILE_ASSOC_KIND_(a, N, T, R, W, C) , T : TILE_K_##N##_, T * : TILE_K_##N##_, const T * : TILE_K_##N##_
#define TILE_KIND_(x) _Generic((x)[0] TILE_TYPES_(TILE_ASSOC_KIND_, ~))
#define TILE_ASSOC_ONE_(a, N, T, R, W, C) , T : 1
#define TILE_RANK_(x) _Generic((x)[0] TILE_TYPES_(TILE_ASSOC_ONE_, ~), default : 2)

/* A tile argument: pointer, kind, rank, extent of dim 0, bytes of x[0]. */
#define TILE_TILE_(t) (t), TILE_KIND_(t), TILE_RANK_(t), sizeof(t) / sizeof((t)[0]), sizeof((t)[0])
/* A matrix argument: pointer, kind, rank, bytes of m[0], pointer size. */
#define TILE_MAT_(m) (m), TILE_KIND_(m), TILE_RANK_(m), sizeof((m)[0]), sizeof(&(m)[0])
/* Bytes of the object m designates: the whole array when m is an array, the
 * size of a pointer when m is a pointer (a parameter `const half A[M][K]` is
 * one). The comma keeps compilers from warning about sizeof on an array
 * parameter. m must be an lvalue. */
#define TILE_EXTENT_(m) sizeof(*((void)0, &(m)))
/* The same for the 4-argument forms, where t decides: 2-D t -> extent of m;
 * 1-D t (the (i0, n) form, which needs none) -> a dummy, so that m may then
 * be any expression (`x + off`). */
#define TILE_ASSOC_DUMMY_(a, N, T, R, W, C) , T : *(char(*)[1])0
#define TILE_EXTENT_IF2_(t, m) sizeof(*((void)0, &_Generic((t)[0] TILE_TYPES_(TILE_ASSOC_DUMMY_, ~), default : (m))))

/* A compile-time check usable as an expression. (The sizeof keeps clang
 * from quoting the whole expanded condition in its message.) */
#define TILE_STATIC_CHECK_(cond, msg)                                                                                  \
    ((void)sizeof(struct {                                                                                             \
        _Static_assert(sizeof(char[(cond) ? 1 : 2]) == 1, msg);                                                        \
        int tile_unused_;                                                                                              \
    }))

/* Dispatch on the number of arguments (1 to 9). */
#define TILE_NARGS_(...) TILE_NARGS_I_(__VA_ARGS__, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define TILE_NARGS_I_(a1, a2, a3, a4, a5, a6, a7, a8, a9, n, ...) n
#define TILE_CAT_(a, b) TILE_CAT_I_(a, b)
#define TILE_CAT_I_(a, b) a##b

/* ---- checks ------------------------------------------------------------ */
#if defined(TILE_NO_CHECKS)
#define TILE_CHECKS_ON_ 0
#else
#define TILE_CHECKS_ON_ 1
#endif

#if defined(__GNUC__)
#define TILE_PRINTF_(f, a) __attribute__((format(printf, f, a)))
#else
#define TILE_PRINTF_(f, a)
#endif
static inline _Noreturn void tile_fail_(const char *file, int line, const char *fn, const char *fmt, ...)
    TILE_PRINTF_(4, 5);
static inline _Noreturn void tile_fail_(const char *file, int line, const char *fn, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "%s:%d: %s: ", file, line, fn);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

/* ---- views --------------------------------------------------------------
 * A tile is seen as rows x cols (a 1-D tile of n elements as 1 x n), a
 * matrix as rows x cols with row stride ld (elements). -1: not known.
 */
typedef struct tile_view_ {
    char *p;
    int kind, rank;
    size_t esize;
    ptrdiff_t rows, cols, ld;
} tile_view_;

static inline tile_view_ tile_tile_view_(const void *p, int kind, int rank, size_t n0, size_t row_bytes)
{
    tile_view_ v;
    v.p = (char *)(uintptr_t)p; /* written only where the caller passed it non-const */
    v.kind = kind;
    v.rank = rank;
    v.esize = tile_kind_size_(kind);
    v.rows = rank == 2 ? (ptrdiff_t)n0 : 1;
    v.cols = rank == 2 ? (ptrdiff_t)(row_bytes / v.esize) : (ptrdiff_t)n0;
    v.ld = v.cols;
    return v;
}

/* extent_bytes: TILE_EXTENT_ of the matrix, or 0 when not measured; it is
 * "not known" when it equals the size of a pointer (the matrix is one). */
static inline tile_view_ tile_mat_view_(const void *p, int kind, int rank, size_t row_bytes, size_t ptr_bytes,
                                        size_t extent_bytes)
{
    tile_view_ v;
    int known = extent_bytes != 0 && extent_bytes != ptr_bytes;
    v.p = (char *)(uintptr_t)p; /* written only where the caller passed it non-const */
    v.kind = kind;
    v.rank = rank;
    v.esize = tile_kind_size_(kind);
    if (rank == 2) {
        v.ld = (ptrdiff_t)(row_bytes / v.esize);
        v.cols = v.ld;
        v.rows = known ? (ptrdiff_t)(extent_bytes / row_bytes) : -1;
    } else {
        v.ld = 0;
        v.rows = 1;
        v.cols = known ? (ptrdiff_t)(extent_bytes / v.esize) : -1;
    }
    return v;
}

/* ---- conversion ---------------------------------------------------------
 * tile_convert_: d[i*drs + j*dcs] = (D)s[i*srs + j*scs] for i < rows,
 * j < cols (strides in elements), C's conversion from the source to the
 * destination type, through the wide types (see TILE_TYPES_).
 * To bfloat16 the rounding is done here, in software (round to nearest
 * even, like the compiler's conversion, which needs a runtime library that
 * libgcc before GCC 13 lacks): floating sources are rounded once, directly;
 * integers go through double.
 */
#if TILE_HAVE_BFLOAT16
static inline bfloat16 tile_bf16_from_double_(double d)
{
    uint32_t u;
    uint16_t h;
    bfloat16 b;
    float f = (float)d;
    memcpy(&u, &f, sizeof u);
    if (d != d) {
        h = (uint16_t)((u >> 16) | 0x0040u); /* a quiet NaN, sign kept */
    } else {
        /* Round d to float with round-to-odd (inexact results get an odd
         * last bit), then to bfloat16 to nearest even: the two steps round
         * like one, as float has 16 more bits. Overflow to infinity in
         * float overflows in bfloat16 too. */
        if ((double)f != d && !isinf(f) && (u & 1u) == 0)
            u = fabs((double)f) > fabs(d) ? u - 1 : u + 1;
        h = (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    }
    memcpy(&b, &h, sizeof b);
    return b;
}
#define TILE_BF16_FROM_(v) tile_bf16_from_double_((double)(v))
#endif

/* w[j] = (wide)s[j*scs] for j < n; returns the wide type (TILE_W_*). */
static inline int tile_widen_(void *w, const void *s, int sk, ptrdiff_t scs, ptrdiff_t n)
{
    switch (sk) {
#define TILE_WIDEN_CASE_(a, N, T, R, W, C)                                                                             \
    case TILE_K_##N##_:                                                                                                \
        for (ptrdiff_t j = 0; j < n; j++)                                                                              \
            ((TILE_WTYPE_##W##_ *)w)[j] = (TILE_WTYPE_##W##_)(R)((const T *)s)[j * scs];                               \
        return TILE_W_##W##_;
        TILE_TYPES_(TILE_WIDEN_CASE_, ~)
#undef TILE_WIDEN_CASE_
    default:
        return TILE_W_LL_;
    }
}

/* d[j*dcs] = conversion(w[j]) for j < n, w of wide type wk. (The store is
 * a memcpy: clang with sanitizers otherwise turns a bfloat16 store into a
 * float -> bfloat16 conversion call.) */
static inline void tile_narrow_(void *d, int dk, ptrdiff_t dcs, const void *w, int wk, ptrdiff_t n)
{
#define TILE_NARROW_LOOP_(T, C, W)                                                                                     \
    for (ptrdiff_t j = 0; j < n; j++) {                                                                                \
        T v_ = C(((const W *)w)[j]);                                                                                   \
        memcpy((T *)d + j * dcs, &v_, sizeof v_);                                                                      \
    }
#define TILE_NARROW_CASE_(a, N, T, R, W, C)                                                                            \
    case TILE_K_##N##_:                                                                                                \
        if (wk == TILE_W_LL_)                                                                                          \
            TILE_NARROW_LOOP_(T, C, long long)                                                                         \
        else if (wk == TILE_W_ULL_)                                                                                    \
            TILE_NARROW_LOOP_(T, C, unsigned long long)                                                                \
        else                                                                                                           \
            TILE_NARROW_LOOP_(T, C, double)                                                                            \
        return;
    switch (dk) {
        TILE_TYPES_(TILE_NARROW_CASE_, ~)
    default:
        return;
    }
#undef TILE_NARROW_CASE_
#undef TILE_NARROW_LOOP_
}

static inline void tile_convert_(void *d, int dk, ptrdiff_t drs, ptrdiff_t dcs, const void *s, int sk, ptrdiff_t srs,
                                 ptrdiff_t scs, ptrdiff_t rows, ptrdiff_t cols)
{
    size_t des = tile_kind_size_(dk), ses = tile_kind_size_(sk);
    union {
        long long ll[64];
        unsigned long long ull[64];
        double dbl[64];
    } w;
    for (ptrdiff_t i = 0; i < rows; i++) {
        char *dp = (char *)d + (size_t)(i * drs) * des;
        const char *sp = (const char *)s + (size_t)(i * srs) * ses;
        if (dk == sk && dcs == 1 && scs == 1) {
            memcpy(dp, sp, (size_t)cols * des);
            continue;
        }
        for (ptrdiff_t j = 0; j < cols; j += 64) {
            ptrdiff_t n = cols - j < 64 ? cols - j : 64;
            int wk = tile_widen_(&w, sp + (size_t)(j * scs) * ses, sk, scs, n);
            tile_narrow_(dp + (size_t)(j * dcs) * des, dk, dcs, &w, wk, n);
        }
    }
}

/* Zeros in rows x cols elements at d (row stride ld elements): all-zero
 * bytes are 0 (+0.0) in every element type. */
static inline void tile_zero_(char *d, size_t esize, ptrdiff_t ld, ptrdiff_t rows, ptrdiff_t cols)
{
    for (ptrdiff_t i = 0; i < rows; i++)
        memset(d + (size_t)(i * ld) * esize, 0, (size_t)cols * esize);
}

static inline ptrdiff_t tile_clamp_(long long v, ptrdiff_t lo, ptrdiff_t hi)
{
    return v < lo ? lo : v > hi ? hi : (ptrdiff_t)v;
}

/* ---- tile_load / tile_store ---------------------------------------------
 * The window of the tile's shape at (r0, c0) of the rows x cols matrix m.
 * Load: tile elements whose matrix position is outside [0,rows) x [0,cols)
 * become 0. Store: only positions inside are written.
 */
static inline void tile_window_(const char *file, int line, const char *fn, int store, tile_view_ t, tile_view_ m,
                                long long r0, long long c0, long long rows, long long cols)
{
    if (TILE_CHECKS_ON_) {
        if (rows < 0 || cols < 0)
            tile_fail_(file, line, fn, "negative matrix extent %lld x %lld", rows, cols);
        if (m.rank == 2 && cols > m.ld)
            tile_fail_(file, line, fn, "%lld columns given, but the matrix rows hold %td elements", cols, m.ld);
        if (m.rows >= 0 && rows > m.rows)
            tile_fail_(file, line, fn, "%lld rows given, but the matrix has %td", rows, m.rows);
        if (m.rank == 1 && m.cols >= 0 && cols > m.cols)
            tile_fail_(file, line, fn, "%lld elements given, but the vector has %td", cols, m.cols);
    }
    /* The part of the tile inside the matrix: [i0, i1) x [j0, j1). */
    ptrdiff_t i0 = tile_clamp_(-r0, 0, t.rows), i1 = tile_clamp_(rows - r0, i0, t.rows);
    ptrdiff_t j0 = tile_clamp_(-c0, 0, t.cols), j1 = tile_clamp_(cols - c0, j0, t.cols);
    if (!store && (i1 - i0 < t.rows || j1 - j0 < t.cols))
        tile_zero_(t.p, t.esize, t.ld, t.rows, t.cols);
    if (i1 == i0 || j1 == j0)
        return;
    char *tp = t.p + (size_t)(i0 * t.ld + j0) * t.esize;
    char *mp = m.p + (size_t)((r0 + i0) * m.ld + (c0 + j0)) * m.esize;
    if (store)
        tile_convert_(mp, m.kind, m.ld, 1, tp, t.kind, t.ld, 1, i1 - i0, j1 - j0);
    else
        tile_convert_(tp, t.kind, t.ld, 1, mp, m.kind, m.ld, 1, i1 - i0, j1 - j0);
}

/* The in-bounds forms: (r0, c0) for 2-D, i0 for 1-D (r0 = 0, c0 = i0). */
static inline void tile_window_inside_(const char *file, int line, const char *fn, int store, tile_view_ t,
                                       tile_view_ m, long long r0, long long c0)
{
    if (TILE_CHECKS_ON_ &&
        (r0 < 0 || c0 < 0 || (m.rows >= 0 && r0 + t.rows > m.rows) || (m.cols >= 0 && c0 + t.cols > m.cols))) {
        if (m.rank == 1)
            tile_fail_(file, line, fn,
                       "the %td-element tile at %lld is not inside the vector of %td "
                       "elements (the form without a length promises it is)",
                       t.cols, c0, m.cols);
        if (m.rows < 0)
            tile_fail_(file, line, fn,
                       "the %td x %td tile at (%lld, %lld) is not inside the matrix of "
                       "%td columns (the 4-argument form promises it is)",
                       t.rows, t.cols, r0, c0, m.cols);
        tile_fail_(file, line, fn,
                   "the %td x %td tile at (%lld, %lld) is not inside the %td x %td "
                   "matrix (the 4-argument form promises it is)",
                   t.rows, t.cols, r0, c0, m.rows, m.cols);
    }
    tile_window_(file, line, fn, store, t, m, r0, c0, r0 + t.rows, c0 + t.cols);
}

/* Entry points, one per form, so that const-ness is checked: a load writes
 * the tile and reads the matrix, a store the other way round. */
static inline void tile_load6_(const char *file, int line, void *t, int tk, int tr, size_t tn0, size_t trow,
                               const void *m, int mk, int mr, size_t mrow, size_t mptr, long long r0, long long c0,
                               long long rows, long long cols)
{
    tile_window_(file, line, "tile_load", 0, tile_tile_view_(t, tk, tr, tn0, trow),
                 tile_mat_view_(m, mk, mr, mrow, mptr, 0), r0, c0, rows, cols);
}

static inline void tile_store6_(const char *file, int line, void *m, int mk, int mr, size_t mrow, size_t mptr,
                                const void *t, int tk, int tr, size_t tn0, size_t trow, long long r0, long long c0,
                                long long rows, long long cols)
{
    tile_window_(file, line, "tile_store", 1, tile_tile_view_(t, tk, tr, tn0, trow),
                 tile_mat_view_(m, mk, mr, mrow, mptr, 0), r0, c0, rows, cols);
}

/* 4 arguments: 2-D (r0, c0) in bounds, or 1-D (i0, n) with edges.
 * 3 arguments (a, b = 0, inside = 1): 1-D i0 in bounds. */
static inline void tile_load4_(const char *file, int line, void *t, int tk, int tr, size_t tn0, size_t trow,
                               const void *m, int mk, int mr, size_t mrow, size_t mptr, size_t mextent, long long a,
                               long long b, int inside)
{
    tile_view_ tv = tile_tile_view_(t, tk, tr, tn0, trow);
    if (tr == 2)
        tile_window_inside_(file, line, "tile_load", 0, tv, tile_mat_view_(m, mk, mr, mrow, mptr, mextent), a, b);
    else if (inside)
        tile_window_inside_(file, line, "tile_load", 0, tv, tile_mat_view_(m, mk, mr, mrow, mptr, mextent), 0, a);
    else
        tile_window_(file, line, "tile_load", 0, tv, tile_mat_view_(m, mk, mr, mrow, mptr, 0), 0, a, 1, b);
}

static inline void tile_store4_(const char *file, int line, void *m, int mk, int mr, size_t mrow, size_t mptr,
                                size_t mextent, const void *t, int tk, int tr, size_t tn0, size_t trow, long long a,
                                long long b, int inside)
{
    tile_view_ tv = tile_tile_view_(t, tk, tr, tn0, trow);
    if (tr == 2)
        tile_window_inside_(file, line, "tile_store", 1, tv, tile_mat_view_(m, mk, mr, mrow, mptr, mextent), a, b);
    else if (inside)
        tile_window_inside_(file, line, "tile_store", 1, tv, tile_mat_view_(m, mk, mr, mrow, mptr, mextent), 0, a);
    else
        tile_window_(file, line, "tile_store", 1, tv, tile_mat_view_(m, mk, mr, mrow, mptr, 0), 0, a, 1, b);
}

#define tile_load(...) TILE_CAT_(TILE_LOAD_, TILE_NARGS_(__VA_ARGS__))(__VA_ARGS__)
#define TILE_LOAD_6(t, m, r0, c0, rows, cols)                                                                          \
    (TILE_STATIC_CHECK_(TILE_RANK_(t) == 2 && TILE_RANK_(m) == 2,                                                      \
                        "tile_load(dst, src, r0, c0, rows, cols): dst and src must be 2-D"),                           \
     tile_load6_(__FILE__, __LINE__, TILE_TILE_(t), TILE_MAT_(m), (r0), (c0), (rows), (cols)))
#define TILE_LOAD_4(t, m, a, b)                                                                                        \
    (TILE_STATIC_CHECK_(TILE_RANK_(t) == TILE_RANK_(m),                                                                \
                        "tile_load(dst, src, r0, c0) / (dst, src, i0, n): dst and src must both be 2-D or both 1-D"),  \
     tile_load4_(__FILE__, __LINE__, TILE_TILE_(t), TILE_MAT_(m), TILE_EXTENT_IF2_(t, m), (a), (b), 0))
#define TILE_LOAD_3(t, m, i0)                                                                                          \
    (TILE_STATIC_CHECK_(TILE_RANK_(t) == 1 && TILE_RANK_(m) == 1, "tile_load(dst, src, i0): dst and src must be 1-D"), \
     tile_load4_(__FILE__, __LINE__, TILE_TILE_(t), TILE_MAT_(m), TILE_EXTENT_(m), (i0), 0, 1))

#define tile_store(...) TILE_CAT_(TILE_STORE_, TILE_NARGS_(__VA_ARGS__))(__VA_ARGS__)
#define TILE_STORE_6(m, t, r0, c0, rows, cols)                                                                         \
    (TILE_STATIC_CHECK_(TILE_RANK_(t) == 2 && TILE_RANK_(m) == 2,                                                      \
                        "tile_store(dst, src, r0, c0, rows, cols): dst and src must be 2-D"),                          \
     tile_store6_(__FILE__, __LINE__, TILE_MAT_(m), TILE_TILE_(t), (r0), (c0), (rows), (cols)))
#define TILE_STORE_4(m, t, a, b)                                                                                       \
    (TILE_STATIC_CHECK_(TILE_RANK_(t) == TILE_RANK_(m),                                                                \
                        "tile_store(dst, src, r0, c0) / (dst, src, i0, n): dst and src must both be 2-D or both 1-D"), \
     tile_store4_(__FILE__, __LINE__, TILE_MAT_(m), TILE_EXTENT_IF2_(t, m), TILE_TILE_(t), (a), (b), 0))
#define TILE_STORE_3(m, t, i0)                                                                                         \
    (TILE_STATIC_CHECK_(TILE_RANK_(t) == 1 && TILE_RANK_(m) == 1,                                                      \
                        "tile_store(dst, src, i0): dst and src must be 1-D"),                                          \
     tile_store4_(__FILE__, __LINE__, TILE_MAT_(m), TILE_EXTENT_(m), TILE_TILE_(t), (i0), 0, 1))

/* Wrong argument counts. */
#define TILE_ARITY_ERROR_(msg) TILE_STATIC_CHECK_(0, msg)
#define TILE_LOAD_1(...) TILE_ARITY_ERROR_("tile_load takes 3, 4 or 6 arguments")
#define TILE_LOAD_2 TILE_LOAD_1
#define TILE_LOAD_5 TILE_LOAD_1
#define TILE_LOAD_7 TILE_LOAD_1
#define TILE_LOAD_8 TILE_LOAD_1
#define TILE_LOAD_9 TILE_LOAD_1
#define TILE_STORE_1(...) TILE_ARITY_ERROR_("tile_store takes 3, 4 or 6 arguments")
#define TILE_STORE_2 TILE_STORE_1
#define TILE_STORE_5 TILE_STORE_1
#define TILE_STORE_7 TILE_STORE_1
#define TILE_STORE_8 TILE_STORE_1
#define TILE_STORE_9 TILE_STORE_1

/* ---- tile_copy / tile_clear / tile_fill -------------------------------- */
static inline void tile_copy_(const char *file, int line, void *d, int dk, int dr, size_t dn0, size_t drow,
                              const void *s, int sk, int sr, size_t sn0, size_t srow)
{
    tile_view_ dv = tile_tile_view_(d, dk, dr, dn0, drow);
    tile_view_ sv = tile_tile_view_(s, sk, sr, sn0, srow);
    if (TILE_CHECKS_ON_ && (dv.rows != sv.rows || dv.cols != sv.cols))
        tile_fail_(file, line, "tile_copy", "shapes differ: dst %td x %td, src %td x %td", dv.rows, dv.cols, sv.rows,
                   sv.cols);
    tile_convert_(dv.p, dk, dv.ld, 1, sv.p, sk, sv.ld, 1, dv.rows, dv.cols);
}

static inline void tile_clear_(void *t, int kind, int rank, size_t n0, size_t row_bytes)
{
    (void)kind;
    (void)rank;
    memset(t, 0, n0 * row_bytes);
}

/* value points to one element of t's type (converted at the call site). */
static inline void tile_fill_(void *t, int kind, int rank, size_t n0, size_t row_bytes, const void *value)
{
    size_t esize = tile_kind_size_(kind), n = n0 * row_bytes / esize;
    (void)rank;
    for (size_t i = 0; i < n; i++)
        memcpy((char *)t + i * esize, value, esize);
}

#define tile_copy(dst, src)                                                                                            \
    (TILE_STATIC_CHECK_(TILE_RANK_(dst) == TILE_RANK_(src),                                                            \
                        "tile_copy(dst, src): dst and src must have the same rank"),                                   \
     tile_copy_(__FILE__, __LINE__, TILE_TILE_(dst), TILE_TILE_(src)))
#define tile_clear(t) tile_clear_(TILE_TILE_(t))
/* (T){(T)v}: v converted to the element type T of t, as by a cast. */
#define TILE_ASSOC_VALUE_(v, N, T, R, W, C)                                                                            \
    , T : &(T){C(v)}, T * : &(T){C(v)}, const T * : &(T) { C(v) }
#define tile_fill(t, v) tile_fill_(TILE_TILE_(t), _Generic((t)[0] TILE_TYPES_(TILE_ASSOC_VALUE_, v)))

/* ---- tile_gemm ------------------------------------------------------------
 * C[i][j] += sum over k of A[i][k] * B[k][j]; ta / tb: A / B given
 * transposed. The accumulator type is long long when A, B and C are all of
 * integer types, else double when any of them is double, else float. For
 * each (i, j): acc = C[i][j]; for k = 0, 1, ..., K-1 in order:
 * p = (acc type)A[i][k] * (acc type)B[k][j], rounded; acc = acc + p,
 * rounded (no fused multiply-add); then C[i][j] = acc, converted once.
 */
#if defined(__clang__)
#define TILE_NO_CONTRACT_
#elif defined(__GNUC__)
#define TILE_NO_CONTRACT_ __attribute__((optimize("fp-contract=off")))
#else
#define TILE_NO_CONTRACT_
#endif

/* abuf: A as M x K, bbuf: B as K x N, cbuf: C as M x N, all of type T.
 * The loop nest runs i, k, j (so that j vectorizes), which keeps, for each
 * (i, j), the additions in k order. */
#define TILE_GEMM_LOOP_(T)                                                                                             \
    {                                                                                                                  \
        const T *restrict pa = (const T *)abuf, *restrict pb = (const T *)bbuf;                                        \
        T *restrict pc = (T *)cbuf;                                                                                    \
        for (ptrdiff_t i = 0; i < m; i++)                                                                              \
            for (ptrdiff_t k = 0; k < kk; k++) {                                                                       \
                T aik = pa[i * kk + k];                                                                                \
                for (ptrdiff_t j = 0; j < n; j++) {                                                                    \
                    T p = aik * pb[k * n + j];                                                                         \
                    pc[i * n + j] = pc[i * n + j] + p;                                                                 \
                }                                                                                                      \
            }                                                                                                          \
    }

static inline TILE_NO_CONTRACT_ void tile_gemm_(const char *file, int line, const char *fn, int ta, int tb,
                                                const void *a, int ak, int ar, size_t an0, size_t arow, const void *b,
                                                int bk, int br, size_t bn0, size_t brow, void *c, int ck, int cr,
                                                size_t cn0, size_t crow)
{
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
    tile_view_ av = tile_tile_view_(a, ak, ar, an0, arow);
    tile_view_ bv = tile_tile_view_(b, bk, br, bn0, brow);
    tile_view_ cv = tile_tile_view_(c, ck, cr, cn0, crow);
    ptrdiff_t m = cv.rows, n = cv.cols;
    ptrdiff_t kk = ta ? av.rows : av.cols;
    ptrdiff_t am = ta ? av.cols : av.rows;
    ptrdiff_t bk_ = tb ? bv.cols : bv.rows, bn = tb ? bv.rows : bv.cols;
    if (TILE_CHECKS_ON_ && (am != m || bn != n || bk_ != kk))
        tile_fail_(file, line, fn, "shapes do not match: A %td x %td%s, B %td x %td%s, C %td x %td", av.rows, av.cols,
                   ta ? " (K x M)" : " (M x K)", bv.rows, bv.cols, tb ? " (N x K)" : " (K x N)", m, n);
    int acck = tile_kind_is_int_(ak) && tile_kind_is_int_(bk) && tile_kind_is_int_(ck) ? TILE_K_LLONG_
               : ak == TILE_K_DOUBLE_ || bk == TILE_K_DOUBLE_ || ck == TILE_K_DOUBLE_  ? TILE_K_DOUBLE_
                                                                                       : TILE_K_FLOAT_;
    size_t es = tile_kind_size_(acck);
    char *abuf = (char *)malloc(es * (size_t)(m * kk + n * kk + m * n) + 1);
    if (!abuf)
        tile_fail_(file, line, fn, "out of memory");
    char *bbuf = abuf + es * (size_t)(m * kk), *cbuf = bbuf + es * (size_t)(n * kk);
    tile_convert_(abuf, acck, kk, 1, av.p, ak, ta ? 1 : av.ld, ta ? av.ld : 1, m, kk);
    tile_convert_(bbuf, acck, n, 1, bv.p, bk, tb ? 1 : bv.ld, tb ? bv.ld : 1, kk, n);
    tile_convert_(cbuf, acck, n, 1, cv.p, ck, cv.ld, 1, m, n);
    if (acck == TILE_K_FLOAT_)
        TILE_GEMM_LOOP_(float)
    else if (acck == TILE_K_DOUBLE_)
        TILE_GEMM_LOOP_(double)
    else
        TILE_GEMM_LOOP_(long long)
    tile_convert_(cv.p, ck, cv.ld, 1, cbuf, acck, n, 1, m, n);
    free(abuf);
}
#undef TILE_GEMM_LOOP_

#define TILE_GEMM_CALL_(fn, ta, tb, A, B, C)                                                                           \
    (TILE_STATIC_CHECK_(TILE_RANK_(A) == 2 && TILE_RANK_(B) == 2 && TILE_RANK_(C) == 2,                                \
                        fn "(A, B, C): A, B and C must be 2-D tiles"),                                                 \
     tile_gemm_(__FILE__, __LINE__, fn, ta, tb, TILE_TILE_(A), TILE_TILE_(B), TILE_TILE_(C)))
#define tile_gemm(A, B, C) TILE_GEMM_CALL_("tile_gemm", 0, 0, A, B, C)
#define tile_gemm_nt(A, B, C) TILE_GEMM_CALL_("tile_gemm_nt", 0, 1, A, B, C)
#define tile_gemm_tn(A, B, C) TILE_GEMM_CALL_("tile_gemm_tn", 1, 0, A, B, C)
#define tile_gemm_tt(A, B, C) TILE_GEMM_CALL_("tile_gemm_tt", 1, 1, A, B, C)

/* ---- tile_reduce_* ---------------------------------------------------------
 * dim 1: dst[i] = op over j of src[i][j] (one value per row); dim 0:
 * dst[j] = op over i of src[i][j] (one value per column). The accumulator
 * starts at the identity (clear != 0) or at dst's value (clear == 0) and
 * takes the elements in index order: acc = op(acc, x). Its type is long long
 * when src and dst are of integer types, else double when either is double,
 * else float; dst is written once, converted. max/min follow fmaxf/fminf
 * (a NaN element is ignored).
 */
enum { TILE_OP_MAX_, TILE_OP_MIN_, TILE_OP_SUM_, TILE_OP_ABSMAX_, TILE_OP_ABSSUM_ };

#define TILE_REDUCE_LOOP_(T, FMAX, FMIN, FABS, LOWEST, HIGHEST)                                                        \
    {                                                                                                                  \
        const T *s = (const T *)sbuf;                                                                                  \
        T *acc = (T *)dbuf;                                                                                            \
        if (clear)                                                                                                     \
            for (ptrdiff_t i = 0; i < n; i++)                                                                          \
                acc[i] = op == TILE_OP_MAX_ ? LOWEST : op == TILE_OP_MIN_ ? HIGHEST : (T)0;                            \
        for (ptrdiff_t i = 0; i < rows; i++)                                                                           \
            for (ptrdiff_t j = 0; j < cols; j++) {                                                                     \
                T x = s[i * cols + j], *y = &acc[dim == 1 ? i : j];                                                    \
                switch (op) {                                                                                          \
                case TILE_OP_MAX_:                                                                                     \
                    *y = FMAX(*y, x);                                                                                  \
                    break;                                                                                             \
                case TILE_OP_MIN_:                                                                                     \
                    *y = FMIN(*y, x);                                                                                  \
                    break;                                                                                             \
                case TILE_OP_SUM_:                                                                                     \
                    *y = *y + x;                                                                                       \
                    break;                                                                                             \
                case TILE_OP_ABSMAX_:                                                                                  \
                    *y = FMAX(*y, FABS(x));                                                                            \
                    break;                                                                                             \
                default:                                                                                               \
                    *y = *y + FABS(x);                                                                                 \
                    break;                                                                                             \
                }                                                                                                      \
            }                                                                                                          \
    }
static inline long long tile_llmax_(long long a, long long b) { return a > b ? a : b; }
static inline long long tile_llmin_(long long a, long long b) { return a < b ? a : b; }
static inline long long tile_llabs_(long long a) { return a < 0 ? -a : a; }

static inline void tile_reduce_(const char *file, int line, const char *fn, int op, const void *src, int sk, int sr,
                                size_t sn0, size_t srow, void *dst, int dk, int dr, size_t dn0, size_t drow,
                                long long dim, long long clear)
{
    tile_view_ sv = tile_tile_view_(src, sk, sr, sn0, srow);
    tile_view_ dv = tile_tile_view_(dst, dk, dr, dn0, drow);
    ptrdiff_t rows = sv.rows, cols = sv.cols, n = dv.cols;
    if (TILE_CHECKS_ON_ && dim != 0 && dim != 1)
        tile_fail_(file, line, fn, "dim is %lld; it must be 0 or 1", dim);
    if (TILE_CHECKS_ON_ && n != (dim == 1 ? rows : cols))
        tile_fail_(file, line, fn, "a %td x %td tile reduced along dim %lld gives %td values, but dst has %td", rows,
                   cols, dim, dim == 1 ? rows : cols, n);
    int acck = tile_kind_is_int_(sk) && tile_kind_is_int_(dk) ? TILE_K_LLONG_
               : sk == TILE_K_DOUBLE_ || dk == TILE_K_DOUBLE_ ? TILE_K_DOUBLE_
                                                              : TILE_K_FLOAT_;
    size_t es = tile_kind_size_(acck);
    char *sbuf = (char *)malloc(es * (size_t)(rows * cols + n) + 1);
    if (!sbuf)
        tile_fail_(file, line, fn, "out of memory");
    char *dbuf = sbuf + es * (size_t)(rows * cols);
    tile_convert_(sbuf, acck, cols, 1, sv.p, sk, sv.ld, 1, rows, cols);
    if (!clear)
        tile_convert_(dbuf, acck, n, 1, dv.p, dk, n, 1, 1, n);
    if (acck == TILE_K_FLOAT_)
        TILE_REDUCE_LOOP_(float, fmaxf, fminf, fabsf, -INFINITY, INFINITY)
    else if (acck == TILE_K_DOUBLE_)
        TILE_REDUCE_LOOP_(double, fmax, fmin, fabs, -(double)INFINITY, (double)INFINITY)
    else
        TILE_REDUCE_LOOP_(long long, tile_llmax_, tile_llmin_, tile_llabs_, LLONG_MIN, LLONG_MAX)
    tile_convert_(dv.p, dk, n, 1, dbuf, acck, n, 1, 1, n);
    free(sbuf);
}
#undef TILE_REDUCE_LOOP_

#define TILE_REDUCE_CALL_(fn, op, src, dst, dim, clear)                                                                \
    (TILE_STATIC_CHECK_(TILE_RANK_(src) == 2 && TILE_RANK_(dst) == 1,                                                  \
                        fn "(src, dst, dim, clear): src must be a 2-D tile and dst a 1-D tile"),                       \
     tile_reduce_(__FILE__, __LINE__, fn, op, TILE_TILE_(src), TILE_TILE_(dst), (dim), (clear)))
#define tile_reduce_max(src, dst, dim, clear) TILE_REDUCE_CALL_("tile_reduce_max", TILE_OP_MAX_, src, dst, dim, clear)
#define tile_reduce_min(src, dst, dim, clear) TILE_REDUCE_CALL_("tile_reduce_min", TILE_OP_MIN_, src, dst, dim, clear)
#define tile_reduce_sum(src, dst, dim, clear) TILE_REDUCE_CALL_("tile_reduce_sum", TILE_OP_SUM_, src, dst, dim, clear)
#define tile_reduce_absmax(src, dst, dim, clear)                                                                       \
    TILE_REDUCE_CALL_("tile_reduce_absmax", TILE_OP_ABSMAX_, src, dst, dim, clear)
#define tile_reduce_abssum(src, dst, dim, clear)                                                                       \
    TILE_REDUCE_CALL_("tile_reduce_abssum", TILE_OP_ABSSUM_, src, dst, dim, clear)

/* ---- tile_print -----------------------------------------------------------
 * A scalar:  `name = value`. A tile: `name = [R x C] type` (1-D: `[N]`),
 * then one line per row, elements separated by spaces. Floating values use
 * %g (half and bfloat16 through float), integers %lld / %llu, _Bool 0 / 1.
 * name is the argument as written in the source.
 */
static inline void tile_print_value_(const void *p, int kind)
{
    switch (kind) {
#define TILE_PRINT_CASE_(a, N, T, R, W, C)                                                                             \
    case TILE_K_##N##_: {                                                                                              \
        T v;                                                                                                           \
        memcpy(&v, p, sizeof v);                                                                                       \
        if (!tile_kind_is_int_(kind))                                                                                  \
            printf("%g", (double)(R)v);                                                                                \
        else if (tile_kind_is_signed_(kind))                                                                           \
            printf("%lld", (long long)v);                                                                              \
        else                                                                                                           \
            printf("%llu", (unsigned long long)v);                                                                     \
        break;                                                                                                         \
    }
        TILE_TYPES_(TILE_PRINT_CASE_, ~)
#undef TILE_PRINT_CASE_
    default:
        break;
    }
}

static inline void tile_print_tile_(const char *name, const void *p, size_t bytes, size_t n0, size_t row_bytes,
                                    int kind, int rank)
{
    tile_view_ v = tile_tile_view_(p, kind, rank, n0, row_bytes);
    (void)bytes;
    if (rank == 2)
        printf("%s = [%td x %td] %s\n", name, v.rows, v.cols, tile_kind_name_(kind));
    else
        printf("%s = [%td] %s\n", name, v.cols, tile_kind_name_(kind));
    for (ptrdiff_t i = 0; i < v.rows; i++) {
        for (ptrdiff_t j = 0; j < v.cols; j++) {
            fputs(j ? " " : "  ", stdout);
            tile_print_value_(v.p + (size_t)(i * v.ld + j) * v.esize, kind);
        }
        fputc('\n', stdout);
    }
}

#define TILE_PRINT_SCALAR_(a, N, T, R, W, C)                                                                           \
    static inline void tile_print_##N##_(const char *name, T v, size_t bytes, size_t n0, size_t row_bytes, int kind,   \
                                         int rank)                                                                     \
    {                                                                                                                  \
        (void)bytes, (void)n0, (void)row_bytes, (void)kind, (void)rank;                                                \
        printf("%s = ", name);                                                                                         \
        tile_print_value_(&v, TILE_K_##N##_);                                                                          \
        fputc('\n', stdout);                                                                                           \
    }
TILE_TYPES_(TILE_PRINT_SCALAR_, ~)
#undef TILE_PRINT_SCALAR_

/* x as something to subscript twice: a scalar becomes a (null, unevaluated)
 * T (*)[1], so that the shape expressions below compile for any x. */
#define TILE_ASSOC_AS2D_(a, N, T, R, W, C) , T : (T(*)[1])0
#define TILE_AS2D_(x) _Generic((x)TILE_TYPES_(TILE_ASSOC_AS2D_, ~), default : (x))
#define TILE_ASSOC_PRINTFN_(a, N, T, R, W, C) , T : tile_print_##N##_
#define tile_print(x)                                                                                                  \
    _Generic((x)TILE_TYPES_(TILE_ASSOC_PRINTFN_, ~), default                                                           \
             : tile_print_tile_)(#x, (x), sizeof(x), sizeof(x) / sizeof(TILE_AS2D_(x)[0]), sizeof(TILE_AS2D_(x)[0]),   \
                                 TILE_KIND_(TILE_AS2D_(x)), TILE_RANK_(TILE_AS2D_(x)))

#endif /* !__CUDACC__ && !__TILEPP__ */

/* The translator sees the tile operations as plain function calls. */
#if defined(__TILEPP__)
#include "tile_ops.h"
#endif

#endif /* C or generated code */

#endif /* TILEPP_TILE_H */

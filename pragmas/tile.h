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

#if defined(__CUDACC__)
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

#endif /* __CUDACC__ */

#if defined(__CUDACC__)
#define TILE_FN static inline __host__ __device__
#else
#define TILE_FN static inline
#endif

/* Ceiling division of non-negative a by positive b. */
TILE_FN long long tile_cdiv(long long a, long long b) { return (a + b - 1) / b; }
/* Type-generic, like fminf/fmaxf for any arithmetic type; each argument is
 * evaluated twice, so pass expressions without side effects. */
#define tile_min(a, b) ((a) < (b) ? (a) : (b))
#define tile_max(a, b) ((a) > (b) ? (a) : (b))

#endif /* TILEPP_TILE_H */

/* tile_ops.h — the tile operations as the tilepp translator sees them.
 *
 * tile.h implements tile_load, tile_gemm, ... for the CPU as type-generic
 * macros. The translator needs them as calls it can recognise, so when it
 * parses a file (__TILEPP__ is defined), tile.h declares them here as
 * functions instead; the arguments keep their types for its checks. */
#ifndef TILEPP_TILE_OPS_H
#define TILEPP_TILE_OPS_H

void tile_clear(void *tile);
void tile_fill(void *tile, double value);
void tile_load(void *dst, const void *src, long long r0, ...);
void tile_store(void *dst, const void *src, long long r0, ...);
void tile_copy(void *dst, const void *src);
void tile_gemm(const void *a, const void *b, void *c);
void tile_gemm_nt(const void *a, const void *b, void *c);
void tile_gemm_tn(const void *a, const void *b, void *c);
void tile_gemm_tt(const void *a, const void *b, void *c);
void tile_reduce_max(const void *src, void *dst, int dim, int clear);
void tile_reduce_min(const void *src, void *dst, int dim, int clear);
void tile_reduce_sum(const void *src, void *dst, int dim, int clear);
void tile_reduce_absmax(const void *src, void *dst, int dim, int clear);
void tile_reduce_abssum(const void *src, void *dst, int dim, int clear);
/* tile_print(x) takes a scalar of any type or a tile: the macro passes x
 * through the variadic part (the 0 only fills the fixed parameter). */
void tile_print(const void *tile_unused_, ...);
#define tile_print(x) tile_print(0, x)

#endif

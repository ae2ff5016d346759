/* tile_debug.cuh — the bounds checks of a debug translation (tilepp -g).
 *
 * Generated code includes this file only when translated with -g; without
 * it nothing here is compiled and the kernels are unchanged.
 *
 * Each tile_load and tile_store of a grid tests, before it runs, either
 *   the window (TILE_DEBUG_WINDOW: the forms without extents promise that the
 *   tile lies inside the matrix): 0 <= r0, r0 + rows of the tile <= the
 *   matrix's rows, the same for columns; or
 *   the extents given (TILE_DEBUG_BOUNDS: the 6-argument form, the 1-D form
 *   with n): 0 <= rows <= the matrix's rows, 0 <= cols <= its columns,
 * the matrix's extents being those of its declaration (`const half A[M][K]`;
 * an extent not declared is LLONG_MAX, never exceeded). The test is the same
 * on every thread of the block; when it fails, the block skips the access
 * (nothing outside the matrix is read or written) and the first failure of
 * the kernel, of all its blocks and checks, is kept in tile_debug_rec: the
 * check's number (its site), the values it compared and the block's grid
 * coordinates.
 *
 * The launcher, after its kernels, calls tile_debug_collect: it waits for
 * the stream (as under TILEPP_DEBUG=1, so a fault comes back from its call),
 * reads the record, and when one of its own checks failed, clears it,
 * prints a line on stderr (here cut in two)
 *   x.c:14:9: tile_load of 'As' from 'A': rows 120..247 of 200 (block by=1,
 *   bx=0): the 4-argument form promises the window is inside the matrix
 * and returns cudaErrorAssert through the profiler scope's failure report.
 * The CUDA context stays usable: no kernel trapped. */
#ifndef TILEPP_TILE_DEBUG_CUH
#define TILEPP_TILE_DEBUG_CUH

#include <cuda_runtime.h>
#include <limits.h>
#include <stdio.h>

enum { TILE_DEBUG_WINDOW = 0, TILE_DEBUG_BOUNDS = 1 };

/* The first failed check of a kernel; hit == 0: none since the last read. */
struct tile_debug_record {
    unsigned int hit;
    int site;
    long long v[6]; /* WINDOW: r0, c0, tile rows, tile cols; BOUNDS: rows, cols, 0, 0; then the matrix's rows, cols */
    long long block[3]; /* the grid's loop variables */
};

/* One per translation unit (a generated .cu): its launchers read the one
 * their kernels write. */
static __device__ tile_debug_record tile_debug_rec;

/* The first failure wins; the others leave the record alone. */
static __device__ __noinline__ void tile_debug_note(int site, long long a, long long b, long long c, long long d,
                                                    long long rows, long long cols, long long b0, long long b1,
                                                    long long b2)
{
    if (*(volatile unsigned int *)&tile_debug_rec.hit || atomicCAS(&tile_debug_rec.hit, 0u, 1u) != 0u)
        return;
    tile_debug_rec.site = site;
    tile_debug_rec.v[0] = a;
    tile_debug_rec.v[1] = b;
    tile_debug_rec.v[2] = c;
    tile_debug_rec.v[3] = d;
    tile_debug_rec.v[4] = rows;
    tile_debug_rec.v[5] = cols;
    tile_debug_rec.block[0] = b0;
    tile_debug_rec.block[1] = b1;
    tile_debug_rec.block[2] = b2;
}

/* The window h x w at (r0, c0) inside the rows x cols matrix? */
static __device__ __forceinline__ bool tile_debug_window(int site, long long r0, long long c0, long long h, long long w,
                                                         long long rows, long long cols, long long b0, long long b1,
                                                         long long b2)
{
    const bool ok = r0 >= 0 && c0 >= 0 && r0 <= rows - h && c0 <= cols - w;
    if (!ok)
        tile_debug_note(site, r0, c0, h, w, rows, cols, b0, b1, b2);
    return ok;
}

/* The extents given within the matrix's? */
static __device__ __forceinline__ bool tile_debug_bounds(int site, long long given_rows, long long given_cols,
                                                         long long rows, long long cols, long long b0, long long b1,
                                                         long long b2)
{
    const bool ok = given_rows >= 0 && given_cols >= 0 && given_rows <= rows && given_cols <= cols;
    if (!ok)
        tile_debug_note(site, given_rows, given_cols, 0, 0, rows, cols, b0, b1, b2);
    return ok;
}

/* What the launcher knows of each of its checks (emitted by tilepp -g). */
struct tile_debug_site {
    int site;
    const char *where;   /* "x.c:14:9" */
    const char *what;    /* "tile_load of 'As' from 'A'" */
    int kind;            /* TILE_DEBUG_WINDOW or TILE_DEBUG_BOUNDS */
    int rank;            /* of the tile: 1, a vector */
    const char *vars[3]; /* the grid's loop variables, nullptr past its depth */
};

/* "rows 120..247 of 200", "columns -8..23 of 64", "elements 96..127" (the
 * length not declared). */
static inline void tile_debug_span(FILE *f, const char *what, long long first, long long count, long long limit)
{
    fprintf(f, "%s %lld..%lld", what, first, first + count - 1);
    if (limit != LLONG_MAX)
        fprintf(f, " of %lld", limit);
}

static inline void tile_debug_extent(FILE *f, long long n)
{
    if (n == LLONG_MAX)
        fputs("?", f);
    else
        fprintf(f, "%lld", n);
}

static inline void tile_debug_report(FILE *f, const tile_debug_site *s, const tile_debug_record &r)
{
    fprintf(f, "%s: %s: ", s->where, s->what);
    const long long *v = r.v;
    if (s->kind == TILE_DEBUG_WINDOW && s->rank == 1)
        tile_debug_span(f, "elements", v[1], v[3], v[5]);
    else if (s->kind == TILE_DEBUG_WINDOW && (v[0] < 0 || v[0] > v[4] - v[2]))
        tile_debug_span(f, "rows", v[0], v[2], v[4]);
    else if (s->kind == TILE_DEBUG_WINDOW)
        tile_debug_span(f, "columns", v[1], v[3], v[5]);
    else if (s->rank == 1) {
        fprintf(f, "extent %lld of ", v[1]);
        tile_debug_extent(f, v[5]);
    } else {
        fprintf(f, "extents %lld x %lld, the matrix is ", v[0], v[1]);
        tile_debug_extent(f, v[4]);
        fprintf(f, " x %lld", v[5]);
    }
    fputs(" (block", f);
    for (int d = 0; d < 3 && s->vars[d]; d++)
        fprintf(f, "%s %s=%lld", d ? "," : "", s->vars[d], r.block[d]);
    if (s->kind == TILE_DEBUG_WINDOW)
        fprintf(f, "): the %s form promises the window is inside the %s\n", s->rank == 1 ? "3-argument" : "4-argument",
                s->rank == 1 ? "vector" : "matrix");
    else
        fprintf(f, "): the %s given to the %s form must lie between 0 and the %s's\n",
                s->rank == 1 ? "extent" : "extents", s->rank == 1 ? "4-argument" : "6-argument",
                s->rank == 1 ? "vector" : "matrix");
}

/* The launcher's last step under -g (before tile_profile_scope::done):
 * waits for the stream, then reports a failed check of this launcher's
 * (`sites`). Returns cudaSuccess, the fault the wait returned, or
 * cudaErrorAssert. Nothing while the stream is captured into a graph. */
static inline cudaError_t tile_debug_collect(tile_profile_scope &prof, const tile_device *dev, cudaStream_t stream,
                                             const tile_debug_site *sites, int nsites)
{
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
        (void)cudaGetLastError();
        return cudaSuccess;
    }
    if (capture != cudaStreamCaptureStatusNone)
        return cudaSuccess;
    cudaError_t err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess)
        return prof.failed(dev, err, "failed while running");
    if (nsites == 0)
        return cudaSuccess;
    tile_debug_record r;
    err = cudaMemcpyFromSymbol(&r, tile_debug_rec, sizeof r);
    if (err != cudaSuccess)
        return prof.failed(dev, err, "reading the record of the bounds checks failed");
    if (!r.hit)
        return cudaSuccess;
    const tile_debug_site *s = nullptr;
    for (int i = 0; i < nsites && !s; i++)
        if (sites[i].site == r.site)
            s = &sites[i];
    if (!s) /* another launcher's kernel, on another stream: that launcher reports it */
        return cudaSuccess;
    const tile_debug_record cleared = {};
    (void)cudaMemcpyToSymbol(tile_debug_rec, &cleared, sizeof cleared);
    tile_debug_report(stderr, s, r);
    return prof.failed(dev, cudaErrorAssert, "a bounds check failed (translated with -g)");
}

#endif /* TILEPP_TILE_DEBUG_CUH */

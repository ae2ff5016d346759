/* tile_ops_test.c — the kernels of tile_ops_kernels.c (1-D tiles, converting
 * loads, shared tiles filled, copied and stored, 1-D loads in a pipelined
 * loop, windows that start before the matrix, a GEMM accumulating onto a
 * loaded C) against their CPU reference, the
 * same functions compiled from tile_ops_kernels.c by the C compiler, on
 * random inputs in [-1, 1] with lengths and shapes that are not multiples of
 * the tiles (and a few that are). Outputs start poisoned and are checked
 * element by element with guards on both sides (gpu_check.h).
 *
 * gemm_band: a product whose k range grows with the block row (on sm_90a,
 * tiles handed out by a counter).
 * 2-D float shared tiles: a transpose, pipelined loads reduced by columns,
 * copies to and from fragments and from a half tile (transpose_f32,
 * float_shared).
 *
 * Tolerances: the element moves round exactly as the C code does (each
 * conversion is one correctly rounded step on both sides), so they must
 * agree to the last bit: 1e-6 relative leaves room for nothing but a wrong
 * element. gemm_acc adds fp32 sums in another order: 2^-12, as gemm_test.c.
 *
 * With TILEPP_PATH=sm90 (device_run.sh runs it so on Hopper) gemm_acc must
 * run its sm_90a variant where the rows are 16-byte aligned, and return
 * cudaErrorNotSupported elsewhere; the other kernels have no sm_90a variant
 * and run their sm_80 kernel whatever the path.
 *
 * Prints one line per case and "N passed, N failed"; exits 0 when all
 * passed, 1 otherwise, 77 (SKIPPED) without a CUDA device. */
#include "gpu_check.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tile_ops_kernels.tile.h"

/* The CPU references, compiled from tile_ops_kernels.c by the C compiler. */
void vec_moves(int n, const half *x, const float *s, float *y, bfloat16 *z, half *w, float *u, half *v);
void vec_stream(int n, const float *x, half *y);
void mat_moves(int M, int N, const float X[M][N], half Y[M][N], bfloat16 Z[M][N], float W[M][N], half V[M][N]);
void shifted_windows(int M, int N, const half X[M][N], half Y[M][N], float Z[M][N]);
void gemm_acc(int M, int N, int K, const half A[M][K], const half B[K][N], const float Cin[M][N], float D[M][N]);
void gemm_shifted(int M, int N, int K, int shift, const half A[M][K], const half B[K][N], float D[M][N]);
void gemm_store_shifted(int M, int N, int K, int sr, int sc, const half A[M][K], const half B[K][N], half D[M][N]);
void transpose_f32(int M, int N, const float X[M][N], float Y[N][M]);
void gemm_band(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N]);
void float_shared(int M, int N, const float X[M][N], const half H[M][N], float cmax[N], float Y[M][N], float W[M][N]);

#define TOL_EXACT 1e-6
#define TOL_GEMM 0x1p-12

static bool forced_sm90(void)
{
    const char *path = getenv("TILEPP_PATH");
    return path && strcmp(path, "sm90") == 0;
}

static void test_vec_moves(int n)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F16, n, 0), *s = gc_in(&c, GC_F32, n, 0);
    gc_buf *y = gc_out(&c, GC_F32, n, 0, TOL_EXACT), *z = gc_out(&c, GC_BF16, n, 0, TOL_EXACT);
    gc_buf *w = gc_out(&c, GC_F16, n, 0, TOL_EXACT), *u = gc_out(&c, GC_F32, n, 0, TOL_EXACT);
    gc_buf *v = gc_out(&c, GC_F16, n, 0, TOL_EXACT);
    vec_moves(n, x->host, s->host, y->host, z->host, w->host, u->host, v->host);
    gc_finish(&c, vec_moves_gpu(n, x->dev, s->dev, y->dev, z->dev, w->dev, u->dev, v->dev), "vec_moves n=%d", n);
}

static void test_vec_stream(int n)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *x = gc_in(&c, GC_F32, n, 0), *y = gc_out(&c, GC_F16, n, 0, TOL_EXACT);
    vec_stream(n, x->host, y->host);
    gc_finish(&c, vec_stream_gpu(n, x->dev, y->dev), "vec_stream n=%d", n);
}

static void test_mat_moves(int M, int N)
{
    gc_case c;
    gc_begin(&c);
    size_t mn = (size_t)M * N;
    gc_buf *X = gc_in(&c, GC_F32, mn, 0);
    gc_buf *Y = gc_out(&c, GC_F16, mn, 0, TOL_EXACT), *Z = gc_out(&c, GC_BF16, mn, 0, TOL_EXACT);
    gc_buf *W = gc_out(&c, GC_F32, mn, 0, TOL_EXACT), *V = gc_out(&c, GC_F16, mn, 0, TOL_EXACT);
    mat_moves(M, N, X->host, Y->host, Z->host, W->host, V->host);
    gc_finish(&c, mat_moves_gpu(M, N, X->dev, Y->dev, Z->dev, W->dev, V->dev), "mat_moves %dx%d", M, N);
}

static void test_shifted_windows(int M, int N)
{
    gc_case c;
    gc_begin(&c);
    size_t mn = (size_t)M * N;
    gc_buf *X = gc_in(&c, GC_F16, mn, 0);
    gc_buf *Y = gc_out(&c, GC_F16, mn, 0, TOL_EXACT), *Z = gc_out(&c, GC_F32, mn, 0, TOL_EXACT);
    shifted_windows(M, N, X->host, Y->host, Z->host);
    gc_finish(&c, shifted_windows_gpu(M, N, X->dev, Y->dev, Z->dev), "shifted_windows %dx%d", M, N);
}

/* TMA needs 16-byte aligned rows: K and N multiples of 8 halves, N of 4
 * floats. */
static bool tma_rows(int N, int K) { return K % 8 == 0 && N % 8 == 0; }

/* Whether the forced sm_90a path must refuse these rows; the case's name
 * says so. */
static bool refused_here(int N, int K) { return forced_sm90() && !tma_rows(N, K); }
static const char *refused_tag(int N, int K) { return refused_here(N, K) ? " (refused)" : ""; }

/* With TILEPP_PATH=sm90 and rows TMA cannot address, the launcher must
 * refuse (cudaErrorNotSupported) and write nothing: then D gets the CPU
 * run's values so that the output checks pass, and the launch counts as
 * done. Else the launch's own result. */
static cudaError_t refused_or(gc_case *c, cudaError_t launch, int N, int K, gc_buf *D)
{
    if (!refused_here(N, K))
        return launch;
    if (launch != cudaErrorNotSupported)
        gc_fail(c, "TILEPP_PATH=sm90 with unaligned rows: expected cudaErrorNotSupported, got %s",
                cudaGetErrorName(launch));
    SU_CHECK(cudaMemcpy(D->dev, D->host, D->n * gc_size(D->type), cudaMemcpyHostToDevice));
    return cudaSuccess;
}

static void test_gemm_acc(int M, int N, int K)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *A = gc_in(&c, GC_F16, (size_t)M * K, 0), *B = gc_in(&c, GC_F16, (size_t)K * N, 0);
    gc_buf *Cin = gc_in(&c, GC_F32, (size_t)M * N, 0);
    gc_buf *D = gc_out(&c, GC_F32, (size_t)M * N, 0, TOL_GEMM);
    gemm_acc(M, N, K, A->host, B->host, Cin->host, D->host);
    cudaError_t launch = refused_or(&c, gemm_acc_gpu(M, N, K, A->dev, B->dev, Cin->dev, D->dev), N, K, D);
    gc_finish(&c, launch, "gemm_acc %dx%dx%d%s", M, N, K, refused_tag(N, K));
}

static void test_gemm_shifted(int M, int N, int K, int shift)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *A = gc_in(&c, GC_F16, (size_t)M * K, 0), *B = gc_in(&c, GC_F16, (size_t)K * N, 0);
    gc_buf *D = gc_out(&c, GC_F32, (size_t)M * N, 0, TOL_GEMM);
    gemm_shifted(M, N, K, shift, A->host, B->host, D->host);
    gc_finish(&c, gemm_shifted_gpu(M, N, K, shift, A->dev, B->dev, D->dev), "gemm_shifted %dx%dx%d shift %d", M, N, K,
              shift);
}

/* A half result stored at windows that start before the matrix: sc a
 * multiple of 8 and N of 8 keep the rows 16-byte aligned (16-byte stores
 * inside, pairs and elements at the edges), others do not. */
static void test_gemm_store_shifted(int M, int N, int K, int sr, int sc)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *A = gc_in(&c, GC_F16, (size_t)M * K, 0), *B = gc_in(&c, GC_F16, (size_t)K * N, 0);
    gc_buf *D = gc_out(&c, GC_F16, (size_t)M * N, 0, TOL_GEMM);
    gemm_store_shifted(M, N, K, sr, sc, A->host, B->host, D->host);
    cudaError_t launch = refused_or(&c, gemm_store_shifted_gpu(M, N, K, sr, sc, A->dev, B->dev, D->dev), N, K, D);
    gc_finish(&c, launch, "gemm_store_shifted %dx%dx%d by (%d, %d)%s", M, N, K, sr, sc, refused_tag(N, K));
}

/* A product over a k range that grows with the block row. On the sm_90a
 * variant its tiles' work varies, so past one tile per block they are
 * handed out by a counter (as many blocks as fit: one per SM here). */
static void test_gemm_band(int M, int N, int K)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *A = gc_in(&c, GC_F16, (size_t)M * K, 0), *B = gc_in(&c, GC_F16, (size_t)K * N, 0);
    gc_buf *D = gc_out(&c, GC_F32, (size_t)M * N, 0, TOL_GEMM);
    gemm_band(M, N, K, A->host, B->host, D->host);
    gc_finish(&c, refused_or(&c, gemm_band_gpu(M, N, K, A->dev, B->dev, D->dev), N, K, D), "gemm_band %dx%dx%d%s", M, N,
              K, refused_tag(N, K));
}

/* The same product launched again on the default stream and on a stream of
 * its own, the output poisoned before each: on the sm_90a variant each
 * launch finds its stream's counter at zero only if the launch before it
 * zeroed it at its end (tile90::kept_counter); left at the count, every
 * block would stop after its first tile. */
static void test_gemm_band_again(int M, int N, int K)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *A = gc_in(&c, GC_F16, (size_t)M * K, 0), *B = gc_in(&c, GC_F16, (size_t)K * N, 0);
    gc_buf *D = gc_out(&c, GC_F32, (size_t)M * N, 0, TOL_GEMM);
    gemm_band(M, N, K, A->host, B->host, D->host);
    cudaStream_t own = NULL;
    cudaError_t err = cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking);
    for (int launch = 0; launch < 5 && err == cudaSuccess; launch++) {
        err = cudaMemset(D->dev, 0xff, sizeof(float) * (size_t)M * N); /* NaN in every element */
        if (err == cudaSuccess)
            err = cudaDeviceSynchronize();
        if (err == cudaSuccess)
            err = launch % 2 ? gemm_band_gpu_stream(M, N, K, A->dev, B->dev, D->dev, own)
                             : gemm_band_gpu(M, N, K, A->dev, B->dev, D->dev);
        if (err == cudaSuccess)
            err = cudaDeviceSynchronize();
    }
    if (own)
        (void)cudaStreamDestroy(own);
    gc_finish(&c, err, "gemm_band %dx%dx%d, the fifth launch (two streams)", M, N, K);
}

/* 2-D float shared tiles: moves exact; the maxima exact; x * 2 - 1 exact
 * in float (a multiply by 2 rounds nothing), so TOL_EXACT throughout. */
static void test_transpose_f32(int M, int N)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *X = gc_in(&c, GC_F32, (size_t)M * N, 0), *Y = gc_out(&c, GC_F32, (size_t)M * N, 0, TOL_EXACT);
    transpose_f32(M, N, X->host, Y->host);
    gc_finish(&c, transpose_f32_gpu(M, N, X->dev, Y->dev), "transpose_f32 %dx%d", M, N);
}

static void test_float_shared(int M, int N)
{
    gc_case c;
    gc_begin(&c);
    size_t mn = (size_t)M * N;
    gc_buf *X = gc_in(&c, GC_F32, mn, 0), *H = gc_in(&c, GC_F16, mn, 0);
    gc_buf *cmax = gc_out(&c, GC_F32, N, 0, TOL_EXACT), *Y = gc_out(&c, GC_F32, mn, 0, TOL_EXACT);
    gc_buf *W = gc_out(&c, GC_F32, mn, 0, TOL_EXACT);
    float_shared(M, N, X->host, H->host, cmax->host, Y->host, W->host);
    gc_finish(&c, float_shared_gpu(M, N, X->dev, H->dev, cmax->dev, Y->dev, W->dev), "float_shared %dx%d", M, N);
}

int main(void)
{
    gc_require_gpu();

    static const int lengths[] = {1, 7, 299, 300, 301, 1000, 1200, 1201, 4800, 65537};
    for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++) {
        test_vec_moves(lengths[i]);
        test_vec_stream(lengths[i]);
    }
    static const int shapes[][2] = {{1, 1}, {64, 64}, {63, 65}, {100, 37}, {129, 200}, {1000, 1003}, {256, 512}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        test_mat_moves(shapes[i][0], shapes[i][1]);
        test_shifted_windows(shapes[i][0], shapes[i][1]);
    }
    static const int gemms[][3] = {{128, 128, 32},  {256, 512, 128}, {1000, 1003, 1007}, {1000, 1000, 96},
                                   {200, 136, 264}, {1, 8, 16},      {3, 5, 7},          {512, 512, 1024}};
    for (size_t i = 0; i < sizeof gemms / sizeof *gemms; i++)
        test_gemm_acc(gemms[i][0], gemms[i][1], gemms[i][2]);
    /* rows TMA can address (the sm_90a variant), shifts of either sign */
    static const int shifts[] = {0, 5, 200, -3, -130};
    for (size_t i = 0; i < sizeof shifts / sizeof *shifts; i++) {
        test_gemm_shifted(1000, 1000, 96, shifts[i]);
        test_gemm_shifted(256, 512, 1024, shifts[i]);
    }
    static const int stores[][5] = {{1000, 1000, 96, 0, 0},   {1000, 1000, 96, 3, 8}, {1000, 1000, 96, 130, 1},
                                    {256, 512, 64, 5, 64},    {300, 203, 64, 7, 8},   {300, 203, 64, 0, 0},
                                    {129, 136, 40, 128, 136}, {1, 8, 16, 0, 8}};
    for (size_t i = 0; i < sizeof stores / sizeof *stores; i++)
        test_gemm_store_shifted(stores[i][0], stores[i][1], stores[i][2], stores[i][3], stores[i][4]);
    /* k ranges that differ per block row: fewer tiles than blocks, and
     * more (144 on an H200's 132 SMs), whole and ragged */
    static const int bands[][3] = {{1, 8, 16}, {300, 200, 136}, {2304, 1024, 1024}, {3000, 700, 500}};
    for (size_t i = 0; i < sizeof bands / sizeof *bands; i++)
        test_gemm_band(bands[i][0], bands[i][1], bands[i][2]);
    test_gemm_band_again(2304, 1024, 1024);
    /* float shared tiles: rows of 4-byte alignment only (N odd) and of 16 */
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        test_transpose_f32(shapes[i][0], shapes[i][1]);
        test_float_shared(shapes[i][0], shapes[i][1]);
    }

    return gc_summary();
}

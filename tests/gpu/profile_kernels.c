/* profile_kernels.c — kernels for profile_test.c: two that declare their
 * work (flops / bytes over their parameters), one that does not. */
#include <tilepp/tile.h>

enum { BM = 128, BN = 128, BK = 32, BYTES_PER_FLOAT = 4 };

/* y = a x + y: 2 flops and 3 floats moved per element. */
#pragma tile kernel threads(256) flops(2.0 * n) bytes(3.0 * BYTES_PER_FLOAT * n)
void prof_axpy(int n, float a, const float x[n], float y[n])
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

/* No work declared: the profiler prints '-' for its rates. */
#pragma tile kernel threads(128)
void prof_fill(int n, float v, float y[n])
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = v;
}

/* A GEMM: on Hopper its grid runs the sm_90a variant, which the profile's
 * path column says. */
#pragma tile kernel threads(128) flops(2.0 * M * N * K)
void prof_gemm(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, BM); by++)
        for (int bx = 0; bx < tile_cdiv(N, BN); bx++) {
#pragma tile shared
            half As[BM][BK], Bs[BK][BN];
#pragma tile fragment
            float Cf[BM][BN];
            tile_clear(Cf);
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, BK); k++) {
                tile_load(As, A, by * BM, k * BK, M, K);
                tile_load(Bs, B, k * BK, bx * BN, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * BM, bx * BN, M, N);
        }
}

/* A run-time step: step 0 makes the C loop endless, which the launcher
 * refuses (cudaErrorInvalidValue) and reports with this kernel's name. */
#pragma tile kernel threads(128)
void prof_strided(int n, int step, float y[n])
{
#pragma tile parallel
    for (int i = 0; i < n; i += step)
        y[i] = 1.0f;
}

/* `#pragma tile gemm` on a call of the user's own micro-kernel: mma_tile's
 * body is the canonical product over whole tiles, so tilepp puts a
 * tensor-core gemm in place of the call (the function itself stays, as
 * __host__ __device__ code, for the CPU meaning). */
#include <tilepp/tile.h>

enum { BM = 64, BN = 64, BK = 32 };

static void mma_tile(const half a[BM][BK], const half b[BK][BN], float c[BM][BN])
{
    for (int i = 0; i < BM; i++)
        for (int j = 0; j < BN; j++)
            for (int k = 0; k < BK; k++)
                c[i][j] += a[i][k] * b[k][j];
}

#pragma tile kernel threads(128)
void gemm_micro(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, BM); by++)
        for (int bx = 0; bx < tile_cdiv(N, BN); bx++) {
#pragma tile shared
            half As[BM][BK], Bs[BK][BN];
#pragma tile fragment
            float Cf[BM][BN];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, BK); k++) {
                tile_load(As, A, by * BM, k * BK, M, K);
                tile_load(Bs, B, k * BK, bx * BN, K, N);
#pragma tile gemm
                mma_tile(As, Bs, Cf);
            }
            tile_store(C, Cf, by * BM, bx * BN, M, N);
        }
}

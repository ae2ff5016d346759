// tile_gemm_tn with a K of 8 (As and Bs are 8 x 64): mma.sync m16n8k16
// consumes K 16 at a time. When this was written tilepp accepted it and the
// generated code failed to compile (static assertion 'tile80: BK is a multiple
// of 16' in tile_mma_sm80.cuh): never code nvcc rejects. Reported at the call.
// expect-prefix: 23:17: error: 'tile_gemm_tn'
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, int K, const half A[K][M], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half As[8][64], Bs[8][64];
#pragma tile fragment
            float Cf[64][64];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, 8); k++) {
                tile_load(As, A, k * 8, by * 64, K, M);
                tile_load(Bs, B, k * 8, bx * 64, K, N);
                tile_gemm_tn(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 64, bx * 64, M, N);
        }
}

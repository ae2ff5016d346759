// Tensor cores multiply half or bfloat16: a float A tile is refused.
// (A float shared tile is a tile of its own, for loads, copies and reductions.)
// expect: 23:17: error: 'tile_gemm' on tensor cores takes A as a half or bfloat16 shared tile or fragment, B as a shared tile of the same type, and a float fragment C
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, int K, const float A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            float As[64][32];
#pragma tile shared
            half Bs[32][64];
#pragma tile fragment
            float Cf[64][64];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 64, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 64, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 64, bx * 64, M, N);
        }
}

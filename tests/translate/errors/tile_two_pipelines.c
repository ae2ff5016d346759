// Two pipelined loops in one block, the second 3 stages deep. When this was
// written tilepp accepted it but gave only the first pipeline's tiles their
// stages: As2 and Bs2 got one copy each, so the loads of iteration k+2 overwrote
// the tiles iteration k was multiplying (wrong results). The block message says
// one pipelined loop; until more are supported, the second is refused.
// expect-prefix: 26:1: error: 
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half As[64][32], Bs[32][64], As2[64][32], Bs2[32][64];
#pragma tile fragment
            float Cf[64][64];
            tile_clear(Cf);
#pragma tile pipelined stages(1)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 64, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 64, K, N);
                tile_gemm(As, Bs, Cf);
            }
#pragma tile pipelined stages(3)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As2, A, by * 64, k * 32, M, K);
                tile_load(Bs2, B, k * 32, bx * 64, K, N);
                tile_gemm(As2, Bs2, Cf);
            }
            tile_store(C, Cf, by * 64, bx * 64, M, N);
        }
}

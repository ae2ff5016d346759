// A shared tile loaded in a pipelined loop has a buffer per stage: after the
// loop no stage is "the" tile, so a product of it in a later sequential loop
// of the block is refused too.
// expect: 25:17: error: 'Bs' is loaded in the pipelined loop, which keeps several stages of it: use it inside that loop
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half As[64][32], Bs[32][64], Cs[64][32];
#pragma tile fragment
            float Cf[64][64];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 64, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 64, K, N);
                tile_gemm(As, Bs, Cf);
            }
            for (int twice = 0; twice < 2; twice++)
                tile_gemm(Cs, Bs, Cf);
            tile_store(C, Cf, by * 64, bx * 64, M, N);
        }
}

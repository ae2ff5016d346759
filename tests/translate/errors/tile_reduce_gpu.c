// A tile operation in a sequential loop of a grid block is not implemented
// on the GPU: the refusal names the operation. (Once tile_reduce_* as a
// whole was refused as plain code in a grid block, 'accepts tile
// declarations, tile operations, ...', as if it were not a tile operation.)
// expect-prefix: 29:17: error: 'tile_reduce_max' in a sequential loop of a grid block
// expect-not: accepts tile declarations
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N], float mx[M])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half As[64][32], Bs[32][64];
#pragma tile fragment
            float Cf[64][64];
#pragma tile fragment
            float m[64];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 64, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 64, K, N);
                tile_gemm(As, Bs, Cf);
            }
            for (int r = 0; r < 2; r++)
                tile_reduce_max(Cf, m, 1, r == 0);
            tile_store(C, Cf, by * 64, bx * 64, M, N);
            tile_store(mx, m, by * 64, M);
        }
}

// int8 tiles for the tensor cores: shared tiles hold float, half or bfloat16 in
// this version (each tile refused once).
// expect: 14:25: error: tile 'As' is in shared memory, which this version of tilepp uses for float, half and bfloat16 tiles
// expect: 14:37: error: tile 'Bs' is in shared memory, which this version of tilepp uses for float, half and bfloat16 tiles
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, int K, const signed char A[M][K], const signed char B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            signed char As[64][32], Bs[32][64];
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

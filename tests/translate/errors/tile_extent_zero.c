// Tiles with an extent 0 (a GNU extension C compilers accept): refused, each
// (they were accepted, and tile.h divides by the size of a row).
// expect: 14:18: error: tile 'As' has extent 0 in dimension 2: a tile holds at least one element
// expect: 14:30: error: tile 'Bs' has extent 0 in dimension 1: a tile holds at least one element
#include <tilepp/tile.h>
enum { BK = 0 };
#pragma tile kernel threads(128)
void f(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half As[64][BK], Bs[BK][64];
#pragma tile fragment
            float Cf[64][64];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, BK); k++) {
                tile_load(As, A, by * 64, k * BK, M, K);
                tile_load(Bs, B, k * BK, bx * 64, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 64, bx * 64, M, N);
        }
}

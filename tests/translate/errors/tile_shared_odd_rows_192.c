// A shared tile of 5 rows of 192 bytes (96 halves, a head dimension of 96):
// like 64-byte rows, rows with half a 128-byte line left over come in pairs
// in the swizzled layout. Refused at the tile, with the row size.
// expect: 14:42: error: shared tile 'S': rows of 192 bytes (half a 128-byte line left over) come in pairs in the swizzled layout; give it an even number of rows
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half As[64][32], Bs[32][64], S[5][96];
#pragma tile fragment
            float Cf[64][64];
            tile_clear(Cf);
            tile_load(S, A, by * 5, 0, M, K);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 64, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 64, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 64, bx * 64, M, N);
        }
}

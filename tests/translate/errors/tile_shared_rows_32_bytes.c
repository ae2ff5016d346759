// half [64][16]: 32-byte rows, too narrow for the swizzled tensor-core
// layout (rows are multiples of 64 bytes).
// expect: 13:18: error: shared tile 'As': 2-D shared tiles are stored in swizzled 16-byte chunks (free of bank conflicts for cp.async and ldmatrix), in rows of a multiple of 64 bytes (32 bytes here)
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half As[64][16], Bs[16][64];
#pragma tile fragment
            float Cf[64][64];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 64, k * 16, M, K);
                tile_load(Bs, B, k * 16, bx * 64, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 64, bx * 64, M, N);
        }
}

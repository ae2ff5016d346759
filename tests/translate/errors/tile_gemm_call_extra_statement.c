// The micro-kernel does more than the product.
// expect: 5:13: error: '#pragma tile gemm': this is not a matrix product C[i][j] += A[i][k] * B[k][j] over whole tiles: the function's body must be the single loop nest of a matrix product
#include <tilepp/tile.h>

static void mm(const half a[64][32], const half b[32][64], float c[64][64])
{
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 64; j++)
            for (int k = 0; k < 32; k++)
                c[i][j] += a[i][k] * b[k][j];
    c[0][0] = 0.0f;
}

#pragma tile kernel threads(128)
void f(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++)
        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {
#pragma tile shared
            half As[64][32], Bs[32][64];
#pragma tile fragment
            float Cf[64][64];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 64, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 64, K, N);
#pragma tile gemm
                mm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 64, bx * 64, M, N);
        }
}

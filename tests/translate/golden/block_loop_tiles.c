/* Tile operations in sequential loops of a grid block (no pipeline): the
 * barriers around shared tiles that each iteration loads again, the
 * fragments reduced in the loop laid out as slices, and the column
 * reductions' scratch. */
#include <math.h>
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void column_walk(int rows, int cols, const float x[rows][cols], float cmax[cols])
{
#pragma tile grid
    for (int bx = 0; bx < tile_cdiv(cols, 128); bx++) {
#pragma tile fragment
        float t[64][128], m[128];
        tile_fill(m, -INFINITY);
        for (int r = 0; r < tile_cdiv(rows, 64); r++) {
            tile_load(t, x, r * 64, bx * 128, rows, cols);
#pragma tile parallel
            for (int i = 0; i < 64; i++)
                for (int j = 0; j < 128; j++)
                    if (r * 64 + i >= rows)
                        t[i][j] = -INFINITY;
            tile_reduce_max(t, m, 0, 0);
        }
        tile_store(cmax, m, bx * 128, cols);
    }
}

#pragma tile kernel threads(128)
void gemm_plain_loop(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N], float sums[M])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile shared
        half As[64][32], Bs[32][64];
#pragma tile fragment
        float Cf[64][64], rs[64];
        tile_clear(Cf);
        for (int k = 0; k < K; k += 32) {
            tile_load(As, A, by * 64, k, M, K);
            tile_load(Bs, B, k, 0, K, N);
            tile_gemm(As, Bs, Cf);
            tile_reduce_sum(Cf, rs, 1, k == 0);
        }
        tile_store(C, Cf, by * 64, 0, M, N);
        tile_store(sums, rs, by * 64, M);
    }
}

// A 256 x 256 float accumulator over 128 threads is 512 values per thread:
// expect: 15:19: error: the block's fragments would hold 512 values in each of the 128 threads' registers; at most 176 fit without spilling (of a thread's 255 registers, tilepp gives fragments at most 176, up to 256 threads): use smaller tiles
// far more than the registers hold.
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 256); by++)
        for (int bx = 0; bx < tile_cdiv(N, 256); bx++) {
#pragma tile shared
            half As[256][32], Bs[32][256];
#pragma tile fragment
            float Cf[256][256];
            tile_clear(Cf);
#pragma tile pipelined stages(2)
            for (int k = 0; k < tile_cdiv(K, 32); k++) {
                tile_load(As, A, by * 256, k * 32, M, K);
                tile_load(Bs, B, k * 32, bx * 256, K, N);
                tile_gemm(As, Bs, Cf);
            }
            tile_store(C, Cf, by * 256, bx * 256, M, N);
        }
}

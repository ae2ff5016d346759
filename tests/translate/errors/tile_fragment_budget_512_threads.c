// With threads(512) each thread has 65536 / 512 = 128 registers, and tilepp
// gives fragments at most 64 of them: 256 x 160 floats (80 a thread) do not
// fit. The advice is fewer threads, with the numbers for threads(256), never
// more (tests/difftest/findings/fragment_budget_512_threads.c).
// expect: 14:15: error: the block's fragments would hold 80 values in each of the 512 threads' registers; at most 64 fit without spilling (65536 registers / 512 threads = 128 a thread, 64 of them kept for addresses and operands): use fewer threads (with threads(256): 160 values a thread, of at most 176) or smaller tiles
#include <tilepp/tile.h>

#pragma tile kernel threads(512)
void f(int M, int N, const float X[M][N], half Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 256); by++) {
#pragma tile fragment
        float S[256][160];
        tile_load(S, X, by * 256, 0, M, N);
        tile_store(Y, S, by * 256, 0, M, N);
    }
}

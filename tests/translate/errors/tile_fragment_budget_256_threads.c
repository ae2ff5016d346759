// 200 values a thread at threads(256), over the 176 tilepp allows: more
// threads would leave each thread fewer registers (64 values at 512), fewer
// would give each more values, so the advice is smaller tiles only.
// expect: 13:15: error: the block's fragments would hold 200 values in each of the 256 threads' registers; at most 176 fit without spilling (of a thread's 255 registers, tilepp gives fragments at most 176, up to 256 threads): use smaller tiles
#include <tilepp/tile.h>

#pragma tile kernel threads(256)
void f(int M, int N, const float X[M][N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 256); by++) {
#pragma tile fragment
        float S[256][200];
        tile_load(S, X, by * 256, 0, M, N);
        tile_store(Y, S, by * 256, 0, M, N);
    }
}

// A fragment of 2^20 x 2^20 floats: over the register budget (counted in 64
// bits, not wrapped).
// expect: 12:15: error: the block's fragments would hold 8589934592 values in each of the 128 threads' registers; at most 176 fit without spilling (of a thread's 255 registers, tilepp gives fragments at most 176, up to 256 threads): use smaller tiles
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int n, float *y)
{
#pragma tile grid
    for (int b = 0; b < n; b++) {
#pragma tile fragment
        float Cf[1 << 20][1 << 20];
        tile_clear(Cf);
        y[b] = 0.0f;
    }
}

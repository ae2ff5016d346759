// A 1-D fragment of 2^16 floats over 128 threads: 512 values a thread, over
// the register budget.
// expect: 12:15: error: the block's fragments would hold 512 values in each of the 128 threads' registers; at most 176 fit without spilling (of a thread's 255 registers, tilepp gives fragments at most 176, up to 256 threads): use smaller tiles
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int n, float *y)
{
#pragma tile grid
    for (int b = 0; b < n; b++) {
#pragma tile fragment
        float m[1 << 16];
        tile_fill(m, 1.0f);
        tile_store(y, m, b * (1 << 16), n);
    }
}

// Two fragments that each fit in the registers but not together: the budget
// is the block's, and the message names the total.
// expect: 12:15: error: the block's fragments would hold 256 values in each of the 128 threads' registers; at most 176 fit without spilling (of a thread's 255 registers, tilepp gives fragments at most 176, up to 256 threads): use more threads (with threads(256): 128 values a thread, of at most 176) or smaller tiles
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int n, float *y)
{
#pragma tile grid
    for (int b = 0; b < n; b++) {
#pragma tile fragment
        float P[128][128], Q[128][128];
        tile_clear(P);
        tile_clear(Q);
        y[b] = 0.0f;
    }
}

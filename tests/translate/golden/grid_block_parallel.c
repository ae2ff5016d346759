// A parallel loop inside a grid block (a row per block, the row's columns
// over its threads): the smallest program of the issue that once
// translated with exit status 0 into a launcher that launched nothing.
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void k(int n, float *x)
{
#pragma tile grid
    for (int b = 0; b < n; b++) {
#pragma tile parallel
        for (int i = 0; i < 128; i++)
            x[b * 128 + i] = 1.0f;
    }
}

// A parallel loop inside a grid block (a row per block, the row's columns
// over its threads). This once translated with exit status 0 into a
// launcher that launched nothing; until such loops are translated, it is
// refused at the pragma.
// expect: 13:1: error: '#pragma tile parallel' inside a grid block is not implemented yet in this version of tilepp: write the loop at the top level of the kernel
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

// The same through a shared tile of the block.
// expect: 18:22: error: loop-carried dependence: 'row[c - 1]' touches an element that another iteration writes as 'row[c]'; the iterations of a parallel loop must be independent
// expect: 18:13: note: the write is here
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int rows, float x[rows][256])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
#pragma tile shared
        float row[256];
#pragma tile parallel
        for (int c = 0; c < 256; c++)
            row[c] = x[r][c];
#pragma tile parallel
        for (int c = 1; c < 256; c++)
            row[c] = row[c - 1] + 1.0f;
#pragma tile parallel
        for (int c = 0; c < 256; c++)
            x[r][c] = row[c];
    }
}

// '#pragma tile pipelined' on a do loop in a grid block.
// expect: 12:1: error: '#pragma tile pipelined' applies to a 'for' loop, not to what follows it
// expect: 13:9: note: this is what follows the pragma
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int n, int k, float *y)
{
#pragma tile grid
    for (int b = 0; b < n; b++) {
        int j = 0;
#pragma tile pipelined stages(2)
        do {
            j++;
        } while (j < k);
        y[b] = (float)j;
    }
}

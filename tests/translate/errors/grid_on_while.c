// '#pragma tile grid' on a while loop.
// expect: 10:1: error: '#pragma tile grid' applies to a 'for' loop, not to what follows it
// expect: 11:5: note: this is what follows the pragma
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *y)
{
    int i = 0;
#pragma tile grid
    while (i < n)
        y[i++] = 1.0f;
}

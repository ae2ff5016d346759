// parallel on a while loop.
// expect: 10:1: error: '#pragma tile parallel' applies to a 'for' loop, not to what follows it
// expect: 11:5: note: this is what follows the pragma
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
    int i = 0;
#pragma tile parallel
    while (i < n)
        x[i++] = 0.0f;
}

// parallel on a statement that is not a loop.
// expect: 9:1: error: '#pragma tile parallel' applies to a 'for' loop, not to what follows it
// expect: 10:5: note: this is what follows the pragma
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel
    x[0] = 1.0f;
}

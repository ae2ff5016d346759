// bytes(...) uses a name that is neither a parameter nor a constant.
// expect: 6:46: error: bytes(...): 'count' is neither a scalar parameter of 'scale' nor an integer constant
#include <tilepp/tile.h>

static int count = 3;
#pragma tile kernel flops(n) bytes(8 * (long)count)
void scale(int n, const float x[n], float y[n])
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = 2 * x[i];
}

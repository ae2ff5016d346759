// A kernel with no parallel loop.
// expect: 6:6: error: kernel 'f' has no '#pragma tile parallel' or 'grid' loop: nothing to spread over the GPU
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
    int half_n = n / 2;
}

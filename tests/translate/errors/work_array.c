// flops(...) names an array parameter: the launcher has only its pointer.
// expect: 5:40: error: flops(...) can use the kernel's scalar parameters, not the array 'x'
#include <tilepp/tile.h>

#pragma tile kernel threads(128) flops(x * 2)
void scale(int n, const float x[n], float y[n])
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = 2 * x[i];
}

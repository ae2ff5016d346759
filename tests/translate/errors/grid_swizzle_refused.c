// A grid block holding plain code (with swizzle) is refused.
// expect: 10:9: error: in a '#pragma tile grid' block this version of tilepp accepts tile declarations, tile operations, scalar declarations and one pipelined loop
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile grid swizzle(8)
    for (int b = 0; b < n; b++)
        x[b] = 0.0f;
}

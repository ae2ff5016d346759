// swizzle() on a grid of one loop: translated, with a warning that it has
// no effect; the block's statement (a store) runs once per block.
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile grid swizzle(8)
    for (int b = 0; b < n; b++)
        x[b] = 0.0f;
}

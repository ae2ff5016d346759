// tile_print at the top level of a kernel: not on the GPU yet (a kernel's
// scalars print from a grid block).
// expect: 8:5: error: tile_print at the top level of a kernel is not implemented on the GPU in this version of tilepp: print in a grid block, between its statements (the kernel's scalars too: once per block)
#include <tilepp/tile.h>
#pragma tile kernel
void f(int n, float *y)
{
    tile_print(n);
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = 1.0f;
}

// A pragma line made by a macro from its argument: _Pragma(#x) with x =
// tile kernel. Refused at the use, with a note at the macro whose expansion
// made it (it was ignored, and the parallel loop then said it was outside a
// kernel).
// expect: 13:1: error: _Pragma("tile ...") is not supported: write '#pragma tile' on its own line
// expect: 11:9: note: the pragma comes from macro 'TILE_KERNEL'
// expect-not: must be inside a '#pragma tile kernel'
#include <tilepp/tile.h>

#define PRAGMA(x) _Pragma(#x)
#define TILE_KERNEL PRAGMA(tile kernel)

TILE_KERNEL
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = 1.0f;
}

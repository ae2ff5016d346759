// '#pragma tile gemm' on a plain assignment in a grid block.
// expect: 12:1: error: '#pragma tile gemm' applies to a tile_gemm call, a call to a matrix-multiply function or a matrix-multiply loop nest, not to what follows it
// expect: 13:9: note: this is what follows the pragma
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int n, float *y)
{
#pragma tile grid
    for (int b = 0; b < n; b++) {
        float v = 0.0f;
#pragma tile gemm
        v = v + 1.0f;
        y[b] = v;
    }
}

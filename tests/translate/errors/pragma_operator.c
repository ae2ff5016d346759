// _Pragma("tile ...") is refused: the pragma must be on its own line.
// expect: 5:1: error: _Pragma("tile ...") is not supported: write '#pragma tile' on its own line
#include <tilepp/tile.h>

_Pragma("tile kernel")
void f(int n, float *x)
{
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

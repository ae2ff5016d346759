// The same pragma-making macro used twice: each use is refused (each would be
// a pragma tilepp ignores), each with its note.
// expect: 14:5: error: _Pragma("tile ...") is not supported: write '#pragma tile' on its own line
// expect: 9:9: note: the pragma comes from macro 'PAR'
// expect: 17:5: error: _Pragma("tile ...") is not supported: write '#pragma tile' on its own line
// expect: 9:9: note: the pragma comes from macro 'PAR'
#include <tilepp/tile.h>

#define PAR _Pragma("tile parallel")

#pragma tile kernel
void f(int n, float *x, float *y)
{
    PAR
    for (int i = 0; i < n; i++)
        x[i] = 1.0f;
    PAR
    for (int i = 0; i < n; i++)
        y[i] = 2.0f;
}

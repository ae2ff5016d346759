// A '#pragma tile' that a macro makes: _Pragma("tile parallel") in the body of
// a macro used before the loop. tilepp finds its pragmas in the file's lines,
// so it refuses this one at the macro's use, with a note at the macro (it was
// ignored: the loop was refused as plain code of the kernel, a misleading
// message).
// expect: 16:5: error: _Pragma("tile ...") is not supported: write '#pragma tile' on its own line
// expect: 11:9: note: the pragma comes from macro 'PARALLEL'
// expect-not: this statement is not inside a '#pragma tile parallel'
#include <tilepp/tile.h>

#define PARALLEL _Pragma("tile parallel")

#pragma tile kernel
void f(int n, float *y)
{
    PARALLEL
    for (int i = 0; i < n; i++)
        y[i] = 1.0f;
}

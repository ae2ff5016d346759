// A macro of a header that makes a 'tile' pragma, used in the file: refused
// at the use; the note shows the macro in the header.
// expect: 11:5: error: _Pragma("tile ...") is not supported: write '#pragma tile' on its own line
// expect: macro_pragma_from_header.h:2:9: note: the pragma comes from macro 'TILE_PARALLEL'
#include <tilepp/tile.h>
#include "macro_pragma_from_header.h"

#pragma tile kernel
void f(int n, float *y)
{
    TILE_PARALLEL
    for (int i = 0; i < n; i++)
        y[i] = 1.0f;
}

// A header the file includes includes one that does not exist: clang's error
// in that header, at its line.
// expect: missing_include_nested.h:2:10: error: 'no_such_header_either.h' file not found
// expect: 6:10: note: in file included from missing_include_nested.c:6:
#include <tilepp/tile.h>
#include "missing_include_nested.h"

#pragma tile kernel
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = 1.0f;
}

// A comment that never ends: clang's error, at its start; nothing after it is
// looked at.
// expect: 13:22: error: unterminated /* comment
// expect: 14:2: error: expected '}'
// expect: 10:1: note: to match this '{'
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = 1.0f; /* the comment starts here
}

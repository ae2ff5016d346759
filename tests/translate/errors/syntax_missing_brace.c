// The kernel's closing brace is missing: clang's error at the end of the
// file, with its note at the brace it would close.
// expect: 13:2: error: expected '}'
// expect: 9:1: note: to match this '{'
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++) {
        y[i] = 1.0f;
}

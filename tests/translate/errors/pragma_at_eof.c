// A pragma followed by nothing (end of file).
// expect: 11:1: error: '#pragma tile kernel' must be followed by a function definition
#include <tilepp/tile.h>

void f(int n, float *x)
{
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

#pragma tile kernel

// Every point of the space is refused (threads must be a multiple of 32): the file is refused,
// with what the first point's translation said.
// expect: 9:29: error: threads(48) must be a multiple of 32 (the warp size)
// expect: 10:1: error: every point of the tune space of 'f' was refused (2 points); above, why T=48 was
#include <tilepp/tile.h>

enum { T = 64 };

#pragma tile kernel threads(T)
#pragma tile tune T(48, 80)
void f(int n, float x[n])
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

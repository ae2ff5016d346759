// The same clause twice.
// expect: 8:33: error: duplicate clause 'vector'
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel vector(4) vector(4)
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

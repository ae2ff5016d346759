// The same clause twice, OpenMP style with a comma.
// expect: 5:35: error: duplicate clause 'threads'
#include <tilepp/tile.h>

#pragma tile kernel threads(128), threads(256)
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

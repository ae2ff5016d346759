// threads(2048): more than a block can hold.
// expect: 5:29: error: threads(2048) is out of range: expected 32 to 1024
#include <tilepp/tile.h>

#pragma tile kernel threads(2048)
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

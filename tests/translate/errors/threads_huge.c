// A block size far past 1024 (a 64-bit value).
// expect: 5:29: error: threads(1099511627776) is out of range: expected 32 to 1024
#include <tilepp/tile.h>

#pragma tile kernel threads(1LL << 40)
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = 1.0f;
}

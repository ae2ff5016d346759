// A negative block size.
// expect: 5:29: error: threads(-32) is out of range: expected 32 to 1024
#include <tilepp/tile.h>

#pragma tile kernel threads(-32)
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = 1.0f;
}

// reduce(+: s) is not implemented yet; the message must not then ask for
// the reduce clause the user wrote.
// expect: 10:23: error: reduce(...) is not implemented yet in this version of tilepp
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, const float *a)
{
    float s = 0.0f;
#pragma tile parallel reduce(+: s)
    for (int i = 0; i < n; i++)
        s += a[i];
}

// threads(LLONG_MIN / -1): overflows; an error, never a crash (SIGFPE).
// expect-prefix: 5:29: error: 
#include <tilepp/tile.h>

#pragma tile kernel threads((-9223372036854775807 - 1) / -1)
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

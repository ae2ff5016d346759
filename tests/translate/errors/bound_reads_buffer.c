// A loop bound that reads a buffer element.
// expect-prefix: 9:25: error: 
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, const int sizes[n], float *x)
{
#pragma tile parallel
    for (int i = 0; i < sizes[0]; i++)
        x[i] = 0.0f;
}

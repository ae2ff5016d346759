// A long double literal in a kernel: refused where it stands.
// expect: 10:31: error: 'long double' in a kernel: CUDA computes it as 'double', so the GPU would not compute what the C does; use double
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = (float)(y[i] * 3.0L);
}

// long double in a parallel loop: CUDA computes it as double, so the GPU would
// not compute what the C does (it was translated; nvcc only warned).
// expect: 12:21: error: 'long double' in a kernel: CUDA computes it as 'double', so the GPU would not compute what the C does; use double
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        {
        long double t = y[i];
        y[i] = (float)(t * t);
    }
}

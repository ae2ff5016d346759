// A variable-length array in a parallel loop's body: CUDA has none (nvcc
// refused the generated code).
// expect: 12:15: error: variable-length array 't' in a kernel: CUDA has none; give it a constant size
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, int m, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        {
        float t[m];
        t[0] = 1.0f;
        y[i] = t[0];
    }
}

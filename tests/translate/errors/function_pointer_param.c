// A function pointer parameter: the GPU cannot call a function of the CPU
// (it was reported as "elements of type 'float (float)'").
// expect: 7:23: error: parameter 'op': a function pointer cannot be passed to a kernel (the GPU cannot call a function of the CPU); call the function by name in the kernel
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float (*op)(float), float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = op(y[i]);
}

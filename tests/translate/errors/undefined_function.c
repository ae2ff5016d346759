// A function declared but not defined in the file (reported once).
// expect: 12:16: error: kernels can call only functions defined in this file; 'activation' has no definition here
#include <tilepp/tile.h>

float activation(float v);

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = activation(x[i]);
}

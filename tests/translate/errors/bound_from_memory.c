// A loop bound from a kernel-level declaration that reads device memory.
// expect: 8:5: error: a loop bound depends on this declaration, which reads device memory: the launcher sizes the grid on the host, so bounds may use only parameters, constants and declarations computed from them
#include <tilepp/tile.h>

#pragma tile kernel
void f(const int *np, float *x)
{
    int n = *np;
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

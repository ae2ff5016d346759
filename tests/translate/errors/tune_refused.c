// '#pragma tile tune' is not implemented yet.
// expect: 8:1: error: '#pragma tile tune' is not implemented yet in this version of tilepp: autotuning is planned; until then the kernel uses the values in the source
#include <tilepp/tile.h>

enum { V = 4 };

#pragma tile kernel
#pragma tile tune V(1, 2, 4)
void f(int n, float *x)
{
#pragma tile parallel vector(V)
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

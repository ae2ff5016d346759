// A tuned kernel's written array without its extent: the tuner could not save or compare it.
// expect: 9:22: error: a tuned kernel's written arrays need their extents: the tuner saves, restores and compares what each variant writes; declare 'x' with its length, as in 'float x[n]'
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

// A kernel calling another kernel (reported once).
// expect: 18:9: error: a kernel cannot call another kernel ('g')
#include <tilepp/tile.h>

#pragma tile kernel
void g(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        g(1, x + i);
}

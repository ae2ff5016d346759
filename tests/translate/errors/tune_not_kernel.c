// tune on a function that is not a kernel.
// expect: 7:1: error: '#pragma tile tune' applies to a '#pragma tile kernel' function, and 'f' is not one
#include <tilepp/tile.h>

enum { V = 4 };

#pragma tile tune V(2, 4)
void f(int n, float x[n])
{
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

#pragma tile kernel
void g(int n, float x[n])
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 1.0f;
}

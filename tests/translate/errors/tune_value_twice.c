// The same value twice in one list.
// expect: 8:27: error: V(2) is listed twice
#include <tilepp/tile.h>

enum { V = 4 };

#pragma tile kernel
#pragma tile tune V(2, 4, 2)
void f(int n, float x[n])
{
#pragma tile parallel vector(V)
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

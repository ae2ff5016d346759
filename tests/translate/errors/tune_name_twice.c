// The same constant tuned twice.
// expect: 8:27: error: duplicate clause 'V'
#include <tilepp/tile.h>

enum { V = 4 };

#pragma tile kernel
#pragma tile tune V(2, 4) V(8)
void f(int n, float x[n])
{
#pragma tile parallel vector(V)
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

// A clause whose ')' is missing at the end of the line.
// expect: 8:31: error: expected ')' to close the clause
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel vector(4
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

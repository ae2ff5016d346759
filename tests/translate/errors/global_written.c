// A global variable written in a parallel body (one error: it is not read).
// expect: 12:9: error: global variable 'count' is written inside a parallel loop; device code cannot write the CPU's globals
#include <tilepp/tile.h>

int count;

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        count = (int)x[i];
}

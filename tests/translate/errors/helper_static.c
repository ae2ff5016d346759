// A static variable in a helper that a kernel calls: one counter in the C,
// every GPU thread changing it at once.
// expect: 8:16: error: static variable 'counter' in a function that kernels call: the C has one for the whole program, which the GPU's threads would all change at once; pass what it keeps as a parameter
#include <tilepp/tile.h>

static int next_id(void)
{
    static int counter = 0;
    return counter++;
}

#pragma tile kernel
void ids(int n, int *out)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        out[i] = next_id();
}

// A per-thread array of 4 MB: a GPU thread has at most 512 KB of local
// memory (it was accepted, and ptxas would refuse the kernel).
// expect: 13:15: error: array 't' of 4194304 bytes in a kernel: each GPU thread holds its own, and a thread has at most 524288 bytes of local memory
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        {
#pragma tile local
        float t[1 << 20];
        t[i % 8] = 1.0f;
        y[i] = t[0];
    }
}

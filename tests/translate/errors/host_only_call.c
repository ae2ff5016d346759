// A C library function CUDA device code does not have, called in a
// parallel loop: refused by name (nvcc rejected the generated file).
// expect: 12:9: error: 'puts' is a C library function that CUDA device code does not have (kernels may call the math library, printf, malloc, free, memcpy and memset, and the file's own functions)
#include <stdio.h>
#include <tilepp/tile.h>

#pragma tile kernel
void done(int n, float *a)
{
#pragma tile parallel
    for (int i = 0; i < n; i++) {
        puts("done");
        a[i] = 0.0f;
    }
}

// fprintf in a kernel: variadic, and no device version (printf has one).
// expect: 11:9: error: 'fprintf' takes a variable number of arguments, which CUDA device code does not support (printf is the exception)
#include <tilepp/tile.h>
#include <stdio.h>
#pragma tile kernel
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        {
        fprintf(stderr, "%d\n", i);
        y[i] = 1.0f;
    }
}

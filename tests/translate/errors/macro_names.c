// Macros of the file are copied into the CUDA, where names like these are
// members of tilepp's loops and tiles: the generated code would not compile.
// expect: 6:9: error: the macro 'count' would rename 'count', which the generated code uses (a member or function of tilepp's device code, or of CUDA's threadIdx): rename the macro
#include <tilepp/tile.h>

#define count 4
#define scale 2.0f

#pragma tile kernel
void scale_all(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = x[i] * scale + (float)count;
}

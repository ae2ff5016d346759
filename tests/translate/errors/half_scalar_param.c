// A half scalar parameter.
// expect-not: must be inside a '#pragma tile kernel'
// expect: 7:20: error: scalar parameter 's' of type 'half' is not supported in kernels; use an integer, float or double (half and bfloat16 scalars are passed differently by C and CUDA)
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, half s, half *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = x[i] * s;
}

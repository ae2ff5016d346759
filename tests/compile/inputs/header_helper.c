/* A kernel calling a helper defined in a local header. The generated code
 * includes the header, so nvcc sees the helper as a host function: the
 * translator must make it callable on the device or refuse the call with a
 * diagnostic (the test allows either), never emit code nvcc rejects. */
#include <tilepp/tile.h>
#include "header_helper.h"

#pragma tile kernel
void apply_softsign(int n, const float *x, float *y)
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++)
        y[i] = softsign(x[i]);
}

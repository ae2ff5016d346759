/* Pragmas in an #if 0 region (or any skipped region) do not exist. */
#include <tilepp/tile.h>

#if 0
#pragma tile kernel threads(7)
#pragma tile no_such_directive
#endif

#ifdef TILEPP_NOT_DEFINED
#pragma tile parallel vector(3)
#else
#pragma tile kernel
#endif
void square(int n, const float *x, float *y)
{
#if 0
#pragma tile parallel vector(5)
#endif
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = x[i] * x[i];
}

/* threads(N): blocks of N threads, and __launch_bounds__(N). */
#include <tilepp/tile.h>

#define WARPS 2
enum { WARP = 32 };

#pragma tile kernel threads(128)
void negate(int n, const double *x, double *y)
{
#pragma tile parallel vector(2)
    for (int i = 0; i < n; i++)
        y[i] = -x[i];
}

#pragma tile kernel threads(WARPS * WARP)
void negate64(int n, const double *x, double *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = -x[i];
}

// A kernel that calls itself (it was reported as calling "another kernel").
// expect: 12:13: error: a kernel cannot call itself ('f'): recursion is not supported in kernels
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        {
        if (i == 0 && n > 1)
            f(n - 1, y);
        y[i] = 1.0f;
    }
}

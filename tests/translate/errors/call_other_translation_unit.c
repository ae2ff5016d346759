// A function defined in another translation unit (declared extern here): a
// kernel can call only functions whose definition tilepp sees.
// expect: 12:16: error: kernels can call only functions defined in this file; 'scale_elsewhere' has no definition here
#include <tilepp/tile.h>

extern float scale_elsewhere(float v); /* defined in another .c */
#pragma tile kernel
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = scale_elsewhere(y[i]);
}

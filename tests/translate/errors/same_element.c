// Every iteration writes c[0].
// expect: 10:9: error: every iteration of 'i' writes the same element 'c[0]': the iterations would race (to combine the iterations' values, accumulate into a variable with reduce(op: var) and store it after the loop)
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, const float *a, float *c)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        c[0] = a[i];
}

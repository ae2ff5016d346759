// A scalar accumulated without reduce.
// expect: 11:9: error: 'sum' is assigned in every iteration of a parallel loop, but declared outside it: the iterations would race: declare it inside the loop, or combine the iterations' values with reduce(op: sum)
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, const float *a)
{
    float sum = 0.0f;
#pragma tile parallel
    for (int i = 0; i < n; i++)
        sum += a[i];
}

// expect: 15:9: error: every iteration of 'j' writes the same element 'out[0]': the iterations would race (to combine the iterations' values, accumulate into a variable with reduce(op: var) and store it after the loop)
/* The store of tests/translate/golden/single_iteration.c in a loop of two
 * iterations: both write out[0]. */
#include <tilepp/tile.h>

#pragma tile kernel
void store_twice(int n, const float *x, float out[2])
{
    float s = 0.0f;
#pragma tile parallel reduce(+: s)
    for (int i = 0; i < n; i++)
        s += x[i];
#pragma tile parallel
    for (int j = 0; j < 2; j++)
        out[0] = s;
}

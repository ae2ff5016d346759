// Punctuation where a clause name should be.
// expect: 5:21: error: expected a clause name, found ','
#include <tilepp/tile.h>

#pragma tile kernel , threads(64)
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

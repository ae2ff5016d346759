// threads(<a literal past LLONG_MAX>): an error that does not invent a value.
// expect-not: 9223372036854775807
// expect-prefix: 6:29: error: 
#include <tilepp/tile.h>

#pragma tile kernel threads(99999999999999999999999)
void f(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

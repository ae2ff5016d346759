// '#pragma tile parallel' on a compound statement that holds a loop: the pragma
// applies to the statement after it, which is not a loop.
// expect: 10:1: error: '#pragma tile parallel' applies to a 'for' loop, not to what follows it
// expect: 11:5: note: this is what follows the pragma
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *y)
{
#pragma tile parallel
    {
        for (int i = 0; i < n; i++)
            y[i] = 1.0f;
    }
}

// A tuned name that the file does not define.
// expect: 6:19: error: 'WIDTH' is not defined before the kernel: tune varies an enum constant, an object-like macro or a const integer variable that this file defines
#include <tilepp/tile.h>

#pragma tile kernel
#pragma tile tune WIDTH(2, 4)
void f(int n, float x[n])
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 0.0f;
}

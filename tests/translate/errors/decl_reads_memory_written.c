// A declaration of the kernel that reads memory a loop then writes while
// it uses the value (normalising by the first element): each GPU kernel
// evaluates the declaration again as it starts, while other threads write.
// expect: 10:5: error: 'f' reads 'a', which the loop at line 11 writes while it uses the value: each GPU kernel that uses 'f' evaluates this declaration again as it starts, so it would not see what the C sees here: pass the value as a parameter
#include <tilepp/tile.h>

#pragma tile kernel
void normalise(int n, float *a)
{
    float f = a[0];
#pragma tile parallel
    for (int i = 0; i < n; i++)
        a[i] = a[i] / f;
}

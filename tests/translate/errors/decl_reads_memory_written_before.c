// A declaration of the kernel that reads memory the first loop writes,
// used by the second: the second kernel would read the new value.
// expect: 9:5: error: 'first' reads 'a', which the loop at line 11 writes before a later loop uses the value: each GPU kernel that uses 'first' evaluates this declaration again as it starts, so it would not see what the C sees here: pass the value as a parameter
#include <tilepp/tile.h>

#pragma tile kernel
void shift(int n, float *a, float *b)
{
    float first = a[0];
    float unused_here = b[0];
#pragma tile parallel
    for (int i = 0; i < n; i++)
        a[i] = a[i] + 100.0f;
#pragma tile parallel
    for (int i = 0; i < n; i++)
        b[i] = a[i] - first;
}

/* An element accessor macro on the left of the assignment, and a function-like
 * macro in the expression: both keep their meaning on the wide path (c is
 * stored wide; a, read inside a macro argument, may stay scalar). */
#include <tilepp/tile.h>

#define AT(p, i) (p)[i]
#define TWICE(v) ((v) + (v))

#pragma tile kernel
void twice(int n, const float *a, float *c)
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++)
        AT(c, i) = TWICE(a[i]);
}

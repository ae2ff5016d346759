/* An element accessor macro on the left of the assignment, and a function-like
 * macro in the expression: both keep their meaning. Accesses that a macro
 * produces are not cut out of the text, so c and a move with scalar accesses. */
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

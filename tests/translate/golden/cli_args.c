/* Arguments from the command line: one code path, and a macro the pragma
 * and the body use (the generated code gets it through the same -D). */
// tilepp-args: --arch 90a -DWIDTH=8 -DOFFSET=1
#include <tilepp/tile.h>

#pragma tile kernel
void shift(int n, const int *x, int *y)
{
#pragma tile parallel vector(WIDTH)
    for (int i = 0; i < n; i++)
        y[i] = x[i] + OFFSET;
}

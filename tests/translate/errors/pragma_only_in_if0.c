// The only parallel pragma of the kernel is in an '#if 0' region: the loop
// is plain C at the top level of the kernel, which is refused (it would
// run nowhere), never translated into a launcher that launches nothing.
// expect: 13:5: error: this statement is not inside a '#pragma tile parallel' or 'grid' loop: at the top level of a kernel, this version of tilepp accepts scalar declarations, parallel loops and grids
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#if 0
#pragma tile parallel
#endif
    for (int i = 0; i < n; i++)
        x[i] = 1.0f;
}

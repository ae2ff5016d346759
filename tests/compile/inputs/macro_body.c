/* A loop body that is a macro call. The accesses are inside the expansion:
 * the wide path must not replace the whole call by one register (it emitted
 * `tile_v_c[tile_j];`, a statement with no effect, then stored the
 * uninitialised registers, and evaluated the assignment in its alignment
 * test `&(BODY(i))`). nvcc's "expression has no effect" catches it here. */
#include <tilepp/tile.h>

#define BODY(i) c[i] = a[i] + 1.0f

#pragma tile kernel
void add_one(int n, const float *a, float *c)
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++)
        BODY(i);
}

/* A _Bool buffer: C spells the type _Bool, C++ does not have it (the
 * generated header and launcher spelled it `_Bool *`, which nvcc rejects). */
#include <tilepp/tile.h>

#pragma tile kernel
void negate_mask(int n, const _Bool *in, _Bool *out)
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++)
        out[i] = !in[i];
}

/* Parameters whose types are the file's own typedefs. The launcher header is
 * included before anything from the file (and by C code that does not see
 * the typedef), so it must not name them (it did: `real_t` undeclared, in the
 * header compiled as C and in the .cu). */
#include <tilepp/tile.h>

typedef float real_t;
typedef int count_t;

#pragma tile kernel
void scale(count_t n, real_t s, const real_t *x, real_t *y)
{
#pragma tile parallel vector(4)
    for (count_t i = 0; i < n; i++)
        y[i] = s * x[i];
}

/* expect: A, B and C must be 2-D tiles */
#include <tilepp/tile.h>
void f(void);
void f(void)
{
    float a[4][4] = {{0}}, b[4][4] = {{0}}, c[4];
    tile_gemm(a, b, c);
}

/* expect: dst and src must both be 2-D or both 1-D */
#include <tilepp/tile.h>
void f(int m, int n, const float a[m][n]);
void f(int m, int n, const float a[m][n])
{
    float v[8];
    tile_load(v, a, 0, n);
    (void)v;
}

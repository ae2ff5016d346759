/* expect: dst and src must be 2-D */
#include <tilepp/tile.h>
void f(int n, const float x[n]);
void f(int n, const float x[n])
{
    float t[8][8];
    tile_load(t, x, 0, 0, n, n);
    (void)t;
}

/* expect: tile_load takes 3, 4 or 6 arguments */
#include <tilepp/tile.h>
void f(const float a[64][64]);
void f(const float a[64][64])
{
    float t[8][8];
    tile_load(t, a, 0, 0, 64);
    (void)t;
    (void)a;
}

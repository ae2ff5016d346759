/* expect: lvalue|address of */
/* The in-bounds forms measure the source, so it must be an lvalue (a cast
 * pointer works in the forms with extents). */
#include <tilepp/tile.h>
void f(int k, const float *p);
void f(int k, const float *p)
{
    float t[8][8];
    tile_load(t, (const float(*)[k])p, 0, 0);
    (void)t;
}

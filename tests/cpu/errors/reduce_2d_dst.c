/* expect: src must be a 2-D tile and dst a 1-D tile */
#include <tilepp/tile.h>
void f(void);
void f(void)
{
    float s[4][4] = {{0}}, d[4][1];
    tile_reduce_max(s, d, 1, 1);
}

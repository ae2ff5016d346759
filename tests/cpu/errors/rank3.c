/* expect: compatible with any|not compatible */
/* Tiles are 1-D or 2-D. */
#include <tilepp/tile.h>
void f(void);
void f(void)
{
    float t[2][4][4];
    tile_clear(t);
}

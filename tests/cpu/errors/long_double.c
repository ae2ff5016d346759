/* expect: compatible with any|not compatible */
/* long double is not a tile element type. */
#include <tilepp/tile.h>
void f(void);
void f(void)
{
    long double t[4];
    tile_clear(t);
}

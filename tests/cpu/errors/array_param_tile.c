/* expect: sizeof-array-argument|sizeof-pointer-div */
/* A tile parameter is a pointer: tile_* cannot see its rows. */
#include <tilepp/tile.h>
void f(float t[8][16]);
void f(float t[8][16]) { tile_fill(t, 1.0f); }

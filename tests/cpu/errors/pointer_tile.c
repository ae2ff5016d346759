/* expect: sizeof-pointer-div */
/* A tile must be an array: through a pointer its shape is lost. */
#include <tilepp/tile.h>
void f(float (*t)[16]);
void f(float (*t)[16]) { tile_clear(t); }

// '#pragma tile kernel' on a struct declaration.
// expect: 6:1: error: '#pragma tile kernel' applies to a function definition, not to what follows it
// expect: 7:8: note: this is what follows the pragma
#include <tilepp/tile.h>

#pragma tile kernel
struct point {
    float x, y;
};

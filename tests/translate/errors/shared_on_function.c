// '#pragma tile shared' on a function definition.
// expect: 6:1: error: '#pragma tile shared' applies to an array declaration, not to what follows it
// expect: 7:14: note: this is what follows the pragma
#include <tilepp/tile.h>

#pragma tile shared
static float twice(float v) { return 2.0f * v; }

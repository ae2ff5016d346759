// kernel on a variable declaration.
// expect: 6:1: error: '#pragma tile kernel' applies to a function definition, not to what follows it
// expect: 7:5: note: this is what follows the pragma
#include <tilepp/tile.h>

#pragma tile kernel
int counter = 0;

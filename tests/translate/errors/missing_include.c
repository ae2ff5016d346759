// A header that does not exist.
// expect: 4:10: error: 'no_such_header.h' file not found
#include <tilepp/tile.h>
#include "no_such_header.h"

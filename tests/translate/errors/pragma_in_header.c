// A '#pragma tile kernel' in an included header is not silently dropped
// (the front end looks for pragmas in the main file only).
// expect-prefix: pragma_in_header.h:2:1: error: '#pragma tile' in a header is not supported
// expect-prefix: pragma_in_header.h:5:1: error: '#pragma tile' in a header is not supported
#include <tilepp/tile.h>
#include "pragma_in_header.h"

/* Includes a header that does not exist (missing_include_nested.c). */
#include "no_such_header_either.h"

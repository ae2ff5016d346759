/* sizeof of a character constant or a comparison is C's sizeof(int), 4; the
 * generated code is C++, where 'a' is a char and a < b a bool (1 byte each).
 * tilepp writes such a sizeof as sizeof(int) in the kernels and the functions
 * they call; other sizeofs stay as written. */
#include <tilepp/tile.h>

static int record_bytes(int fields, int wide) { return fields * (int)sizeof(wide > 0); }

#pragma tile kernel
void pack_sizes(int n, const int flags[n], int bytes[n], int widths[n])
{
#pragma tile parallel
    for (int i = 0; i < n; i++) {
        bytes[i] = record_bytes(flags[i], i) + (int)sizeof 'x';
        widths[i] = (int)sizeof(!flags[i]) * (int)sizeof(flags[i] ? 'y' : 'n') + (int)sizeof(short);
    }
}

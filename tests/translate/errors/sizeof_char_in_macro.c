// sizeof of a character constant in text a macro writes: C's sizeof(int)
// there, 1 in the C++ tilepp would write, and the text cannot be rewritten.
// expect: 14:27: error: 'sizeof' of a character constant or a comparison inside a macro: C gives it sizeof(int), the C++ of the generated CUDA sizeof(char) or sizeof(bool), and tilepp cannot rewrite the text there; write 'sizeof(int)'
#include <tilepp/tile.h>

#define CELL_BYTES sizeof('c')
#define BYTES(x) sizeof(x)

#pragma tile kernel
void cells(int n, int out[n])
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        out[i] = i * (int)CELL_BYTES + (int)BYTES(out[i]);
}

// A pragma's loop written by a macro: its header would reach the launcher
// as the macro's use.
// expect: 12:5: error: this loop is written by a macro: tilepp reads a pragma's loop as written; write the 'for' statement out (a macro in its bounds or body is fine)
#include <tilepp/tile.h>

#define FOR(v, n) for (int v = 0; v < (n); v++)

#pragma tile kernel
void twice(int n, const float *a, float *b)
{
#pragma tile parallel
    FOR(i, n)
        b[i] = a[i] * 2.0f;
}

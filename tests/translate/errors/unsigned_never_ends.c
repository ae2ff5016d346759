// An unsigned index counted down while 'i >= 0': always true in C, whose
// loop never ends (it wraps and reads past the array).
// expect: 10:5: error: 'i >= 0' compares unsigned values (unsigned int): it is always true, and the C loop never ends
#include <tilepp/tile.h>

#pragma tile kernel
void copy_back(unsigned n, const float *restrict a, float *restrict b)
{
#pragma tile parallel
    for (unsigned i = n - 1; i >= 0; i--)
        b[i] = a[i];
}

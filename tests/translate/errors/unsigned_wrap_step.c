// A reversed unsigned loop that ends when its index wraps below 0, by a
// step other than 1: where it stops depends on the wrapped value.
// expect: 10:5: error: an unsigned loop that counts down by 2 until it wraps below 0: only a step of -1 ('i--') is supported there; count with a signed variable
#include <tilepp/tile.h>

#pragma tile kernel
void evens_back(unsigned n, const float *restrict a, float *restrict b)
{
#pragma tile parallel
    for (unsigned i = n - 1; i < n; i -= 2)
        b[i] = a[i];
}

/* A pragma split over backslash continuation lines is one pragma. */
#include <tilepp/tile.h>

#pragma tile kernel \
    threads(64)
void add_one(int n, int *x)
{
#pragma tile \
    parallel \
    vector(4)
    for (int i = 0; i < n; i++)
        x[i] += 1;
}

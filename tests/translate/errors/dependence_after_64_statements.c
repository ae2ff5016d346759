// A body of more than 64 statements: an access in the last one must still
// be seen (the body walk stopped at 64 children; an unseen write was then
// overwritten by the vector store).
// expect-prefix: 84:16: error: loop-carried dependence
// expect: 13:9: note: the write is here
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, const float *a, float *c, float *d)
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++) {
        c[i] = a[i];
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        (void)0;
        d[i] = c[i + 1];
    }
}

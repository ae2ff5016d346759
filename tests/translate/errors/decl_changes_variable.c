// A declaration at the kernel's top level that changes a parameter: the
// launcher sized the loop with the unchanged n.
// expect: 9:13: error: a declaration at the kernel's top level that changes a variable: each kernel that uses 'm', and the launcher, evaluate it again, so the change would not happen once as in the C; compute the value without assigning, ++ or --
#include <tilepp/tile.h>

#pragma tile kernel
void last(int n, float *b)
{
    int m = n--;
#pragma tile parallel
    for (int i = 0; i < n; i++)
        b[i] = (float)m;
}

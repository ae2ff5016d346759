// No '#include <tilepp/tile.h>': 'half' is then unknown, as to a C compiler;
// clang's error, once.
// expect: 5:15: error: unknown type name 'half'
#pragma tile kernel
void f(int n, half *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = 1.0f;
}

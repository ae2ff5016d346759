// A variadic function of the file called from a kernel: CUDA device code has no
// va_arg. Refused at the call, without a second error from its body.
// expect: 22:16: error: 'sum' takes a variable number of arguments, which CUDA device code does not support (printf is the exception)
#include <tilepp/tile.h>
#include <stdarg.h>

static float sum(int count, ...)
{
    va_list ap;
    va_start(ap, count);
    float s = 0.0f;
    for (int k = 0; k < count; k++)
        s += (float)va_arg(ap, double);
    va_end(ap);
    return s;
}
#pragma tile kernel
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = sum(2, 1.0, 2.0);
}

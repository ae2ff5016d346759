// C's complex numbers in a kernel: CUDA C++ has no _Complex (nvcc refused the
// generated code). The declaration and the imaginary unit are two causes.
// expect: 13:24: error: a complex type in a kernel: CUDA C++ has no _Complex; compute with the real and imaginary parts
// expect: 13:35: error: a complex type in a kernel: CUDA C++ has no _Complex; compute with the real and imaginary parts
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *y)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        {
        float _Complex z = y[i] + 2.0if;
        y[i] = __real__(z * z);
    }
}

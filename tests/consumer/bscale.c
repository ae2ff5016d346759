/* bscale.c — a bfloat16 kernel whose launcher a C++ file calls with CUDA's
 * __nv_bfloat16 pointers. It is translated but not compiled as C into the
 * app: clang's float -> __bf16 conversion calls __truncsfbf2, which libgcc
 * has only since GCC 13 (main.c checks the GPU against exact float math). */
#include <tilepp/tile.h>

#pragma tile kernel
void bscale(int n, float s, const bfloat16 *x, bfloat16 *y)
{
#pragma tile parallel vector(8)
    for (int i = 0; i < n; i++)
        y[i] = s * x[i];
}

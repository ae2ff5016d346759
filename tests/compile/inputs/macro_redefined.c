/* A macro redefined after the kernel: the kernel body sees SCALE = 2, as C
 * does. The generated prelude must not let the later definition win (it
 * copied both #defines and no #undef, so the GPU multiplied by 3). The PTX
 * check makes sure the constant 3.0f (0f40400000) is not there. */
#include <tilepp/tile.h>

#define SCALE 2.0f

#pragma tile kernel
void scale_by_two(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] *= SCALE;
}

#undef SCALE
#define SCALE 3.0f

float cpu_scale_by_three(float v) { return v * SCALE; }

/* prelude_main.c — prelude.c defines `shaped` and `clamp_range` with external
 * linkage; the generated CUDA has its own copies of them (static there). Both
 * link into one program, and the C ones are the ones C calls. */
#include <stdio.h>

#include "prelude.tile.h"

struct range { float lo, hi; };
extern const struct range clamp_range;
float shaped(float v);
void shape(int n, const float *x, float *y);

static cudaError_t (*volatile launch)(int, const float *, float *) = shape_gpu;

int main(void)
{
    float x[5] = {0, 0.5f, 1, 2, 3}, y[5];
    shape(5, x, y);
    /* shaped(v) = clamp(v * v / 2, -1, 1) + 0.25; y[i] = shaped(x[i]) * (i % 4) */
    const float want[5] = {0, 0.375f * 1, 0.75f * 2, 1.25f * 3, 0};
    for (int i = 0; i < 5; i++)
        if (y[i] != want[i]) {
            fprintf(stderr, "shape: y[%d] = %g, expected %g\n", i, y[i], want[i]);
            return 1;
        }
    if (shaped(10.0f) != 1.25f || clamp_range.hi != 1.0f || !launch)
        return 1;
    puts("CPU reference and launchers linked; the CPU reference is right");
    return 0;
}

/* bias_gelu_main.c — the CPU reference of bias_gelu.c (with its static gelu
 * helper) and the GPU launchers (with their own copy of it) in one program. */
#include <math.h>
#include <stdio.h>

#include "bias_gelu.tile.h"

void bias_gelu(int rows, int cols, const half x[rows][cols], const float bias[cols], half y[rows][cols]);

static cudaError_t (*volatile launch)(int, int, const half *, const float *, half *) = bias_gelu_gpu;

int main(void)
{
    enum { R = 2, C = 3 };
    half x[R][C] = {{0, 1, -1}, {2, -2, 0.5f}};
    float bias[C] = {0, 0, 1};
    half y[R][C];
    bias_gelu(R, C, x, bias, y);
    /* gelu(0) = 0, gelu(v) ~ v for large v, ~ 0 for very negative v. */
    if ((float)y[0][0] != 0.0f || !((float)y[1][0] > 1.9f && (float)y[1][0] < 2.0f) ||
        !((float)y[1][1] < 0.0f && (float)y[1][1] > -0.1f) || !isfinite((float)y[0][2])) {
        fprintf(stderr, "bias_gelu: unexpected CPU results\n");
        return 1;
    }
    if (!launch)
        return 1;
    puts("CPU reference and launchers linked; the CPU reference is right");
    return 0;
}

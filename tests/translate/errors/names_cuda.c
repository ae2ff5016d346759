// Names CUDA's headers or built-ins have: a helper called max (CUDA
// declares one), a struct type called float2, a parameter called blockIdx.
// expect: 8:14: error: 'max' is declared by CUDA's headers, which the generated file includes: a second 'max' does not compile; rename it
// expect: 12:3: error: 'float2' is declared by CUDA's headers, which the generated file includes: a second 'float2' does not compile; rename it
// expect: 15:23: error: 'blockIdx' is a built-in name of CUDA, which the generated kernels use: rename it
#include <tilepp/tile.h>

static float max(float a, float b) { return a > b ? a : b; }

typedef struct {
    float x, y;
} float2;

#pragma tile kernel
void clamp(int n, int blockIdx, const float *p, float *out)
{
#pragma tile parallel
    for (int i = 0; i < n; i++) {
        float2 q = {p[i], (float)blockIdx};
        out[i] = max(q.x, q.y);
    }
}

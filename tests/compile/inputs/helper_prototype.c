/* A helper declared before the kernel and defined after it, as C code is
 * often ordered: the CUDA must declare it before the kernel too (it
 * carried only the definition, after the kernel: "identifier 'later' is
 * undefined"). */
#include <tilepp/tile.h>

static float later(float x);
float twice_later(float x);

#pragma tile kernel
void helper_prototype(int n, const float *a, float *b)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        b[i] = later(a[i]) + twice_later(a[i]);
}

static float later(float x) { return x + 0.5f; }

float twice_later(float x) { return 2.0f * later(x); }

/* A typedef of an anonymous struct used by a helper the kernel calls: the
 * generated CUDA must declare the type once (it also emitted a bare
 * `struct { ... };`, which the host compiler rejects). */
#include <tilepp/tile.h>

typedef struct {
    float lo, hi;
} range_t;

static inline float clamp_to(float v, range_t r)
{
    return v < r.lo ? r.lo : v > r.hi ? r.hi : v;
}

#pragma tile kernel
void clamp_all(int n, float lo, float hi, const float *x, float *y)
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++) {
        range_t r = {lo, hi};
        y[i] = clamp_to(x[i], r);
    }
}

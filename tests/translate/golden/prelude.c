/* What the body needs from the file: helper functions (static and not), an
 * enum, #defines, a struct and a const global. Unused declarations stay
 * behind. */
#include <tilepp/tile.h>

#define SCALE 0.5f
#define SQUARE(v) ((v) * (v))

enum { PERIOD = 4, UNUSED_CONSTANT = 9 };

struct range { float lo, hi; };

const struct range clamp_range = {-1.0f, 1.0f};
static const float offset = 0.25f;

static float clampf(float v, struct range r)
{
    return v < r.lo ? r.lo : v > r.hi ? r.hi : v;
}

float shaped(float v)
{
    return clampf(SQUARE(v) * SCALE, clamp_range) + offset;
}

static float unused_helper(float v) { return v + 1.0f; }

int cpu_only_counter;

#pragma tile kernel
void shape(int n, const float *x, float *y)
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++)
        y[i] = shaped(x[i]) * (float)(i % PERIOD);
}

int cpu_only(void) { return cpu_only_counter + (int)unused_helper(1.0f); }

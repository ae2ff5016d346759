/* A parallel loop of one iteration (constant bounds) that stores a
 * reduction's result: no other iteration writes the same element, so it is
 * not a race (check.c, at_most_one_iteration). With two iterations the same
 * store is refused (errors/parallel_same_element_two.c). */
#include <math.h>
#include <tilepp/tile.h>

#pragma tile kernel
void sum_and_max(int n, const float *x, float out[2])
{
    float s = 0.0f, m = -INFINITY;
#pragma tile parallel reduce(+: s) reduce(max: m)
    for (int i = 0; i < n; i++) {
        s += x[i];
        m = fmaxf(m, x[i]);
    }
#pragma tile parallel
    for (int j = 0; j < 1; j++) {
        out[0] = s;
        out[1] = m;
    }
}

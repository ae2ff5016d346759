/* Pragmas that are not `#pragma tile` pass through untouched: OpenMP on a
 * CPU loop, #pragma once in a local header, unroll on an inner loop. */
#include <tilepp/tile.h>
#include "other_pragmas.h"
#include "other_pragmas.h"

void cpu_fill(int n, float *x)
{
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        x[i] = (float)i;
}

#pragma tile kernel
void shifted_sums(int rows, const float x[rows][4], float y[rows])
{
#pragma tile parallel
    for (int r = 0; r < rows; r++) {
        float s = 0.0f;
#pragma unroll
        for (int k = 0; k < 4; k++)
            s += x[r][k] + OTHER_OFFSET;
        y[r] = s;
    }
}

/* layernorm.c — layer normalisation forward, as llm.c's layernorm_forward:
 * per row, the mean and the reciprocal standard deviation (kept in `mean`
 * and `rstd` for the backward pass), then y = (x - mean) * rstd * weight +
 * bias. A grid over the rows; parallel loops over the columns with sum
 * reductions; scalar statements between them run on every thread of the
 * block alike, and the two stores of a row's statistics run once. */
#include <math.h>
#include <tilepp/tile.h>

#pragma tile kernel threads(256)
void layernorm(int rows, int cols, const float x[rows][cols], const float weight[cols], const float bias[cols],
               float y[rows][cols], float mean[rows], float rstd[rows])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
        float m = 0.0f;
#pragma tile parallel vector(4) reduce(+: m)
        for (int c = 0; c < cols; c++)
            m += x[r][c];
        m = m / cols;
        float v = 0.0f;
#pragma tile parallel vector(4) reduce(+: v)
        for (int c = 0; c < cols; c++) {
            float d = x[r][c] - m;
            v += d * d;
        }
        float s = 1.0f / sqrtf(v / cols + 1e-5f);
#pragma tile parallel vector(4)
        for (int c = 0; c < cols; c++)
            y[r][c] = (x[r][c] - m) * s * weight[c] + bias[c];
        mean[r] = m;
        rstd[r] = s;
    }
}

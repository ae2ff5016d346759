/* bias_gelu.c — a 2-D elementwise kernel: y = gelu(x + bias), row by row.
 *
 * x and y are half-precision matrices passed as C99 arrays, so the body
 * indexes them naturally; the arithmetic is float, as C does it for half.
 * tilepp collapses the two loops and gives each thread 8 consecutive
 * columns: one 16-byte load of x and one 16-byte store of y. */
#include <math.h>
#include <tilepp/tile.h>

/* The tanh approximation of GELU used by GPT-2 and BERT. */
static inline float gelu(float v)
{
    const float k = 0.7978845608028654f; /* sqrt(2 / pi) */
    return 0.5f * v * (1.0f + tanhf(k * (v + 0.044715f * v * v * v)));
}

#pragma tile kernel threads(256)
void bias_gelu(int rows, int cols, const half x[rows][cols], const float bias[cols], half y[rows][cols])
{
#pragma tile parallel vector(8)
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            y[r][c] = gelu(x[r][c] + bias[c]);
}

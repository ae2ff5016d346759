/* Local pointers into a buffer inside parallel loops. tilepp does not
 * follow pointers: where a pointer's write meets another access of the
 * same buffer (`float *next = x + 1; next[i] = x[i]`, which is the
 * dependence `x[i + 1] = x[i]`) it warns; a row pointer written and read at
 * one subscript, or a pointer only read from, passes without a word. */
#include <tilepp/tile.h>

#pragma tile kernel
void smear(int n, float *x)
{
    float *next = x + 1;
#pragma tile parallel
    for (int i = 0; i < n - 1; i++)
        next[i] = x[i];
}

#pragma tile kernel
void scale_rows(int rows, int cols, float *y, const float *restrict s)
{
#pragma tile parallel
    for (int r = 0; r < rows; r++) {
        float *row = &y[r * cols];
        for (int c = 0; c < cols; c++)
            row[c] = row[c] * s[r];
    }
}

#pragma tile kernel
void forward_diff(int n, float *restrict out, const float *restrict in)
{
    const float *ahead = in + 1;
#pragma tile parallel
    for (int i = 0; i < n - 1; i++)
        out[i] = ahead[i] - in[i];
}

/* A body with if/else, a ternary and an inner sequential loop. */
#include <tilepp/tile.h>

#pragma tile kernel
void row_stats(int rows, int cols, float limit, const float x[rows][cols], float mean[rows], int over[rows])
{
#pragma tile parallel
    for (int r = 0; r < rows; r++) {
        float acc = 0.0f;
        int count = 0;
        for (int c = 0; c < cols; c++) {
            float v = x[r][c];
            if (v > limit)
                count++;
            else if (v < -limit) {
                count += 2;
            }
            acc += v;
        }
        mean[r] = cols > 0 ? acc / cols : 0.0f;
        over[r] = count;
    }
}

#pragma tile kernel
void relu_or_scale(int n, int mode, const float *x, float *y)
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++) {
        float v = x[i];
        if (mode == 0)
            v = v > 0.0f ? v : 0.0f;
        else
            v *= 0.5f;
        y[i] = v;
    }
}

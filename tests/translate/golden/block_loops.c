// Statements of a grid block beside parallel loops: a sequential loop
// around parallel loops with reductions (a row in chunks), scalar
// statements every thread runs alike, stores that run once, a 1-D shared
// tile written by one loop and read by another (barriers between them).
#include <math.h>
#include <tilepp/tile.h>

enum { CH = 512 };

#pragma tile kernel threads(128)
void chunked(int rows, int cols, const float x[rows][cols], float y[rows][cols], float peak[rows])
{
#pragma tile grid
    for (int r = 0; r < rows; r++) {
#pragma tile shared
        float scale[CH];
        float m = 0.0f;
        for (int c0 = 0; c0 < cols; c0 += CH) {
            int n = tile_min(CH, cols - c0);
            float mc = 0.0f;
#pragma tile parallel reduce(max: mc)
            for (int c = 0; c < n; c++)
                mc = fmaxf(mc, fabsf(x[r][c0 + c]));
            m = fmaxf(m, mc);
        }
        peak[r] = m;
#pragma tile parallel
        for (int c = 0; c < CH; c++)
            scale[c] = 1.0f / (m + c);
#pragma tile parallel vector(4)
        for (int c = 0; c < cols; c++)
            y[r][c] = x[r][c] * scale[(CH - 1 - c % CH)];
    }
}

// Under an if of a grid block only parallel loops: a tile operation there
// is refused (the pipeline and the warp roles would have to agree on the
// condition).
// expect: 17:13: error: only parallel loops may stand under an 'if' in a grid block in this version of tilepp: move this statement out of the 'if'
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int rows, int cols, int scaled, const float x[rows][cols], float y[rows])
{
#pragma tile grid
    for (int r = 0; r < tile_cdiv(rows, 32); r++) {
#pragma tile fragment
        float t[32][64], m[32];
        tile_load(t, x, r * 32, 0, rows, cols);
        tile_clear(m);
        if (scaled) {
            tile_reduce_max(t, m, 1, 1);
#pragma tile parallel
            for (int i = 0; i < 32; i++)
                m[i] *= 2.0f;
        }
        tile_store(y, m, r * 32, rows);
    }
}

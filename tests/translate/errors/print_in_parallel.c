// tile_print in a parallel loop of a grid block: it would print once per
// element, each on its own thread.
// expect: 15:17: error: tile_print inside a parallel loop would print once per iteration, each on its own thread: print the tile or value in the grid block, between its statements, where one thread prints it for the block
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void f(int M, int N, const float X[M][N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile shared
        float v[64];
#pragma tile parallel
        for (int i = 0; i < 64; i++) {
                tile_print(v);
            v[i] = 0.0f;
        }
    }
}

// tile_min and tile_max over elements of shared tiles and fragments
// (tests/difftest/findings/tile_min_shared_in_macro.c). They are the
// language's own macros: an access written out in a call's argument is cut
// there, as in the conditional the call expands to (once, though the
// expansion holds each argument twice); the call stays a call, which the
// generated code's tile.h defines as a function of C's type.
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void clamp_tile(int M, int N, const half X[M][64], float Y[M][64], float *R)
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile shared
        half Ts[64][64];
#pragma tile fragment
        float F[64][64];
        tile_load(Ts, X, by * 64, 0, M, 64);
        tile_load(F, X, by * 64, 0, M, 64);
        // a reduction over a shared tile's row, by tile_max and by the
        // conditional it expands to (half operands, a float variable)
        float m = 0.0f, lo = 1.0f;
#pragma tile parallel reduce(max : m) reduce(min : lo)
        for (int j = 0; j < 64; j++) {
            m = tile_max(m, Ts[0][j]);
            lo = lo < Ts[1][j] ? lo : Ts[1][j];
        }
        // a statement of the block
        R[by] = tile_min(m, Ts[0][0]) + lo;
        // a loop over the fragment: its elements and the shared tile's, in
        // nested calls and calls spread over lines
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 64; j++)
                F[i][j] = tile_min(tile_max(F[i][j], -1 /* ) */),
                                   tile_max((float)Ts[i][j], j < N ? Ts[j][i] : 0.5f));
        tile_store(Y, F, by * 64, 0, M, 64);
    }
}

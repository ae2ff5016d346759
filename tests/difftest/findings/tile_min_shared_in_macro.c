/* Finding (difftest), fixed (the compile test compile_tile_min_shared_in_macro
 * keeps it so; the golden tile_minmax_tiles shows the translation): tile_min
 * / tile_max over an element of a shared tile in a parallel loop of a block
 * is refused.
 *
 * tile_min and tile_max are part of the language (tile.h, "type-generic
 * minimum and maximum"), and loop bodies may use macros and index the
 * block's shared tiles (pragmas/README.md, "Statements of a block"). With a
 * shared tile element as an argument, tilepp answers:
 *
 *   tile_min_shared_in_macro.c:47:41: error: shared tile 'Ts' is used inside
 *   a macro here; write the access out in the code
 *
 * The same for a fragment's element in a loop over the fragment (second
 * kernel), where the message even calls the fragment a shared tile:
 *
 *   tile_min_shared_in_macro.c:62:27: error: shared tile 'F' is used inside
 *   a macro here; write the access out in the code
 *
 * Clean refusals (located, exit 1), but of a construct the reference
 * accepts; written out (`Ts[i][j] < 0.5f ? Ts[i][j] : 0.5f`) it translates.
 * Expected: tile_min/tile_max over a shared tile element translate like the
 * conditional they expand to (they are the language's own macros), or the
 * reference says they cannot take shared tile elements. Reproduced with
 * tilepp at 3d30441; difftest programs that hit it land in refused/.
 *
 * The fix: inside a call of tile_min/tile_max written in the code, an access
 * written out in an argument is cut where it is written (once, though the
 * expansion holds each argument twice), as in the conditional the call
 * expands to; the call stays a call (a function of C's type in generated
 * code). An access that another macro hides is still refused, and the
 * message says "fragment" for a fragment. */
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void clamp_tile(int M, int N, const half X[M][N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 32); by++) {
#pragma tile shared
        half Ts[32][64];
        tile_load(Ts, X, by * 32, 0, M, N);
#pragma tile parallel
        for (int i = 0; i < 32; i++)
            for (int j = 0; j < 64; j++)
                if (by * 32 + i < M && j < N)
                    Y[by * 32 + i][j] = tile_min((float)Ts[i][j], 0.5f);
    }
}

#pragma tile kernel threads(128)
void clamp_fragment(int M, int N, const float X[M][N], float Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 64); by++) {
#pragma tile fragment
        float F[64][64];
        tile_load(F, X, by * 64, 0, M, N);
#pragma tile parallel
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 64; j++)
                F[i][j] = tile_max(F[i][j], -0.5f);
        tile_store(Y, F, by * 64, 0, M, N);
    }
}

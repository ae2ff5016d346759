/* Finding (difftest), fixed (the compile test
 * compile_array_param_restrict_extent and the golden alias_restrict keep it
 * so): nvcc refuses the translation of an in-bounds tile_load from an array
 * parameter declared with a qualifier in its first brackets.
 *
 * C99 lets the first brackets of an array parameter hold qualifiers before
 * the extent: `const float X[restrict M][N]` (also `static`, `const`,
 * `volatile`). tilepp took the extent as the brackets' whole text, so the
 * 4-argument tile_load, whose matrix rows come from the declaration, was
 * written as
 *
 *   tile80::load<half>(F, (tile_p_X), (long long)(N), ..., (long long)(restrict M), (long long)(N));
 *
 * and nvcc stopped: `"restrict" is not allowed`. Program 8 of seed 21
 * (tile family), the first time its file was compiled. Reproduced with
 * tilepp at 8fc7714.
 *
 * Fix: build_ir.c's extents_after_name drops such qualifiers at the start
 * of a bracket. */
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void restrict_extent(int M, int N, const float X[restrict M][N], float Y[static M][N])
{
#pragma tile grid
    for (int by = 0; by < M / 32; by++)
        for (int bx = 0; bx < N / 32; bx++) {
#pragma tile fragment
            half F[32][32];
            tile_load(F, X, by * 32, bx * 32);
            tile_store(Y, F, by * 32, bx * 32);
        }
}

/* Finding (difftest), fixed (the compile test compile_tile_load_pointer_offset,
 * the golden vector_offset and the error tests tile_vector_offset_* keep it
 * so): a 1-D tile_load from `x + i0` is refused, though the language
 * reference lists `x + off` among the vectors a 1-D tile_load takes.
 *
 * pragmas/README.md ("Tiles, matrices and element types"): "A 1-D matrix (a
 * vector) is a 1-D array or an element pointer (`const float *x`, `x + off`,
 * a row `A[i]`)", and tile.h implements the CPU side. tilepp answers:
 *
 *   tile_load_pointer_offset.c:29:23: error: argument 2 of 'tile_load' with a
 *   1-D tile must be a vector parameter (a pointer such as 'const float *x',
 *   a 1-D array, or a row of a parameter such as 'X[b]')
 *
 * The refusal is clean (located, exit 1, no output), so it is not a wrong
 * kernel; but the reference and the translator disagree: either `x + off`
 * is translated (it is `x` with the window moved by `off`: tile_load(xs, x,
 * i0 + 0, n) here) or the reference's list of vectors for the GPU says it
 * is not supported yet. (The GPU table in "Statements of a block" lists "a
 * pointer or 1-D array parameter, or a row X[b]" only.) Reproduced with
 * tilepp at 3d30441. difftest_gen still generates this form, rarely; such
 * programs land in refused/.
 *
 * Fix: build_tile.c takes a vector `x + off`, `off + x` (also `X[b] + off`,
 * `x + a + b`) as x moved by off elements (IrMatrix.shift): the kernel reads
 * and writes through `x + off`, and the window's start and extent count
 * from there, as tile.h's do, so elements before x + off read as 0 (a
 * window moved onto x's own start and extent would read them). Still
 * refused, with the reason at the argument: an offset (or any argument of a
 * tile operation) that changes a variable or reads a fragment's or shared
 * tile's element (not one value for the whole block), the in-bounds form
 * `tile_load(t, x + off, i0)` (C refuses it too: tile.h measures its
 * vector), and a 2-D matrix moved by `+`. pragmas/README.md's GPU table
 * ("Statements of a block") lists the form. */
#include <tilepp/tile.h>

#pragma tile kernel threads(128)
void window_copy(int n, const float *x, half *y)
{
#pragma tile grid
    for (int i0 = 0; i0 < n; i0 += 256) {
#pragma tile shared
        float xs[256];
        tile_load(xs, x + i0, 0, n - i0);
        tile_store(y, xs, i0, n);
    }
}

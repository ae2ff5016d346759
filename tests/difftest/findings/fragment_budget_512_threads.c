/* Finding (difftest), fixed (the error tests tile_fragment_budget_512_threads
 * and tile_fragment_budget_256_threads keep it so): with threads(512) a
 * block's fragments are refused above 64 values a thread, though the
 * reference sets the limit at 128, and the refusal's advice points the
 * wrong way.
 *
 * pragmas/README.md ("#pragma tile grid"): tilepp refuses "fragments that
 * would hold more than 128 values per thread". Here 256 x 160 floats over
 * 512 threads are 80 values a thread (16 warps of 16 x 160: pieces of 16 x
 * 16 fit), and tilepp answers:
 *
 *   fragment_budget_512_threads.c:31:15: error: the block's fragments would
 *   hold 80 values in each of the 512 threads' registers; at most 64 fit
 *   without spilling: use more threads (up to 256) or smaller tiles
 *
 * The limit follows the register file (65536 / 512 threads = 128 registers
 * a thread), which is a fair reason, but the reference does not say so (the
 * same refusal at threads(128) says "at most 176"), and "use more threads
 * (up to 256)" at 512 threads asks for fewer. Expected: the reference states
 * the limit as tilepp applies it (per thread count), and the advice says
 * "fewer threads" or "smaller tiles" when the block already has more than
 * 256. Reproduced with tilepp at 3d30441. difftest_gen keeps fragments within
 * the documented 128 values a thread, so some of its threads(512) products
 * land in refused/ with this message.
 *
 * Fix: the limit stays what it was (the refusal is right: 80 values do not
 * fit in the 64 registers a thread has left at 512 threads), and now the
 * reference states it per thread count (pragmas/README.md, "#pragma tile
 * grid": 176 values up to 256 threads, 106 at 384, 64 at 512, 32 at 1024),
 * and the message gives the reason and advice that fits (lower_tile.c):
 *
 *   fragment_budget_512_threads.c:48:15: error: the block's fragments would
 *   hold 80 values in each of the 512 threads' registers; at most 64 fit
 *   without spilling (65536 registers / 512 threads = 128 a thread, 64 of
 *   them kept for addresses and operands): use fewer threads (with
 *   threads(256): 160 values a thread, of at most 176) or smaller tiles
 *
 * It names the nearest power-of-two thread count at which the fragments
 * fit, more or fewer threads, or only "use smaller tiles" when none does. */
#include <tilepp/tile.h>

#pragma tile kernel threads(512)
void wide_copy(int M, int N, const float X[M][N], half Y[M][N])
{
#pragma tile grid
    for (int by = 0; by < tile_cdiv(M, 256); by++) {
#pragma tile fragment
        float S[256][160];
        tile_load(S, X, by * 256, 0, M, N);
        tile_store(Y, S, by * 256, 0, M, N);
    }
}

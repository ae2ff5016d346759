/* Finding (difftest seed 2, programs p0123, p0171, p0235, p0260, p0344 and
 * p0372, 2026-12-02), fixed (unit_lower's write_after_continue_scalar keeps
 * it so): in a `vector(V)` loop, a write that a `continue` before it skips
 * in some iterations was vectorized as if it ran in all of them. The
 * thread's V-wide register copy of y, never loaded, was stored whole, so the
 * elements the C leaves alone (beta[w] > -0.375f here) received garbage on
 * the GPU: "element 2 written (= 0); the CPU leaves it untouched".
 *
 * A write under `if` was already kept scalar (the access is conditional);
 * the walk did not count what follows a `continue` of the iteration as
 * conditional. Now it does: y and x move element by element, beta (read
 * before the continue, and after it) too; a buffer read only before the
 * continue would still move as a vector. Reproduced with tilepp at 3fac743. */
#include <tilepp/tile.h>

#pragma tile kernel
void p0372_parallel(int nb, int nc, int nw, const bfloat16 x[nb][nc][nw], const float beta[restrict nw],
                    half y[nb][nc][nw])
{
#pragma tile parallel vector(2)
    for (int b = 0; b < nb; b++)
        for (int c = 0; c < nc; c++)
            for (int w = 0; w < nw; w++) {
                if (beta[w] > -0.375f)
                    continue;
                y[b][c][w] = (x[b][c][w] * beta[w]);
            }
}

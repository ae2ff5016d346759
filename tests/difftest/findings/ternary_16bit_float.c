/* Finding (difftest), fixed (the compile test compile_ternary_16bit_float
 * keeps it so; the golden mixed_ternary shows the translation): a conditional
 * expression with a half (or bfloat16) operand and a float operand is
 * translated (tilepp exits 0) into CUDA that nvcc rejects.
 *
 * In C, `c < n ? bias[c] : 0.0f` with a half bias has type float (the usual
 * arithmetic conversions); gcc and clang compile it, and the CPU run is the
 * meaning. tilepp copies the expression into the kernel, where half is the
 * runtime's tile_half, which converts from float (a constructor) and to float
 * (operator float): nvcc then finds the conversion ambiguous:
 *
 *   ternary_16bit_float.c(42): error: ambiguous "?" operation: second operand
 *   of type "const half" can be converted to third operand type "float", and
 *   vice versa
 *
 * The same happens in fragment epilogues (`v += c < N ? bias[c] : 0.0f;`),
 * in block loops, with tile_max/tile_min (macros that expand to a
 * conditional) over a half and a float, and with a bfloat16 and a float.
 * Expected: the kernel compiles and computes what C computes (the operand
 * converted to float), or tilepp refuses the expression at its line; never
 * code nvcc rejects (pragmas/README.md, "Honoured or refused").
 *
 * Reproduce: tilepp ternary_16bit_float.c && nvcc -std=c++17 -arch=sm_80
 *   -I<build>/include -c ternary_16bit_float.tile.cu
 * (with tilepp at 3d30441).
 *
 * The fix: an operand of a conditional written in the code whose type is
 * not the conditional's, where a 16-bit float is involved, gets a cast to
 * the conditional's C type in the CUDA (`c < valid ? (float)(bias[c]) :
 * 0.0f`); where its text cannot be cut (inside another macro), tilepp
 * refuses it at its line. tile_min/tile_max are functions of C's type in
 * generated code (tile_runtime.cuh). difftest_gen now generates these
 * conditionals by default. */
#include <math.h>
#include <tilepp/tile.h>

#pragma tile kernel
void bias_or_zero(int n, int valid, const half *bias, float *y)
{
#pragma tile parallel
    for (int c = 0; c < n; c++)
        y[c] = c < valid ? bias[c] : 0.0f;
}

#pragma tile kernel
void running_max(int n, const bfloat16 *x, float *y)
{
    float m = -INFINITY;
#pragma tile parallel reduce(max : m)
    for (int i = 0; i < n; i++)
        m = tile_max(m, x[i]);
#pragma tile parallel
    for (int i = 0; i < 1; i++)
        y[i] = m;
}

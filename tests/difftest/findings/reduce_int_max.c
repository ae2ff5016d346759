/* Finding (difftest), fixed (the compile test compile_reduce_int_max keeps it so): an integer reduce(max: ...) or
 * reduce(min: ...) translates into CUDA that nvcc warns about, and that the project's own builds
 * (TILEPP_GENERATED_WARNINGS_AS_ERRORS: -Werror all-warnings) reject.
 *
 * pragmas/README.md lists max and min among the reduction operators and
 * calls integer reductions exact. tilepp translates this kernel (exit 0);
 * the runtime's identity for the operator, tile_identity<OP, int>() in
 * tile_runtime.cuh, calls std::numeric_limits<int>::lowest() / max(), which
 * are constexpr __host__ functions, from a __host__ __device__ function:
 *
 *   tile_runtime.cuh(232): warning #20013-D: calling a constexpr __host__
 *   function("lowest") from a __host__ __device__ function("tile_identity")
 *   is not allowed. The experimental flag '--expt-relaxed-constexpr' can be
 *   used to allow this.
 *
 * (an error under -Werror all-warnings, which tile_add_kernels adds in
 * tilepp's tree). Float max/min reductions do not instantiate it (their
 * identity is -INFINITY/INFINITY). Expected: the generated code compiles
 * without a warning, as the project promises for every kernel it generates
 * (e.g. a device-side identity: INT_MIN / INT_MAX, or
 * cuda::std::numeric_limits).
 *
 * Reproduce (tilepp at 3d30441): tilepp reduce_int_max.c && nvcc -std=c++17
 *   -arch=sm_80 -Werror all-warnings -I<build>/include -c reduce_int_max.tile.cu
 * difftest_gen generates integer max/min reductions (family "reduce"); the
 * difftest_gpu build compiles its kernels without -Werror (so that one
 * warning does not keep hundreds of kernels from running) and this warning
 * shows in its build log. */
#include <tilepp/tile.h>

#pragma tile kernel
void int_extremes(int n, const int *k, int out[2])
{
    int hi = -1000000, lo = 1000000;
#pragma tile parallel reduce(max : hi) reduce(min : lo)
    for (int i = 0; i < n; i++) {
        hi = tile_max(hi, k[i]);
        lo = tile_min(lo, k[i]);
    }
#pragma tile parallel
    for (int j = 0; j < 2; j++)
        out[j] = j == 0 ? hi : lo;
}

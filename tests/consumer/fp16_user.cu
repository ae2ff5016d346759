/* fp16_user.cu — a CUDA file as users write them: CUDA's half header first,
 * then the generated launchers, called with __half device pointers; the
 * installed <tilepp/check.h> in C++, its bit conversions against CUDA's. */
#include <cuda_fp16.h>

#include <cstring>

#include <tilepp/check.h>

#include "hscale.tile.h"

#include <vector>

/* y = s * x through hscale_gpu(); x and y are host floats (values that half
 * holds exactly). Returns the first CUDA error. */
extern "C" cudaError_t hscale_on_gpu(int n, float s, const float *x, float *y)
{
    std::vector<__half> hx(n), hy(n);
    for (int i = 0; i < n; i++) {
        hx[i] = __float2half(x[i]);
        uint16_t bits;
        std::memcpy(&bits, &hx[i], sizeof bits);
        if (bits != tile_check_float_to_half(x[i]))
            return cudaErrorInvalidValue; /* <tilepp/check.h> and cuda_fp16.h disagree */
    }
    half *dx = nullptr, *dy = nullptr; /* CUDA's half: __half */
    cudaError_t err = cudaMalloc(&dx, n * sizeof *dx);
    if (err == cudaSuccess)
        err = cudaMalloc(&dy, n * sizeof *dy);
    if (err == cudaSuccess)
        err = cudaMemcpy(dx, hx.data(), n * sizeof *dx, cudaMemcpyHostToDevice);
    if (err == cudaSuccess)
        err = cudaMemset(dy, 0xff, n * sizeof *dy); /* NaN until written */
    if (err == cudaSuccess)
        err = hscale_gpu(n, s, dx, dy);
    if (err == cudaSuccess)
        err = cudaMemcpy(hy.data(), dy, n * sizeof *dy, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n && err == cudaSuccess; i++)
        y[i] = __half2float(hy[i]);
    cudaFree(dx);
    cudaFree(dy);
    return err;
}

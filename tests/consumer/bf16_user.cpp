// bf16_user.cpp — a C++ file (host compiler, not nvcc) that includes the
// generated launchers first and CUDA's 16-bit headers, through cuBLAS's,
// after them; it calls bscale_gpu() with __nv_bfloat16 device pointers.
#include "bscale.tile.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <vector>

// y = s * x through bscale_gpu(); x and y are host floats (values that
// bfloat16 holds exactly). Returns the first CUDA error.
extern "C" cudaError_t bscale_on_gpu(int n, float s, const float *x, float *y)
{
    std::vector<__nv_bfloat16> hx(n), hy(n);
    for (int i = 0; i < n; i++)
        hx[i] = __float2bfloat16(x[i]);
    bfloat16 *dx = nullptr, *dy = nullptr; // CUDA's bfloat16: __nv_bfloat16
    cudaError_t err = cudaMalloc((void **)&dx, n * sizeof *dx);
    if (err == cudaSuccess)
        err = cudaMalloc((void **)&dy, n * sizeof *dy);
    if (err == cudaSuccess)
        err = cudaMemcpy(dx, hx.data(), n * sizeof *dx, cudaMemcpyHostToDevice);
    if (err == cudaSuccess)
        err = cudaMemset(dy, 0xff, n * sizeof *dy); // NaN until written
    if (err == cudaSuccess)
        err = bscale_gpu(n, s, dx, dy);
    if (err == cudaSuccess)
        err = cudaMemcpy(hy.data(), dy, n * sizeof *dy, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n && err == cudaSuccess; i++)
        y[i] = __bfloat162float(hy[i]);
    cudaFree(dx);
    cudaFree(dy);
    return err;
}

/* libscale.c — kernels of a static library whose generated header is
 * installed (tile_add_kernels HEADERS_DESTINATION). Its settings come
 * through tile_add_kernels' own DEFINES and INCLUDE_DIRECTORIES, both
 * generator expressions. */
#include <tilepp/tile.h>

#include <libscale_config.h>

#ifndef LIBSCALE_FACTOR
#error "DEFINES' generator expression did not reach the translator"
#endif

#pragma tile kernel
void libscale(int n, const float *x, float *y)
{
#pragma tile parallel vector(LIBSCALE_VECTOR)
    for (int i = 0; i < n; i++)
        y[i] = LIBSCALE_FACTOR * x[i];
}

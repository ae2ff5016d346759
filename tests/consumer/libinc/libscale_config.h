/* libscale_config.h — found only through tile_add_kernels(INCLUDE_DIRECTORIES
 * $<BUILD_INTERFACE:...>), a generator expression. */
#ifndef LIBSCALE_CONFIG_H
#define LIBSCALE_CONFIG_H
#define LIBSCALE_VECTOR 4
#endif

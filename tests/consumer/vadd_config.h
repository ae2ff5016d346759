/* vadd_config.h — constants the consumer's kernel file uses. */
#ifndef VADD_CONFIG_H
#define VADD_CONFIG_H
#include <vadd_extra.h>
#define VADD_VECTOR 4 /* elements per thread */
#endif

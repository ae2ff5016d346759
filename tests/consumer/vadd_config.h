/* vadd_config.h — constants the consumer's kernel file uses. */
#ifndef VADD_CONFIG_H
#define VADD_CONFIG_H
#define VADD_VECTOR 4    /* elements per thread */
#define VADD_SCALE 2.0f  /* c = a + VADD_SCALE * b */
#endif

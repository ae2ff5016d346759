/* vadd_extra.h — found only through the target's include directories. */
#ifndef VADD_EXTRA_H
#define VADD_EXTRA_H
/* Both come from target_compile_definitions(app ...), one through a
 * generator expression: without them the kernel file does not compile. */
#define VADD_EXTRA(x) ((x) + VADD_OFFSET)
#define VADD_SCALE VADD_GENEX_SCALE
#endif

/* A helper in a local header, called from a kernel body. */
#ifndef HEADER_HELPER_H
#define HEADER_HELPER_H
static inline float softsign(float v) { return v / (1.0f + (v < 0 ? -v : v)); }
#endif

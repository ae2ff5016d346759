/* helpers_digest.h — one computation with the functions of <tilepp/check.h>
 * and <tilepp/bench.h>, compiled as C (test_helpers.c) and as CUDA C++
 * (helpers_cxx.cu): the two results must be equal bit for bit. */
#ifndef TILEPP_TEST_HELPERS_DIGEST_H
#define TILEPP_TEST_HELPERS_DIGEST_H

#define HELPERS_DIGEST_SIZE 24

#ifdef __cplusplus
extern "C" {
#endif
int helpers_digest_c(double *out);
int helpers_digest_cxx(double *out);
#ifdef __cplusplus
}
#endif

#endif

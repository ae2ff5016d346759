// helpers_cxx.cu — <tilepp/check.h> and <tilepp/bench.h> compiled by nvcc as
// CUDA C++ (the host code of a .cu file): helpers_digest_cxx computes what
// test_helpers.c computes in C with helpers_digest_c.
#include <tilepp/bench.h>
#include <tilepp/check.h>

#include "helpers_digest.h"

#define HELPERS_DIGEST_NAME helpers_digest_cxx
#include "helpers_digest.inc"

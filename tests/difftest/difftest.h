/* difftest.h — the table difftest_gen writes (difftest_table.c) and the
 * driver that reads it (difftest_main.c). See README.md. */
#ifndef TILEPP_DIFFTEST_H
#define TILEPP_DIFFTEST_H

#include <tilepp/tile.h>

#ifdef DT_HOST_ONLY
/* The host-only build: a second CPU build of every kernel stands in for the
 * GPU, and there is no CUDA runtime. */
typedef int cudaError_t;
typedef void *cudaStream_t;
#define cudaSuccess 0
#else
#include <cuda_runtime_api.h>
#endif

typedef enum { DT_F32, DT_F16, DT_BF16, DT_I32 } dt_type;
typedef enum { DT_SCALAR_INT, DT_SCALAR_FLOAT, DT_ARRAY } dt_kind;
typedef enum { DT_IN, DT_OUT, DT_INOUT } dt_role;
/* Array inputs: uniform in [-1, 1] without 0; in (0, 1]; integers in
 * [-fill_arg, fill_arg] without 0; indices in [0, fill_arg). */
typedef enum { DT_FILL_UNIT, DT_FILL_POS, DT_FILL_INT, DT_FILL_INDEX } dt_fill;

typedef struct {
    const char *name;
    dt_kind kind;
    long long ival; /* DT_SCALAR_INT: the value passed */
    double fval;    /* DT_SCALAR_FLOAT: the value passed */
    dt_type type;   /* arrays: */
    dt_role role;
    dt_fill fill;
    long long fill_arg;
    long long count; /* elements */
    int offset;      /* elements between an aligned allocation and the pointer passed */
    double tol;      /* outputs: max |gpu - cpu| / max |cpu| allowed; 0: exactly equal */
} dt_param;

/* mode 0: the CPU reference; 1: the launcher; 2: its _stream variant on
 * `stream`. Scalars are compiled in; args[k] is the pointer for parameter k
 * when it is an array. */
typedef cudaError_t (*dt_run_fn)(int mode, void *const *args, cudaStream_t stream);

typedef struct {
    const char *name, *family, *file, *what;
    int nparams;
    const dt_param *params;
    dt_run_fn run;
} dt_kernel;

extern const dt_kernel dt_kernels[];
extern const int dt_nkernels;
extern const char dt_generator[];

#endif

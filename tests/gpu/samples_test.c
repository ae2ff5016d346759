/* samples_test.c — every sample kernel against its CPU reference, on random
 * data, over many lengths and shapes: edge sizes around the vector width (4
 * floats, 8 halves) and the block size, large sizes, pointers misaligned by
 * one element (the 16-byte path cannot be used; the scalar path must give
 * the same result), and the stream variant of each launcher on a
 * non-default stream.
 *
 * Prints one line per case and "N passed, N failed"; exits 0 when all
 * passed, 1 otherwise, 77 (SKIPPED) without a CUDA device. */
#include "gpu_check.h"

#include "bias_gelu.tile.h"
#include "vector_add.tile.h"

/* The CPU references, compiled from samples/vector_add.c and bias_gelu.c by the C compiler. */
void vector_add(int n, const float *a, const float *b, float *c);
void bias_gelu(int rows, int cols, const half x[rows][cols], const float bias[cols],
               half y[rows][cols]);

/* fp32 addition is correctly rounded on both sides: results are identical,
 * and 1e-6 (a few ulp) catches any wrong element. */
#define VECTOR_ADD_TOL 1e-6
/* half output of float math with a device tanhf: see samples/bias_gelu_main.c. */
#define BIAS_GELU_TOL 1e-2

enum { DEFAULT_STREAM, GIVEN_STREAM };

static void test_vector_add(int n, size_t off_a, size_t off_b, size_t off_c, int stream)
{
    gc_case c;
    gc_begin(&c);
    gc_buf *a = gc_in(&c, GC_F32, (size_t)n, off_a);
    gc_buf *b = gc_in(&c, GC_F32, (size_t)n, off_b);
    gc_buf *out = gc_out(&c, GC_F32, (size_t)n, off_c, VECTOR_ADD_TOL);
    vector_add(n, a->host, b->host, out->host);

    cudaError_t launch;
    if (stream == GIVEN_STREAM) {
        gc_gate gate;
        if (gc_gate_close(&gate) != 0) {
            gc_fail(&c, "could not set up the stream");
            launch = cudaSuccess;
        } else {
            launch = vector_add_gpu_stream(n, a->dev, b->dev, out->dev, gate.stream);
            gc_gate_open(&gate, &c);
        }
    } else {
        launch = vector_add_gpu(n, a->dev, b->dev, out->dev);
    }
    gc_finish(&c, launch, "vector_add n=%d%s offsets a+%zu b+%zu c+%zu", n,
              stream == GIVEN_STREAM ? " stream" : "", off_a, off_b, off_c);
}

static void test_bias_gelu(int rows, int cols, size_t off_x, size_t off_bias, size_t off_y,
                           int stream)
{
    gc_case c;
    gc_begin(&c);
    size_t count = (size_t)rows * (size_t)cols;
    gc_buf *x = gc_in(&c, GC_F16, count, off_x);
    gc_buf *bias = gc_in(&c, GC_F32, (size_t)cols, off_bias);
    gc_buf *y = gc_out(&c, GC_F16, count, off_y, BIAS_GELU_TOL);
    bias_gelu(rows, cols, x->host, bias->host, y->host);

    cudaError_t launch;
    if (stream == GIVEN_STREAM) {
        gc_gate gate;
        if (gc_gate_close(&gate) != 0) {
            gc_fail(&c, "could not set up the stream");
            launch = cudaSuccess;
        } else {
            launch = bias_gelu_gpu_stream(rows, cols, x->dev, bias->dev, y->dev, gate.stream);
            gc_gate_open(&gate, &c);
        }
    } else {
        launch = bias_gelu_gpu(rows, cols, x->dev, bias->dev, y->dev);
    }
    gc_finish(&c, launch, "bias_gelu %dx%d%s offsets x+%zu bias+%zu y+%zu", rows, cols,
              stream == GIVEN_STREAM ? " stream" : "", off_x, off_bias, off_y);
}

int main(void)
{
    gc_require_gpu();

    /* 0: the C loop runs no iteration; the launcher must succeed doing nothing. */
    static const int lengths[] = {0, 1, 3, 4, 5, 127, 255, 256, 257, 1000, 4099,
                                  1 << 20, (1 << 20) + 3};
    static const int misaligned_lengths[] = {5, 257, 4099, (1 << 20) + 3};
    static const int shapes[][2] = {{1, 1},    {3, 7},      {17, 129},  {64, 1000},
                                    {333, 4096}, {1000, 11}, {1000, 8003}, {1, (1 << 20) + 3},
                                    {4099, 1},  {0, 8}};
    static const int misaligned_shapes[][2] = {{3, 7}, {17, 129}, {64, 1000}, {333, 4096}};

    for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++)
        test_vector_add(lengths[i], 0, 0, 0, DEFAULT_STREAM);
    for (size_t i = 0; i < sizeof misaligned_lengths / sizeof *misaligned_lengths; i++) {
        int n = misaligned_lengths[i];
        test_vector_add(n, 1, 1, 1, DEFAULT_STREAM); /* all misaligned alike */
        test_vector_add(n, 0, 0, 1, DEFAULT_STREAM); /* only the output */
        test_vector_add(n, 1, 0, 0, DEFAULT_STREAM); /* only one input */
        test_vector_add(n, 2, 2, 2, DEFAULT_STREAM); /* 8-byte but not 16-byte aligned */
    }
    test_vector_add(1000, 0, 0, 0, GIVEN_STREAM);
    test_vector_add((1 << 20) + 3, 0, 0, 0, GIVEN_STREAM);
    test_vector_add(4099, 1, 1, 1, GIVEN_STREAM);

    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        test_bias_gelu(shapes[i][0], shapes[i][1], 0, 0, 0, DEFAULT_STREAM);
    for (size_t i = 0; i < sizeof misaligned_shapes / sizeof *misaligned_shapes; i++) {
        int rows = misaligned_shapes[i][0], cols = misaligned_shapes[i][1];
        test_bias_gelu(rows, cols, 1, 0, 1, DEFAULT_STREAM); /* x and y */
        test_bias_gelu(rows, cols, 0, 0, 1, DEFAULT_STREAM); /* only y */
        test_bias_gelu(rows, cols, 0, 1, 0, DEFAULT_STREAM); /* only bias */
        test_bias_gelu(rows, cols, 4, 0, 4, DEFAULT_STREAM); /* 8-byte but not 16-byte aligned */
    }
    test_bias_gelu(17, 129, 0, 0, 0, GIVEN_STREAM);
    test_bias_gelu(333, 4096, 0, 0, 0, GIVEN_STREAM);
    test_bias_gelu(64, 1000, 1, 0, 1, GIVEN_STREAM);

    return gc_summary();
}

/* attention_test.c — samples/flash_attention.c (two products in one
 * pipelined loop, the second with its A operand from registers; online
 * softmax on fragments of rows) against its CPU run: ragged sequence
 * lengths (not multiples of the 64-row blocks), one key tile and many,
 * causal and not, a soft softmax (scale 1/sqrt(d)) and a sharp one (scale
 * 1: scores up to ~40, where the running maximum changes from tile to tile
 * and the rescaling matters), batches and heads (the slices Q[b][h]).
 *
 * Tolerance: both runs round P to half before the second product and O to
 * half at the end; they differ by exp2f's last bits (device and libm),
 * which can move a P value by one half ulp (~5e-4), and by the order of
 * the sums (the GPU adds a row's probabilities in a tree). Norm-wise the
 * H200 gives 1e-5 to 6e-5; 1e-3 leaves room for rounding and catches any
 * wrong tile, row or mask.
 *
 * Prints one line per case and "N passed, N failed"; exits 0 when all
 * passed, 1 otherwise, 77 (SKIPPED) without a CUDA device. */
#include "gpu_check.h"

#include <math.h>

#include "flash_attention.tile.h"

/* Built three times: as is (head dim 128, half), with -DHEAD_DIM=64 and
 * with -DELEM=bfloat16, the sample translated and compiled alike. */
#ifndef HEAD_DIM
#define HEAD_DIM 128
#endif
#ifndef ELEM
#define ELEM half
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

/* The CPU reference, compiled from samples/flash_attention.c by the C compiler. */
void flash_attention(int batch, int heads, int seq, int causal, float scale,
                     const ELEM Q[batch][heads][seq][HEAD_DIM], const ELEM K[batch][heads][seq][HEAD_DIM],
                     const ELEM V[batch][heads][seq][HEAD_DIM], ELEM O[batch][heads][seq][HEAD_DIM]);

#define TOL_ATTENTION 1e-3
/* bfloat16 keeps 8 bits: P and O round 8 times coarser than in half, yet
 * both runs round the same values the same way; the H200 gives 1e-5 to
 * 1.1e-4. */
#define TOL_ATTENTION_BF16 2e-3

/* The gpu_check type and tolerance of ELEM. */
static gc_type elem_type(void) { return sizeof(ELEM) == 2 && (ELEM)1.00390625f != (ELEM)1.0f ? GC_F16 : GC_BF16; }

static void test_attention(int batch, int heads, int seq, int causal, float scale)
{
    gc_case c;
    gc_begin(&c);
    size_t n = (size_t)batch * heads * seq * HEAD_DIM;
    gc_type t = elem_type();
    gc_buf *q = gc_in(&c, t, n, 0), *k = gc_in(&c, t, n, 0), *v = gc_in(&c, t, n, 0);
    gc_buf *o = gc_out(&c, t, n, 0, t == GC_F16 ? TOL_ATTENTION : TOL_ATTENTION_BF16);
    flash_attention(batch, heads, seq, causal, scale, q->host, k->host, v->host, o->host);
    gc_finish(&c, flash_attention_gpu(batch, heads, seq, causal, scale, q->dev, k->dev, v->dev, o->dev),
              "attention %s d%d b%d h%d n%d%s scale %.3g", STR(ELEM), HEAD_DIM, batch, heads, seq,
              causal ? " causal" : "", scale);
}

int main(void)
{
    gc_require_gpu();
    const float soft = 1.0f / sqrtf((float)HEAD_DIM), sharp = 1.0f;
    const int seqs[] = {1, 17, 64, 65, 128, 200, 511};
    for (size_t i = 0; i < sizeof seqs / sizeof seqs[0]; i++)
        for (int causal = 0; causal < 2; causal++) {
            test_attention(1, 2, seqs[i], causal, soft);
            test_attention(2, 1, seqs[i], causal, sharp);
        }
    test_attention(2, 3, 1000, 0, soft);
    test_attention(2, 3, 1000, 1, sharp);
    test_attention(1, 2, 2048, 1, soft);
    return gc_summary();
}

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
 * flash_attention_gqa (the file's second kernel: BNHD, grouped-query
 * attention) is checked against its CPU run the same way, with several
 * query heads per K/V head and with one.
 *
 * Longer sequences are checked against an independent reference instead
 * of the CPU run (which would take minutes): naive attention in fp32, each
 * head's S = Q K^T and O = P V through cuBLAS, the softmax in double on
 * the host, from the same rounded inputs; there the difference is P's
 * rounding to ELEM (relative 2^-11 in half, 2^-8 in bfloat16) and O's.
 * (--small leaves them out, for the sanitizers.)
 *
 * Prints one line per case and "N passed, N failed"; exits 0 when all
 * passed, 1 otherwise, 77 (SKIPPED) without a CUDA device. */
#include "gpu_check.h"

#include <cublas_v2.h>
#include <math.h>
#include <string.h>

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
void flash_attention_gqa(int batch, int heads, int kv_heads, int seq, int causal, float scale,
                         const ELEM Q[batch][seq][heads * HEAD_DIM], const ELEM K[batch][seq][kv_heads * HEAD_DIM],
                         const ELEM V[batch][seq][kv_heads * HEAD_DIM], ELEM O[batch][seq][heads * HEAD_DIM]);

#define TOL_ATTENTION 1e-3
/* bfloat16 keeps 8 bits: P and O round 8 times coarser than in half, yet
 * both runs round the same values the same way; the H200 gives 1e-5 to
 * 1.1e-4. */
#define TOL_ATTENTION_BF16 2e-3
/* Against the fp32 reference: P rounded to ELEM (one rounding per
 * probability, errors that average out over a row) and O's rounding; the
 * bench measures 3.8e-4 against PyTorch at these scales in half. */
#define TOL_REFERENCE 2e-3
#define TOL_REFERENCE_BF16 1.5e-2

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

static void test_gqa(int batch, int heads, int kv_heads, int seq, int causal, float scale)
{
    gc_case c;
    gc_begin(&c);
    gc_type t = elem_type();
    size_t nq = (size_t)batch * seq * heads * HEAD_DIM, nkv = (size_t)batch * seq * kv_heads * HEAD_DIM;
    gc_buf *q = gc_in(&c, t, nq, 0), *k = gc_in(&c, t, nkv, 0), *v = gc_in(&c, t, nkv, 0);
    gc_buf *o = gc_out(&c, t, nq, 0, t == GC_F16 ? TOL_ATTENTION : TOL_ATTENTION_BF16);
    flash_attention_gqa(batch, heads, kv_heads, seq, causal, scale, q->host, k->host, v->host, o->host);
    gc_finish(&c,
              flash_attention_gqa_gpu(batch, heads, kv_heads, seq, causal, scale, q->dev, k->dev, v->dev, o->dev),
              "attention_gqa %s d%d b%d h%d kv%d n%d%s scale %.3g", STR(ELEM), HEAD_DIM, batch, heads, kv_heads, seq,
              causal ? " causal" : "", scale);
}

/* Where head h's row s starts: BHND ([b][h][s][d]) or BNHD ([b][s][h][d]). */
static size_t row_at(int bnhd, int b, int h, int s, int heads, int seq)
{
    return bnhd ? (((size_t)b * seq + s) * heads + h) * HEAD_DIM : (((size_t)b * heads + h) * seq + s) * HEAD_DIM;
}

/* Naive fp32 attention through cuBLAS into `out` (rounded to ELEM), head
 * by head: query head h reads K/V head h / (heads / kv_heads). */
static int reference_attention(int bnhd, int batch, int heads, int kv_heads, int seq, int causal, float scale,
                               const ELEM *Q, const ELEM *K, const ELEM *V, ELEM *out)
{
    size_t nd = (size_t)seq * HEAD_DIM, nn = (size_t)seq * seq;
    float *hq = malloc(nd * sizeof *hq), *hk = malloc(nd * sizeof *hk), *hv = malloc(nd * sizeof *hv);
    float *hs = malloc(nn * sizeof *hs), *ho = malloc(nd * sizeof *ho);
    float *dq = NULL, *dk = NULL, *dv = NULL, *ds = NULL, *dout = NULL;
    cublasHandle_t handle = NULL;
    int ok = hq && hk && hv && hs && ho && cudaMalloc((void **)&dq, nd * 4) == cudaSuccess &&
             cudaMalloc((void **)&dk, nd * 4) == cudaSuccess && cudaMalloc((void **)&dv, nd * 4) == cudaSuccess &&
             cudaMalloc((void **)&ds, nn * 4) == cudaSuccess && cudaMalloc((void **)&dout, nd * 4) == cudaSuccess &&
             cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS;
    const float one = 1.0f, zero = 0.0f;
    for (int b = 0; ok && b < batch; b++)
        for (int h = 0; ok && h < heads; h++) {
            int kv = h / (heads / kv_heads);
            for (int s = 0; s < seq; s++)
                for (int d = 0; d < HEAD_DIM; d++) {
                    hq[(size_t)s * HEAD_DIM + d] = (float)Q[row_at(bnhd, b, h, s, heads, seq) + d];
                    hk[(size_t)s * HEAD_DIM + d] = (float)K[row_at(bnhd, b, kv, s, kv_heads, seq) + d];
                    hv[(size_t)s * HEAD_DIM + d] = (float)V[row_at(bnhd, b, kv, s, kv_heads, seq) + d];
                }
            ok = cudaMemcpy(dq, hq, nd * 4, cudaMemcpyHostToDevice) == cudaSuccess &&
                 cudaMemcpy(dk, hk, nd * 4, cudaMemcpyHostToDevice) == cudaSuccess &&
                 cudaMemcpy(dv, hv, nd * 4, cudaMemcpyHostToDevice) == cudaSuccess;
            /* row-major S = Q K^T is column-major S^T = K Q^T */
            ok = ok && cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, seq, seq, HEAD_DIM, &one, dk, HEAD_DIM, dq,
                                   HEAD_DIM, &zero, ds, seq) == CUBLAS_STATUS_SUCCESS;
            ok = ok && cudaMemcpy(hs, ds, nn * 4, cudaMemcpyDeviceToHost) == cudaSuccess;
            for (int i = 0; ok && i < seq; i++) { /* P = softmax(scale S), keys after the query masked */
                float *row = hs + (size_t)i * seq;
                int keys = causal ? i + 1 : seq;
                double max = -INFINITY, sum = 0.0;
                for (int j = 0; j < keys; j++)
                    max = fmax(max, (double)scale * row[j]);
                for (int j = 0; j < keys; j++)
                    sum += exp((double)scale * row[j] - max);
                for (int j = 0; j < seq; j++)
                    row[j] = j < keys ? (float)(exp((double)scale * row[j] - max) / sum) : 0.0f;
            }
            ok = ok && cudaMemcpy(ds, hs, nn * 4, cudaMemcpyHostToDevice) == cudaSuccess;
            /* row-major O = P V is column-major O^T = V^T P^T */
            ok = ok && cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, HEAD_DIM, seq, seq, &one, dv, HEAD_DIM, ds, seq,
                                   &zero, dout, HEAD_DIM) == CUBLAS_STATUS_SUCCESS;
            ok = ok && cudaMemcpy(ho, dout, nd * 4, cudaMemcpyDeviceToHost) == cudaSuccess;
            for (int s = 0; ok && s < seq; s++)
                for (int d = 0; d < HEAD_DIM; d++)
                    out[row_at(bnhd, b, h, s, heads, seq) + d] = (ELEM)ho[(size_t)s * HEAD_DIM + d];
        }
    if (handle)
        cublasDestroy(handle);
    cudaFree(dq), cudaFree(dk), cudaFree(dv), cudaFree(ds), cudaFree(dout);
    free(hq), free(hk), free(hv), free(hs), free(ho);
    return ok;
}

/* A long sequence against the fp32 reference: the BHND kernel (bnhd 0)
 * or the BNHD one with kv_heads K/V heads. */
static void test_reference(int bnhd, int batch, int heads, int kv_heads, int seq, int causal)
{
    gc_case c;
    gc_begin(&c);
    gc_type t = elem_type();
    const float scale = 1.0f / sqrtf((float)HEAD_DIM);
    size_t nq = (size_t)batch * seq * heads * HEAD_DIM, nkv = (size_t)batch * seq * kv_heads * HEAD_DIM;
    gc_buf *q = gc_in(&c, t, nq, 0), *k = gc_in(&c, t, nkv, 0), *v = gc_in(&c, t, nkv, 0);
    gc_buf *o = gc_out(&c, t, nq, 0, t == GC_F16 ? TOL_REFERENCE : TOL_REFERENCE_BF16);
    if (!reference_attention(bnhd, batch, heads, kv_heads, seq, causal, scale, q->host, k->host, v->host, o->host))
        gc_fail(&c, "the cuBLAS reference failed");
    cudaError_t launch =
        bnhd ? flash_attention_gqa_gpu(batch, heads, kv_heads, seq, causal, scale, q->dev, k->dev, v->dev, o->dev)
             : flash_attention_gpu(batch, heads, seq, causal, scale, q->dev, k->dev, v->dev, o->dev);
    gc_finish(&c, launch, "attention %s vs fp32 cuBLAS reference %s d%d b%d h%d kv%d n%d%s", STR(ELEM),
              bnhd ? "BNHD" : "BHND", HEAD_DIM, batch, heads, kv_heads, seq, causal ? " causal" : "");
}

int main(int argc, char **argv)
{
    gc_require_gpu();
    /* --small (for the sanitizers, which run kernels far slower and would
     * check cuBLAS's own): no comparisons with the cuBLAS reference */
    const int small_only = argc > 1 && strcmp(argv[1], "--small") == 0;
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
    /* grouped-query attention, BNHD: 4 and 3 query heads per K/V head, and 1 */
    for (int causal = 0; causal < 2; causal++) {
        test_gqa(2, 8, 2, 300, causal, soft);
        test_gqa(1, 6, 2, 129, causal, sharp);
        test_gqa(1, 3, 3, 77, causal, soft);
    }
    for (int causal = 0; causal < 2 && !small_only; causal++) {
        test_reference(0, 1, 2, 2, 4096, causal);
        test_reference(0, 2, 1, 1, 3000, causal);
        test_reference(1, 1, 4, 2, 2500, causal);
    }
    return gc_summary();
}

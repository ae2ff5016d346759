/* flash_attention.c — FlashAttention forward, O = softmax(scale * Q K^T) V,
 * written as a C programmer would write it in the tile language, and its
 * own CPU reference when compiled as C.
 *
 * Q, K, V and O are [batch][heads][seq][HEAD_DIM] arrays of ELEM (half, or
 * bfloat16 with -DELEM=bfloat16), BHND. Each
 * block takes BM query rows of one head: Q's tile stays in shared memory,
 * a pipelined loop walks the keys BN at a time, loading K's and V's tiles;
 * S = Q K^T is a fragment, masked where a key tile needs it (keys past the
 * sequence; with `causal`, keys after the query: an `if` around the mask's
 * loop, which every thread of the block evaluates alike, skips it for the
 * tiles every query of the block sees whole) and turned into probabilities
 * with the online softmax (a running row maximum m and row sum l; when the
 * maximum grows, what was summed so far is rescaled by exp2(m_old -
 * m_new)); P, the probabilities rounded to ELEM, multiplies V's tile from
 * registers into the output fragment. The score matrix never touches memory. With
 * `causal`, the loop stops at the block's last query: the key tiles after
 * it are all masked, and never loaded.
 *
 * On Hopper the grid runs warp-specialized: a producer warpgroup copies Q
 * once and K and V for each step with TMA, consumer warpgroups of 64 rows
 * each multiply with wgmma, P from registers, each step's Q K^T issued
 * before the previous step's P V (lowering's software pipelining);
 * elsewhere warps of 16 rows use mma.sync. The file's tile sizes and stages
 * are the fastest of those measured on the H200 (bench/RESULTS.md); the
 * tuner tries a few more where only Hopper takes them (below).
 *
 * The softmax works in base 2: the running maximum m is of the raw scores,
 * and exp2f(s * c - m * c), with c = scale * log2(e), is exp(scale * (q.k -
 * max)) (one multiply-add a score). A row whose keys are all masked
 * (none, here: every query sees at least key 0) would keep m = -inf; the
 * `m == -INFINITY ? 0` guards keep such a row at 0 rather than NaN. */
#include <math.h>
#include <tilepp/tile.h>

/* The head dimension and the element type are compile-time constants, as
 * the tile sizes are: build the file with -DHEAD_DIM=64 or -DELEM=bfloat16
 * (for tilepp and the C compiler alike) for heads of 64 or 256, or bfloat16
 * data. */
#ifndef HEAD_DIM
#define HEAD_DIM 128
#endif
#ifndef ELEM
#define ELEM half
#endif
/* Blocks of BM query rows and two threads a row (on Hopper a consumer
 * warpgroup for each 64 rows, beside the producer warpgroup), key tiles of
 * BN columns: 64 for heads of 128, 128 for heads of 64, where 64 would
 * make each step's products too small for the tensor cores, and 32 for
 * heads of 256, where Q's tile takes 64 KB of shared memory and the stages
 * of wider K and V tiles would not fit beside it in the sm_80 kernel's
 * (bench/RESULTS.md). STAGES: the K and V tiles in flight. */
enum { BM = 128, BN = HEAD_DIM <= 64 ? 128 : HEAD_DIM <= 128 ? 64 : 32, THREADS = 2 * BM };
enum { STAGES = HEAD_DIM == 256 && BN >= 64 ? 2 : 3 };

/* Tuned on the GPU at hand (`#pragma tile tune`, below), besides the
 * values above (points that only Hopper's shared memory or registers take
 * are translated for sm_90a alone; the tuner passes over them elsewhere):
 * - at heads of 128, key tiles of 128 columns: in three stages they take
 *   224 KB of shared memory, which a Hopper block has and an sm_80 one
 *   does not (two stages of them are slower than three of 64;
 *   FlashAttention-3's 176-column tiles, in two stages, were slower than
 *   these on an H100, bench/RESULTS.md);
 * - at heads of 64 and 128, blocks of 192 rows: three consumer
 *   warpgroups (the sm_80 kernel's 384 threads have too few registers
 *   there but for 64-column key tiles at heads of 64). At heads of 64 with
 *   key tiles of 128 columns, FlashAttention-3's blocks, each consumer
 *   thread holds 138 fragment values in 160 registers, the producer's at
 *   32;
 * - at heads of 256, key tiles of 48 columns in three stages and of 64 and
 *   80 (FlashAttention-3's) in two: fewer and larger products than 32
 *   columns make.
 * flops: the work of a call (4 B H N^2 D, half of it when causal), for the
 * tuner's and the profiler's TFLOP/s. */

/* Heads whose query blocks are taken in turn (the grid's order, below): on the H200, 4 took
 * the causal runs 4-10% faster than a head at a time (bench/RESULTS.md) */
enum { HEAD_GROUP = 4 };
#if HEAD_DIM == 128
#pragma tile kernel threads(THREADS) flops(4.0 * batch * heads * seq * seq * HEAD_DIM / (causal ? 2 : 1))
#pragma tile tune BN(64, 128) BM(128, 192)
#elif HEAD_DIM == 64
#pragma tile kernel threads(THREADS) flops(4.0 * batch * heads * seq * seq * HEAD_DIM / (causal ? 2 : 1))
#pragma tile tune BM(128, 192) BN(64, 128)
#else
#pragma tile kernel threads(THREADS) flops(4.0 * batch * heads * seq * seq * HEAD_DIM / (causal ? 2 : 1))
#pragma tile tune BN(32, 48, 64, 80)
#endif
void flash_attention(int batch, int heads, int seq, int causal, float scale, const ELEM Q[batch][heads][seq][HEAD_DIM],
                     const ELEM K[batch][heads][seq][HEAD_DIM], const ELEM V[batch][heads][seq][HEAD_DIM],
                     ELEM O[batch][heads][seq][HEAD_DIM])
{
#pragma tile grid
    for (int t = 0; t < batch * heads * tile_cdiv(seq, BM); t++) {
        /* the blocks in the order they start (on Hopper a block that finishes takes the next):
         * in each batch the heads in groups of HEAD_GROUP, and in a group the query blocks of
         * its heads in turn, the last (with `causal`, the longest) first. Long and short
         * blocks then mix over the whole run, and the few heads in flight at once keep their
         * K and V in L2. */
        const int blocks = tile_cdiv(seq, BM), b = t / (heads * blocks), in_batch = t % (heads * blocks);
        const int h0 = in_batch / (HEAD_GROUP * blocks) * HEAD_GROUP;
        const int group = heads - h0 < HEAD_GROUP ? heads - h0 : HEAD_GROUP, in_group = in_batch - h0 * blocks;
        const int h = h0 + in_group % group, qb = blocks - 1 - in_group / group;
#pragma tile shared
        ELEM Qs[BM][HEAD_DIM], Ks[BN][HEAD_DIM], Vs[BN][HEAD_DIM];
#pragma tile fragment
        float S[BM][BN], Acc[BM][HEAD_DIM], m[BM], m_old[BM], l[BM], rescale[BM], row_sum[BM];
#pragma tile fragment
        ELEM P[BM][BN];
        const float scale_log2 = scale * 1.4426950408889634f;
        const int last_key = causal && (qb + 1) * BM < seq ? (qb + 1) * BM : seq;
        /* query q sees keys below min(q + reach, seq): causal as data, not as a branch in
         * the loop (which the compiler would split the loop's body around) */
        const int reach = causal ? 1 : seq;
        /* keys below `unmasked` are seen by every query of the block: only the key tiles
         * that reach past it (the diagonal ones, with `causal`, and the sequence's last)
         * need the mask */
        const int unmasked = qb * BM + reach < seq ? qb * BM + reach : seq;
        tile_load(Qs, Q[b][h], qb * BM, 0, seq, HEAD_DIM);
        tile_clear(Acc);
        tile_fill(m, -INFINITY);
        tile_clear(l);
#pragma tile pipelined stages(STAGES)
        for (int kb = 0; kb < tile_cdiv(last_key, BN); kb++) {
            tile_load(Ks, K[b][h], kb * BN, 0, seq, HEAD_DIM);
            tile_load(Vs, V[b][h], kb * BN, 0, seq, HEAD_DIM);
            tile_clear(S);
            tile_gemm_nt(Qs, Ks, S);
            if (kb * BN + BN > unmasked) {
#pragma tile parallel
                for (int i = 0; i < BM; i++)
                    for (int j = 0; j < BN; j++) {
                        /* keys from `limit` on are masked: past the sequence, or (causal) after the
                         * query */
                        const int query = qb * BM + i, limit = query + reach < seq ? query + reach : seq;
                        if (kb * BN + j >= limit)
                            S[i][j] = -INFINITY;
                    }
            }
            tile_copy(m_old, m);
            tile_reduce_max(S, m, 1, 0);
#pragma tile parallel
            for (int i = 0; i < BM; i++) {
                const float m_scaled = m[i] == -INFINITY ? 0.0f : m[i] * scale_log2;
                rescale[i] = exp2f(m_old[i] * scale_log2 - m_scaled);
            }
#pragma tile parallel
            for (int i = 0; i < BM; i++)
                for (int j = 0; j < BN; j++)
                    S[i][j] = exp2f(S[i][j] * scale_log2 - (m[i] == -INFINITY ? 0.0f : m[i] * scale_log2));
            tile_reduce_sum(S, row_sum, 1, 1);
#pragma tile parallel
            for (int i = 0; i < BM; i++)
                l[i] = l[i] * rescale[i] + row_sum[i];
#pragma tile parallel
            for (int i = 0; i < BM; i++)
                for (int j = 0; j < HEAD_DIM; j++)
                    Acc[i][j] *= rescale[i];
            tile_copy(P, S);
            tile_gemm(P, Vs, Acc);
        }
#pragma tile parallel
        for (int i = 0; i < BM; i++)
            l[i] = l[i] > 0.0f ? 1.0f / l[i] : 0.0f; /* l becomes its reciprocal: a division a row, not an element */
#pragma tile parallel
        for (int i = 0; i < BM; i++)
            for (int j = 0; j < HEAD_DIM; j++)
                Acc[i][j] *= l[i];
        tile_store(O[b][h], Acc, qb * BM, 0, seq, HEAD_DIM);
    }
}

/* The same attention for the layout most models keep ([batch][seq][heads]
 * [HEAD_DIM], BNHD) and with grouped-query attention: kv_heads K and V
 * heads (heads a multiple of kv_heads), query head h reading K and V head
 * h / (heads / kv_heads); kv_heads == heads is plain multi-head attention.
 * A head's rows are then a slice of columns of the [seq][heads * HEAD_DIM]
 * matrix of its batch, which the loads and the store index directly. */
#pragma tile kernel threads(THREADS)
void flash_attention_gqa(int batch, int heads, int kv_heads, int seq, int causal, float scale,
                         const ELEM Q[batch][seq][heads * HEAD_DIM], const ELEM K[batch][seq][kv_heads * HEAD_DIM],
                         const ELEM V[batch][seq][kv_heads * HEAD_DIM], ELEM O[batch][seq][heads * HEAD_DIM])
{
#pragma tile grid
    for (int t = 0; t < batch * heads * tile_cdiv(seq, BM); t++) {
        /* the blocks in the order they start (on Hopper a block that finishes takes the next):
         * in each batch the heads in groups of HEAD_GROUP, and in a group the query blocks of
         * its heads in turn, the last (with `causal`, the longest) first. Long and short
         * blocks then mix over the whole run, and the few heads in flight at once keep their
         * K and V in L2. */
        const int blocks = tile_cdiv(seq, BM), b = t / (heads * blocks), in_batch = t % (heads * blocks);
        const int h0 = in_batch / (HEAD_GROUP * blocks) * HEAD_GROUP;
        const int group = heads - h0 < HEAD_GROUP ? heads - h0 : HEAD_GROUP, in_group = in_batch - h0 * blocks;
        const int h = h0 + in_group % group, qb = blocks - 1 - in_group / group;
#pragma tile shared
        ELEM Qs[BM][HEAD_DIM], Ks[BN][HEAD_DIM], Vs[BN][HEAD_DIM];
#pragma tile fragment
        float S[BM][BN], Acc[BM][HEAD_DIM], m[BM], m_old[BM], l[BM], rescale[BM], row_sum[BM];
#pragma tile fragment
        ELEM P[BM][BN];
        const float scale_log2 = scale * 1.4426950408889634f;
        const int last_key = causal && (qb + 1) * BM < seq ? (qb + 1) * BM : seq;
        /* query q sees keys below min(q + reach, seq): causal as data, not as a branch in
         * the loop (which the compiler would split the loop's body around) */
        const int reach = causal ? 1 : seq;
        /* keys below `unmasked` are seen by every query of the block: only the key tiles
         * that reach past it (the diagonal ones, with `causal`, and the sequence's last)
         * need the mask */
        const int unmasked = qb * BM + reach < seq ? qb * BM + reach : seq;
        const int kv = h / (heads / kv_heads); /* the K and V head of query head h */
        tile_load(Qs, Q[b], qb * BM, h * HEAD_DIM, seq, heads * HEAD_DIM);
        tile_clear(Acc);
        tile_fill(m, -INFINITY);
        tile_clear(l);
#pragma tile pipelined stages(3)
        for (int kb = 0; kb < tile_cdiv(last_key, BN); kb++) {
            tile_load(Ks, K[b], kb * BN, kv * HEAD_DIM, seq, kv_heads * HEAD_DIM);
            tile_load(Vs, V[b], kb * BN, kv * HEAD_DIM, seq, kv_heads * HEAD_DIM);
            tile_clear(S);
            tile_gemm_nt(Qs, Ks, S);
            if (kb * BN + BN > unmasked) {
#pragma tile parallel
                for (int i = 0; i < BM; i++)
                    for (int j = 0; j < BN; j++) {
                        /* keys from `limit` on are masked: past the sequence, or (causal) after the
                         * query */
                        const int query = qb * BM + i, limit = query + reach < seq ? query + reach : seq;
                        if (kb * BN + j >= limit)
                            S[i][j] = -INFINITY;
                    }
            }
            tile_copy(m_old, m);
            tile_reduce_max(S, m, 1, 0);
#pragma tile parallel
            for (int i = 0; i < BM; i++) {
                const float m_scaled = m[i] == -INFINITY ? 0.0f : m[i] * scale_log2;
                rescale[i] = exp2f(m_old[i] * scale_log2 - m_scaled);
            }
#pragma tile parallel
            for (int i = 0; i < BM; i++)
                for (int j = 0; j < BN; j++)
                    S[i][j] = exp2f(S[i][j] * scale_log2 - (m[i] == -INFINITY ? 0.0f : m[i] * scale_log2));
            tile_reduce_sum(S, row_sum, 1, 1);
#pragma tile parallel
            for (int i = 0; i < BM; i++)
                l[i] = l[i] * rescale[i] + row_sum[i];
#pragma tile parallel
            for (int i = 0; i < BM; i++)
                for (int j = 0; j < HEAD_DIM; j++)
                    Acc[i][j] *= rescale[i];
            tile_copy(P, S);
            tile_gemm(P, Vs, Acc);
        }
#pragma tile parallel
        for (int i = 0; i < BM; i++)
            l[i] = l[i] > 0.0f ? 1.0f / l[i] : 0.0f; /* l becomes its reciprocal: a division a row, not an element */
#pragma tile parallel
        for (int i = 0; i < BM; i++)
            for (int j = 0; j < HEAD_DIM; j++)
                Acc[i][j] *= l[i];
        tile_store(O[b], Acc, qb * BM, h * HEAD_DIM, seq, heads * HEAD_DIM);
    }
}

/* test_sm90.c — lower_sm90.c: which grids get a warp-specialized sm_90a
 * variant, its consumer warpgroups, the swizzle of each shared tile from its
 * role in the product, the shared-memory layout with the epilogue's staging
 * buffers and the barriers, the TMA stores, registers and blocks per SM; and
 * the reason recorded (never an error) when a grid keeps its sm_80 kernel on
 * Hopper. */
#include "unit.h"

#include <string.h>

/* C = op(A) op(B) over BM x BN x BK tiles with `threads` threads; A_T / B_T
 * choose the stored layouts (A K x M, B N x K), OUT the output type, and
 * `extra` goes after the store (line 22). */
static const char *gemm_src(int threads, int bm, int bn, int bk, int stages, bool a_t, bool b_t, const char *out,
                            const char *extra)
{
    const char *call = a_t ? (b_t ? "tile_gemm_tt" : "tile_gemm_tn") : (b_t ? "tile_gemm_nt" : "tile_gemm");
    return aprintf("#include <tilepp/tile.h>\n"                                                    /* 1 */
                   "\n"                                                                            /* 2 */
                   "#pragma tile kernel threads(%d)\n"                                             /* 3 */
                   "void g(int M, int N, int K, const half A[%s], const half B[%s], %s C[M][N])\n" /* 4 */
                   "{\n"                                                                           /* 5 */
                   "#pragma tile grid\n"                                                           /* 6 */
                   "    for (int by = 0; by < tile_cdiv(M, %d); by++)\n"                           /* 7 */
                   "        for (int bx = 0; bx < tile_cdiv(N, %d); bx++) {\n"                     /* 8 */
                   "#pragma tile shared\n"                                                         /* 9 */
                   "            half As[%d][%d], Bs[%d][%d];\n"                                    /* 10 */
                   "#pragma tile fragment\n"                                                       /* 11 */
                   "            float Cf[%d][%d];\n"                                               /* 12 */
                   "            tile_clear(Cf);\n"                                                 /* 13 */
                   "#pragma tile pipelined stages(%d)\n"                                           /* 14 */
                   "            for (int k = 0; k < tile_cdiv(K, %d); k++) {\n"                    /* 15 */
                   "                tile_load(As, A, %s, %s, %s, %s);\n"                           /* 16 */
                   "                tile_load(Bs, B, %s, %s, %s, %s);\n"                           /* 17 */
                   "                %s(As, Bs, Cf);\n"                                             /* 18 */
                   "            }\n"                                                               /* 19 */
                   "            tile_store(C, Cf, by * %d, bx * %d, M, N);\n"                      /* 20 */
                   "%s"                                                                            /* 21.. */
                   "        }\n"
                   "}\n",
                   threads, a_t ? "K][M" : "M][K", b_t ? "N][K" : "K][N", out, bm, bn, a_t ? bk : bm, a_t ? bm : bk,
                   b_t ? bn : bk, b_t ? bk : bn, bm, bn, stages, bk, a_t ? "k * BK_" : "by * BM_",
                   a_t ? "by * BM_" : "k * BK_", a_t ? "K" : "M", a_t ? "M" : "K", b_t ? "bx * BN_" : "k * BK_",
                   b_t ? "k * BK_" : "bx * BN_", b_t ? "N" : "K", b_t ? "K" : "N", call, bm, bn, extra ? extra : "");
}

/* gemm_src with the tile sizes as the macros its loads use. */
static const char *gemm(int threads, int bm, int bn, int bk, int stages, bool a_t, bool b_t, const char *out,
                        const char *extra)
{
    return aprintf("#define BM_ %d\n#define BN_ %d\n#define BK_ %d\n%s", bm, bn, bk,
                   gemm_src(threads, bm, bn, bk, stages, a_t, b_t, out, extra));
}

static const GridPlan *plan_of(const char *src, unsigned archs)
{
    Plan *plan = unit_lower_archs(src, archs);
    if (!plan)
        fail_msg("not translated:\n%s", unit_diag());
    assert_int_equal(diag_error_count(), 0);
    return unit_grid_plan(plan, "g", 0);
}

static const Sm90Tile *tile(const Sm90Plan *p, int i)
{
    assert_true(i < p->tiles.len);
    return p->tiles.items[i];
}

/* The brief's schedule: one consumer warpgroup, A (K-major, 64-byte rows)
 * in the 64-byte swizzle, B (N-major, 128 columns) in the 128-byte one. */
static void brief_schedule(void **state)
{
    (void)state;
    const GridPlan *gp = plan_of(gemm(128, 128, 128, 32, 3, false, false, "half", NULL), ARCH_SM80 | ARCH_SM90A);
    const Sm90Plan *p = gp->sm90;
    assert_non_null(p);
    assert_null(gp->sm90_why);
    assert_int_equal(p->groups_m, 1);
    assert_int_equal(p->groups_n, 1);
    assert_int_equal(p->threads, 256); /* the producer warpgroup added */
    assert_int_equal(p->tiles.len, 2);
    assert_string_equal(tile(p, 0)->buf->name, "As");
    assert_int_equal(tile(p, 0)->swizzle, 64);
    assert_int_equal(tile(p, 0)->offset, 0);
    assert_int_equal(tile(p, 0)->bytes, 8192);
    assert_string_equal(tile(p, 1)->buf->name, "Bs");
    assert_int_equal(tile(p, 1)->swizzle, 128);
    assert_int_equal(tile(p, 1)->offset, 3 * 8192);
    assert_int_equal(p->stage_bytes, 16384);
    /* the store of half goes out in 64-column chunks through 2 x 8 KB */
    assert_int_equal(p->stores.len, 1);
    assert_int_equal(((const Sm90Store *)p->stores.items[0])->chunk_cols, 64);
    assert_false(((const Sm90Store *)p->stores.items[0])->origin_test); /* by * 128, bx * 128: never negative */
    assert_int_equal(((const Sm90Store *)p->stores.items[0])->c0_multiple, 8);
    assert_int_equal(p->epilogue, 6 * 8192);
    assert_int_equal(p->barriers, 6 * 8192 + 16384);
    assert_int_equal(p->smem_bytes, 6 * 8192 + 16384 + 3 * 16 + 1024);
    /* two blocks per SM: launched with 128 registers a thread, the
     * consumers take the producer's (128 - 40) x 128 more, 216 each, room
     * for the 128 accumulator values */
    assert_int_equal(p->min_blocks, 2);
    assert_int_equal(p->consumer_regs, 216);
    /* 2 x 3 stages of 16 KB in flight: enough for wgmma */
    assert_int_equal(p->in_flight, 2 * 3 * 16384);
    assert_false(p->shallow);
    /* every tile's k loop is as long: every gridDim.x-th tile, no queue */
    assert_false(p->dynamic);
}

/* The brief's tiles with 2 stages: 64 KB in flight on two blocks is the
 * least the launcher takes the variant with; with 1 stage, 32 KB, it
 * prefers the sm_80 kernel unless TILEPP_PATH=sm90. */
static void in_flight_threshold(void **state)
{
    (void)state;
    const GridPlan *gp = plan_of(gemm(128, 128, 128, 32, 2, false, false, "half", NULL), ARCH_SM80 | ARCH_SM90A);
    assert_int_equal(gp->sm90->in_flight, SM90_MIN_IN_FLIGHT);
    assert_false(gp->sm90->shallow);
    gp = plan_of(gemm(128, 128, 128, 32, 1, false, false, "half", NULL), ARCH_SM80 | ARCH_SM90A);
    assert_int_equal(gp->sm90->in_flight, SM90_MIN_IN_FLIGHT / 2);
    assert_true(gp->sm90->shallow);
}

/* 128 x 256 over 2 consumer warpgroups, 64 rows each; the producer gives
 * its registers to them (setmaxnreg). B given N x K is K-major; float
 * output comes in 32-column chunks. */
static void two_consumer_groups(void **state)
{
    (void)state;
    const GridPlan *gp = plan_of(gemm(256, 128, 256, 64, 3, false, true, "float", NULL), ARCH_SM80 | ARCH_SM90A);
    const Sm90Plan *p = gp->sm90;
    assert_non_null(p);
    assert_int_equal(p->groups_m, 2);
    assert_int_equal(p->groups_n, 1);
    assert_false(p->pingpong); /* 256 accumulator values a thread in one warpgroup: too many */
    assert_int_equal(p->consumers, 2);
    assert_int_equal(p->threads, 384);
    assert_int_equal(tile(p, 0)->swizzle, 128); /* A: 64 halves of K */
    assert_int_equal(tile(p, 1)->swizzle, 128); /* B^T: 64 halves of K */
    assert_int_equal(((const Sm90Store *)p->stores.items[0])->chunk_cols, 32);
    assert_int_equal(((const Sm90Store *)p->stores.items[0])->c0_multiple, 4); /* 16 bytes of float */
    assert_int_equal(p->min_blocks, 1);
    assert_int_equal(p->consumer_regs, 232); /* (65536 - 128 x 40) / 256, in steps of 8 */
    assert_int_equal(p->producer_regs, 40);  /* 128 values and 32 more fit 232: the producer keeps its 40 */
    assert_int_equal(p->epilogue, 3 * (16384 + 32768));
    assert_int_equal(p->barriers, p->epilogue + 2 * 16384);
    assert_int_equal(p->in_flight, 3 * (16384 + 32768));
    assert_false(p->shallow);
}

/* A second store of the accumulator at a window that may start before the
 * matrix (M - by * 128 is negative in the last blocks when M is not a
 * multiple of 128): TMA takes it only where its origin is not negative at
 * run time; the first store's origin never is. */
static void store_origin_tested(void **state)
{
    (void)state;
    const GridPlan *gp = plan_of(gemm(128, 128, 128, 32, 3, false, false, "half",
                                      "            tile_store(C, Cf, M - by * 128, bx * 128, M, N);\n"),
                                 ARCH_SM80 | ARCH_SM90A);
    const Sm90Plan *p = gp->sm90;
    assert_non_null(p);
    assert_int_equal(p->stores.len, 2);
    assert_false(((const Sm90Store *)p->stores.items[0])->origin_test);
    assert_true(((const Sm90Store *)p->stores.items[1])->origin_test);
    assert_int_equal(((const Sm90Store *)p->stores.items[1])->c0_multiple, 8);
}

/* A stored K x M (MN-major): panels split the 64 rows of a wgmma. B stored
 * K x N: panels of the warpgroup's 32 columns, so 64 bytes. */
static void mn_major_swizzles(void **state)
{
    (void)state;
    const GridPlan *gp = plan_of(gemm(256, 64, 32, 32, 2, true, false, "half", NULL), ARCH_SM80 | ARCH_SM90A);
    const Sm90Plan *p = gp->sm90;
    assert_non_null(p);
    /* 64 x 32: one warpgroup holds it, and the two take turns */
    assert_true(p->pingpong);
    assert_int_equal(p->groups_m, 1);
    assert_int_equal(p->groups_n, 1);
    assert_int_equal(tile(p, 0)->swizzle, 128);
    assert_int_equal(tile(p, 1)->swizzle, 64);
    /* 32 columns of half are not whole 64-column chunks: the store goes
     * out from registers */
    assert_int_equal(p->stores.len, 0);
    assert_int_equal(p->barriers, p->epilogue);
    /* 16 accumulator values a thread and 14 KB: two blocks per SM, each
     * launched with 80 registers a thread; the consumers get 96 */
    assert_int_equal(p->min_blocks, 2);
    assert_int_equal(p->consumer_regs, 96);
    assert_int_equal(p->in_flight, 2 * 2 * (4096 + 2048)); /* two blocks of two stages */
    assert_true(p->shallow);
}

/* Ping-pong: a 128 x 128 accumulator fits one warpgroup, so each of the two
 * consumers takes every other tile of the block whole (4 warps release a
 * stage), each with its own staging buffers, and the pair of turn barriers
 * follows the stages' barriers. One warpgroup, two products in the loop, a
 * preload or an accumulator too big for one warpgroup keep the tiles
 * shared (two_consumer_groups, attention_mainloop). */
static void pingpong(void **state)
{
    (void)state;
    const GridPlan *gp = plan_of(gemm(256, 128, 128, 64, 4, false, false, "half", NULL), ARCH_SM80 | ARCH_SM90A);
    const Sm90Plan *p = gp->sm90;
    assert_non_null(p);
    assert_true(p->pingpong);
    assert_int_equal(p->consumers, 2);
    assert_int_equal(p->groups_m, 1);
    assert_int_equal(p->groups_n, 1);
    assert_int_equal(p->threads, 384);
    assert_int_equal(tile(p, 1)->swizzle, 128); /* B: panels of 64 of the tile's 128 columns */
    assert_int_equal(p->stores.len, 1);
    assert_int_equal(p->epilogue, 4 * (16384 + 16384));
    assert_int_equal(p->barriers, p->epilogue + 2 * 16384); /* a staging pair per consumer */
    assert_int_equal(p->pre_barriers, p->barriers + 4 * 16);
    assert_int_equal(p->smem_bytes, p->pre_barriers + 16 + 1024);
    assert_int_equal(p->min_blocks, 1);
    assert_int_equal(p->consumer_regs, 232);
    assert_false(p->rotated);
    /* a 64 x 256 block with a row statistic (128 + 2 values a thread) */
    const char *row_max = "#pragma tile fragment\n"
                          "            float mx[64];\n"
                          "            tile_reduce_max(Cf, mx, 1, 1);\n";
    gp = plan_of(gemm(256, 64, 256, 64, 3, false, false, "half", row_max), ARCH_SM80 | ARCH_SM90A);
    assert_non_null(gp->sm90);
    assert_true(gp->sm90->pingpong);
    /* one consumer warpgroup has no one to take turns with */
    gp = plan_of(gemm(128, 128, 128, 64, 4, false, false, "half", NULL), ARCH_SM80 | ARCH_SM90A);
    assert_false(gp->sm90->pingpong);
    assert_int_equal(gp->sm90->consumers, 1);
}

/* Only what --arch asks for: no variant for sm_80 alone, and no reason. */
static void sm80_only(void **state)
{
    (void)state;
    const GridPlan *gp = plan_of(gemm(128, 128, 128, 32, 3, false, false, "half", NULL), ARCH_SM80);
    assert_null(gp->sm90);
    assert_null(gp->sm90_why);
}

static void expect_reason(const char *src, const char *why)
{
    const GridPlan *gp = plan_of(src, ARCH_SM80 | ARCH_SM90A);
    assert_null(gp->sm90);
    assert_non_null(gp->sm90_why);
    assert_string_equal(gp->sm90_why, why);
}

/* Grids the sm_80 kernel takes on Hopper too, each with its reason. */
static void reasons(void **state)
{
    (void)state;
    expect_reason(gemm(192, 64, 192, 32, 2, false, false, "half", NULL), /* 6 warps */
                  "threads() is not a whole number of 128-thread warpgroups");
    /* 8 consumer warpgroups and the producer: more threads than a block may have */
    expect_reason(gemm(1024, 128, 256, 64, 3, false, false, "float", NULL),
                  "with its producer warpgroup a block would have 1152 threads, more than the 1024 CUDA allows");
    /* an extent the launcher cannot evaluate: it reads a grid variable */
    const char *src = gemm(128, 64, 64, 32, 2, false, false, "half", NULL);
    const char *from = "tile_load(As, A, by * BM_, k * BK_, M, K)";
    const char *at = strstr(src, from);
    assert_non_null(at);
    expect_reason(
        aprintf("%.*stile_load(As, A, by * BM_, k * BK_, M - by, K)%s", (int)(at - src), src, at + strlen(from)),
        "a load's matrix extents depend on values only the kernel has (read from memory, or the grid's "
        "variables), where the launcher makes its tensor map");
    /* a float shared tile loaded before the loop (products read 16-bit tiles) */
    src = gemm(128, 64, 64, 32, 2, false, false, "half", NULL);
    from = "            tile_clear(Cf);\n";
    at = strstr(src, from);
    assert_non_null(at);
    expect_reason(aprintf("%.*s#pragma tile shared\n            float Fs[64][32];\n"
                          "            tile_load(Fs, A, by * BM_, 0, M, K);\n%s",
                          (int)(at - src), src, at),
                  "a load fills a 2-D shared tile of float, which the wgmma kernel has no use for (its products read "
                  "half and bfloat16 tiles)");
    /* a row reduction over a 64-row tile with two consumer warpgroups:
     * they could share the accumulator by columns, but the reduction needs
     * whole rows, and the two fragments are too many registers for one
     * warpgroup to hold alone (ping-pong) */
    expect_reason(
        "#include <tilepp/tile.h>\n"
        "#pragma tile kernel threads(256)\n"
        "void g(int M, int K, const half A[M][K], const half B[K][256], float s[M])\n"
        "{\n"
        "#pragma tile grid\n"
        "    for (int by = 0; by < tile_cdiv(M, 64); by++) {\n"
        "#pragma tile shared\n"
        "        half As[64][64], Bs[64][256];\n"
        "#pragma tile fragment\n"
        "        float acc[64][256], sq[64][256], rs[64];\n"
        "        tile_clear(acc);\n"
        "#pragma tile pipelined stages(2)\n"
        "        for (int k = 0; k < tile_cdiv(K, 64); k++) {\n"
        "            tile_load(As, A, by * 64, k * 64, M, K);\n"
        "            tile_load(Bs, B, k * 64, 0, K, 256);\n"
        "            tile_gemm(As, Bs, acc);\n"
        "        }\n"
        "#pragma tile parallel\n"
        "        for (int i = 0; i < 64; i++)\n"
        "            for (int j = 0; j < 256; j++)\n"
        "                sq[i][j] = acc[i][j] * acc[i][j];\n"
        "        tile_reduce_sum(sq, rs, 1, 1);\n"
        "        tile_store(s, rs, by * 64, M);\n"
        "    }\n"
        "}\n",
        "each consumer warpgroup must hold whole rows of 'acc' (a fragment of its rows, as a row reduction "
        "writes, or a product from registers), and its 64 rows do not split into a multiple of 64 for each of "
        "the 2 warpgroups");
}

/* FlashAttention at head dim d over `rows` query rows and `cols` keys a
 * step, two threads a row (a consumer warpgroup a 64 rows on Hopper), with
 * the online softmax's five row statistics, as a user writes it. */
static const char *attention_src(int rows, int cols, int d)
{
    return aprintf("#include <math.h>\n"
                   "#include <tilepp/tile.h>\n"
                   "enum { BM = %d, BN = %d, D = %d };\n"
                   "#pragma tile kernel threads(2 * BM)\n"
                   "void g(int n, const half Q[n][D], const half K[n][D], const half V[n][D], half O[n][D])\n"
                   "{\n"
                   "#pragma tile grid\n"
                   "    for (int qb = 0; qb < tile_cdiv(n, BM); qb++) {\n"
                   "#pragma tile shared\n"
                   "        half Qs[BM][D], Ks[BN][D], Vs[BN][D];\n"
                   "#pragma tile fragment\n"
                   "        float S[BM][BN], Acc[BM][D], m[BM], m_old[BM], l[BM], rescale[BM], row_sum[BM];\n"
                   "#pragma tile fragment\n"
                   "        half P[BM][BN];\n"
                   "        tile_load(Qs, Q, qb * BM, 0, n, D);\n"
                   "        tile_clear(Acc);\n"
                   "        tile_fill(m, -INFINITY);\n"
                   "        tile_clear(l);\n"
                   "#pragma tile pipelined stages(2)\n"
                   "        for (int kb = 0; kb < tile_cdiv(n, BN); kb++) {\n"
                   "            tile_load(Ks, K, kb * BN, 0, n, D);\n"
                   "            tile_load(Vs, V, kb * BN, 0, n, D);\n"
                   "            tile_clear(S);\n"
                   "            tile_gemm_nt(Qs, Ks, S);\n"
                   "            tile_copy(m_old, m);\n"
                   "            tile_reduce_max(S, m, 1, 0);\n"
                   "#pragma tile parallel\n"
                   "            for (int i = 0; i < BM; i++)\n"
                   "                rescale[i] = expf(m_old[i] - m[i]);\n"
                   "#pragma tile parallel\n"
                   "            for (int i = 0; i < BM; i++)\n"
                   "                for (int j = 0; j < BN; j++)\n"
                   "                    S[i][j] = expf(S[i][j] - m[i]);\n"
                   "            tile_reduce_sum(S, row_sum, 1, 1);\n"
                   "#pragma tile parallel\n"
                   "            for (int i = 0; i < BM; i++)\n"
                   "                l[i] = l[i] * rescale[i] + row_sum[i];\n"
                   "#pragma tile parallel\n"
                   "            for (int i = 0; i < BM; i++)\n"
                   "                for (int j = 0; j < D; j++)\n"
                   "                    Acc[i][j] *= rescale[i];\n"
                   "            tile_copy(P, S);\n"
                   "            tile_gemm(P, Vs, Acc);\n"
                   "        }\n"
                   "        tile_store(O, Acc, qb * BM, 0, n, D);\n"
                   "    }\n"
                   "}\n",
                   rows, cols, d);
}

/* Registers on Hopper: the consumers' fragments (P once: the rotated loop
 * writes each step's P after the product that reads the last one) and 22
 * registers more beside them for products of at most 128 columns, 32 for
 * wider ones. FlashAttention-3's blocks at head dim 64, 192 query rows and
 * 128 keys a step: three consumer warpgroups of 138 + 22 registers, which
 * the producer's 40 leave too few of (152): it gives up 8. */
static void attention_three_consumers(void **state)
{
    (void)state;
    const char *src = attention_src(192, 128, 64);
    const GridPlan *gp = plan_of(src, ARCH_SM90A);
    const Sm90Plan *p = gp->sm90;
    if (!p)
        fail_msg("no sm_90a variant: %s", gp->sm90_why);
    assert_int_equal(p->consumers, 3);
    assert_int_equal(p->threads, 512);
    assert_int_equal(p->min_blocks, 1);
    assert_int_equal(p->fragment_regs, 138);
    assert_int_equal(p->producer_regs, 32);
    assert_int_equal(p->consumer_regs, 160); /* (128 x 512 - 128 x 32) / 384, in steps of 8 */
    /* the sm_80 kernel's 384 threads have too few: asked for sm_80 too, the
     * file is refused, at its fragments (a tuned point is kept for sm_90a
     * alone, tune.c) */
    assert_null(unit_lower_archs(src, ARCH_SM80 | ARCH_SM90A));
    if (!strstr(unit_diag(), "unit_input.c:12:15: error: the block's fragments would hold"))
        fail_msg("%s", unit_diag());
}

/* Head dim 128, 176 keys a step: two consumer warpgroups of 206 + 32
 * registers (the product Q K^T has 176 columns); the producer drops to 24
 * so that they get 240. */
static void attention_producer_least(void **state)
{
    (void)state;
    const GridPlan *gp = plan_of(attention_src(128, 176, 128), ARCH_SM90A);
    const Sm90Plan *p = gp->sm90;
    if (!p)
        fail_msg("no sm_90a variant: %s", gp->sm90_why);
    assert_int_equal(p->consumers, 2);
    assert_int_equal(p->fragment_regs, 206);
    assert_int_equal(p->producer_regs, 24);
    assert_int_equal(p->consumer_regs, 240); /* (168 x 384 - 128 x 24) / 256 */
}

/* Too many for the consumers' registers even with the producer at 24: 192
 * query rows at head dim 128 and 128 keys a step want 170 + 22 registers,
 * three warpgroups have 160. For sm_90a alone, the sm_90a kernel refuses
 * the grid, and the sm_80 kernel's budget, which then binds, says why, and
 * the sm_90a variant's reason after it (one error). */
static void attention_too_wide(void **state)
{
    (void)state;
    assert_null(unit_lower_archs(attention_src(192, 128, 128), ARCH_SM90A));
    assert_int_equal(diag_error_count(), 1);
    if (!strstr(unit_diag(), "error: the block's fragments would hold 165 values") ||
        !strstr(unit_diag(), "; nor does the sm_90a variant take the block: its consumers would hold 170 fragment "
                             "values a thread in 160 registers, and need 22 more for addresses and operands"))
        fail_msg("%s", unit_diag());
}

/* An attention mainloop: Q preloaded before the loop (one copy, its own
 * barriers, first among the producer's tiles), K and V in the stages, two
 * products (the second with A from registers) with fragment work between
 * them, rotated (Sm90Plan.rotated) with counted waits. */
static void attention_mainloop(void **state)
{
    (void)state;
    const char *src = "#include <math.h>\n"
                      "#include <tilepp/tile.h>\n"
                      "#pragma tile kernel threads(256)\n"
                      "void g(int n, int causal, const half Q[n][64], const half K[n][64], const half V[n][64],\n"
                      "       half O[n][64])\n"
                      "{\n"
                      "#pragma tile grid\n"
                      "    for (int qb = 0; qb < tile_cdiv(n, 128); qb++) {\n"
                      "#pragma tile shared\n"
                      "        half Qs[128][64], Ks[64][64], Vs[64][64];\n"
                      "#pragma tile fragment\n"
                      "        float S[128][64], Acc[128][64], m[128], l[128];\n"
                      "#pragma tile fragment\n"
                      "        half P[128][64];\n"
                      "        const int last = causal ? (qb + 1) * 128 : n;\n"
                      "        const float unused_by_copies = 0.5f;\n"
                      "        tile_load(Qs, Q, qb * 128, 0, n, 64);\n"
                      "        tile_clear(Acc);\n"
                      "        tile_fill(m, -INFINITY);\n"
                      "        tile_clear(l);\n"
                      "#pragma tile pipelined stages(2)\n"
                      "        for (int kb = 0; kb < tile_cdiv(last, 64); kb++) {\n"
                      "            tile_load(Ks, K, kb * 64, 0, n, 64);\n"
                      "            tile_load(Vs, V, kb * 64, 0, n, 64);\n"
                      "            tile_clear(S);\n"
                      "            tile_gemm_nt(Qs, Ks, S);\n"
                      "            tile_reduce_max(S, m, 1, 0);\n"
                      "#pragma tile parallel\n"
                      "            for (int i = 0; i < 128; i++)\n"
                      "                for (int j = 0; j < 64; j++)\n"
                      "                    S[i][j] = expf(S[i][j] * unused_by_copies - m[i]);\n"
                      "            tile_reduce_sum(S, l, 1, 0);\n"
                      "            tile_copy(P, S);\n"
                      "            tile_gemm(P, Vs, Acc);\n"
                      "        }\n"
                      "        tile_store(O, Acc, qb * 128, 0, n, 64);\n"
                      "    }\n"
                      "}\n";
    const GridPlan *gp = plan_of(src, ARCH_SM80 | ARCH_SM90A);
    const Sm90Plan *p = gp->sm90;
    if (!p)
        fail_msg("no sm_90a variant: %s", gp->sm90_why);
    assert_int_equal(p->groups_m, 2); /* rows whole on each warpgroup */
    assert_int_equal(p->groups_n, 1);
    assert_false(p->pingpong); /* Q preloaded, two products an iteration: the warpgroups share each tile */
    assert_int_equal(p->tiles.len, 3);
    assert_string_equal(tile(p, 0)->buf->name, "Qs");
    assert_true(tile(p, 0)->preload);
    assert_false(tile(p, 1)->preload);
    assert_int_equal(p->pre_bytes, 128 * 64 * 2);
    assert_int_equal(p->stage_bytes, 2 * 64 * 64 * 2);
    assert_int_equal(tile(p, 1)->offset, tile(p, 0)->bytes); /* one copy of Q, then the stages */
    assert_true(p->pre_barriers >= p->barriers + 2 * 16);
    /* software-pipelined: the next S = Q K^T goes before this P V, which
     * runs under the softmax; the consumers wait for S alone before the
     * reduction (P V still running), for P V before P is overwritten */
    assert_true(p->rotated);
    const IrStmt *head = p->pipe->body.items[p->head], *tail = p->pipe->body.items[p->tail];
    assert_int_equal(head->op->kind, TILE_GEMM);
    assert_string_equal(head->op->c->name, "S");
    assert_int_equal(tail->op->kind, TILE_GEMM);
    assert_string_equal(tail->op->a->name, "P");
    assert_int_equal(p->tail, p->pipe->body.len - 1);
    assert_int_equal(p->waits.len, 2);
    const Sm90Wait *first = p->waits.items[0], *second = p->waits.items[1];
    assert_int_equal(first->before->op->kind, TILE_REDUCE);
    assert_int_equal(first->pending, 1);
    assert_int_equal(second->before->op->kind, TILE_COPY);
    assert_int_equal(second->pending, 0);
    /* the producer needs `last` (its loop bound), not the scale */
    assert_int_equal(p->producer_decls.len, 1);
    assert_string_equal(((const IrStmt *)p->producer_decls.items[0])->decl_names.items[0], "last");
    /* the loop's trip count reads `last`, which reads qb: the blocks take
     * the tiles from a counter, through a queue after the preloads'
     * barriers */
    assert_true(p->dynamic);
    assert_int_equal(p->queue, p->pre_barriers + 16);
    assert_true(p->queue + 24 * SM90_QUEUE_SLOTS + 1024 <= p->smem_bytes);
}

/* A loop of two products with fragment work between them, written with
 * `prologue` before its first product, `between` before the copy into the
 * second's A, and `stages` stages. */
static const Sm90Plan *two_products(const char *prologue, const char *between, int stages)
{
    const char *src =
        aprintf("#include <math.h>\n"
                "#include <tilepp/tile.h>\n"
                "#pragma tile kernel threads(256)\n"
                "void g(int n, const half A[n][64], const half B[64][n], const half C[n][64], half O[n][64])\n"
                "{\n"
                "#pragma tile grid\n"
                "    for (int rb = 0; rb < tile_cdiv(n, 128); rb++) {\n"
                "#pragma tile shared\n"
                "        half As[128][64], Bs[64][64], Cs[64][64];\n"
                "#pragma tile fragment\n"
                "        float S[128][64], Acc[128][64];\n"
                "#pragma tile fragment\n"
                "        half P[128][64];\n"
                "        tile_clear(Acc);\n"
                "#pragma tile pipelined stages(%d)\n"
                "        for (int kb = 0; kb < tile_cdiv(n, 64); kb++) {\n"
                "            tile_load(As, A, rb * 128, 0, n, 64);\n"
                "            tile_load(Bs, B, 0, kb * 64, 64, n);\n"
                "            tile_load(Cs, C, kb * 64, 0, n, 64);\n"
                "%s"
                "            tile_clear(S);\n"
                "            tile_gemm(As, Bs, S);\n"
                "#pragma tile parallel\n"
                "            for (int i = 0; i < 128; i++)\n"
                "                for (int j = 0; j < 64; j++)\n"
                "                    S[i][j] = S[i][j] > 0.0f ? S[i][j] : 0.0f;\n"
                "%s"
                "            tile_copy(P, S);\n"
                "            tile_gemm(P, Cs, Acc);\n"
                "        }\n"
                "        tile_store(O, Acc, rb * 128, 0, n, 64);\n"
                "    }\n"
                "}\n",
                stages, prologue, between);
    const GridPlan *gp = plan_of(src, ARCH_SM80 | ARCH_SM90A);
    if (!gp->sm90)
        fail_msg("no sm_90a variant: %s", gp->sm90_why);
    assert_false(gp->sm90->dynamic); /* tile_cdiv(n, 64) steps in every tile */
    return gp->sm90;
}

/* Rotation only where it changes no value and the stages allow it: not
 * when the statements before the first product touch the last product's
 * accumulator, nor with one stage (an iteration holds two); the in-order
 * loop keeps its last product in flight into the next iteration, so the
 * only wait is before the loop over S, for everything. */
static void rotation(void **state)
{
    (void)state;
    const Sm90Plan *p = two_products("", "", 2);
    assert_true(p->rotated);
    assert_int_equal(p->waits.len, 2); /* the loop over S (P Cs left running), the copy into P */
    assert_int_equal(((const Sm90Wait *)p->waits.items[0])->pending, 1);
    assert_int_equal(((const Sm90Wait *)p->waits.items[1])->pending, 0);
    /* the loop over S runs under P Cs: pinned before the second wait; the
     * first wait keeps the loop after it (it reads S, which it waited for) */
    const Sm90Wait *w = p->waits.items[1];
    assert_int_equal(w->pinned.len, 1);
    assert_string_equal(((const IrBuffer *)w->pinned.items[0])->name, "S");
    assert_true(w->held); /* P Cs runs under the loop over S: the wait stays after it */
    w = p->waits.items[0];
    assert_int_equal(w->pinned.len, 0);
    assert_false(w->held); /* no work between the products and this wait */
    assert_int_equal(w->after.len, 1);
    assert_string_equal(((const IrBuffer *)w->after.items[0])->name, "S");
    const char *touch_acc = "#pragma tile parallel\n"
                            "            for (int i = 0; i < 128; i++)\n"
                            "                for (int j = 0; j < 64; j++)\n"
                            "                    Acc[i][j] *= 0.5f;\n";
    p = two_products(touch_acc, "", 2);
    assert_false(p->rotated);
    p = two_products("", "", 1);
    assert_false(p->rotated);
    assert_int_equal(p->waits.len, 1);
    w = p->waits.items[0];
    assert_int_equal(w->before->kind, STMT_PARALLEL);
    assert_int_equal(w->pending, 0);
    assert_false(w->held); /* nothing runs between the products and the wait for them */
}

/* A loop over the second product's accumulator alone (a rescale of it)
 * between the products runs under the next iteration's first product,
 * before this iteration's last (Sm90Plan.under_head), waiting for nothing;
 * not one that reads the loop's variable (it would run an iteration late),
 * the first product's accumulator (the next head overwrites it) or memory. */
static void under_head(void **state)
{
    (void)state;
    const char *rescale = "#pragma tile parallel\n"
                          "            for (int i = 0; i < 128; i++)\n"
                          "                for (int j = 0; j < 64; j++)\n"
                          "                    Acc[i][j] *= 0.5f;\n";
    const Sm90Plan *p = two_products("", rescale, 2);
    assert_true(p->rotated);
    assert_int_equal(p->under_head.len, 1);
    const IrStmt *late = p->under_head.items[0];
    assert_int_equal(late->kind, STMT_PARALLEL);
    assert_null(sm90_wait_before(p, late));        /* the last iteration's products are complete */
    assert_int_equal(p->under_head_fenced.len, 1); /* Acc, read after that wait */
    assert_string_equal(((const IrBuffer *)p->under_head_fenced.items[0])->name, "Acc");
    assert_int_equal(p->waits.len, 2); /* the loop over S, the copy into P: as without the rescale */
    assert_int_equal(((const Sm90Wait *)p->waits.items[1])->before->op->kind, TILE_COPY);
    assert_int_equal(two_products("", "", 2)->under_head.len, 0);
    const char *refused[] = {
        "#pragma tile parallel\n"
        "            for (int i = 0; i < 128; i++)\n"
        "                for (int j = 0; j < 64; j++)\n"
        "                    Acc[i][j] *= (float)kb;\n",
        "#pragma tile parallel\n"
        "            for (int i = 0; i < 128; i++)\n"
        "                for (int j = 0; j < 64; j++)\n"
        "                    Acc[i][j] += S[i][j];\n",
        "#pragma tile parallel\n"
        "            for (int i = 0; i < 128; i++)\n"
        "                for (int j = 0; j < 64; j++)\n"
        "                    Acc[i][j] *= (float)A[i][j];\n",
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        p = two_products("", refused[i], 2);
        assert_true(p->rotated);
        assert_int_equal(p->under_head.len, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(brief_schedule),
        UNIT_TEST(attention_mainloop),
        UNIT_TEST(attention_three_consumers),
        UNIT_TEST(attention_producer_least),
        UNIT_TEST(attention_too_wide),
        UNIT_TEST(rotation),
        UNIT_TEST(under_head),
        UNIT_TEST(in_flight_threshold),
        UNIT_TEST(two_consumer_groups),
        UNIT_TEST(store_origin_tested),
        UNIT_TEST(mn_major_swizzles),
        UNIT_TEST(pingpong),
        UNIT_TEST(sm80_only),
        UNIT_TEST(reasons),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_tile_issues.c — tile-stage behaviour the translator did not have when
 * these tests were written (each test says what it did instead). They are
 * written to the right behaviour — honoured or refused, never accepted and
 * wrong — and fail until the translator has it; test_tile.c holds what
 * already works. Where either honouring or refusing would be right, the test
 * accepts both. */
#define _POSIX_C_SOURCE 200809L
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The grid body of a 64 x 64 x 32 half GEMM kernel `g` (A M x K, B K x N,
 * float C and D M x N) around `block`: lines 9.. */
static const char *block_src(int threads, const char *block)
{
    return aprintf("#include <tilepp/tile.h>\n"                                                           /* 1 */
                   "#pragma tile kernel threads(%d)\n"                                                    /* 2 */
                   "void g(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N],\n" /* 3 */
                   "       float D[M][N])\n"                                                              /* 4 */
                   "{\n"                                                                                  /* 5 */
                   "#pragma tile grid\n"                                                                  /* 6 */
                   "    for (int by = 0; by < tile_cdiv(M, 64); by++)\n"                                  /* 7 */
                   "        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {\n"                            /* 8 */
                   "%s"                                                                                   /* 9.. */
                   "        }\n"
                   "}\n",
                   threads, block);
}

/* Refused: at least one error, no plan. */
static void expect_refused(Plan *plan, const char *what)
{
    if (plan)
        fail_msg("%s: accepted", what);
    assert_true(diag_error_count() >= 1);
}

/* 1. When this was written, `#pragma tile gemm policy(row)` was silently
 * dropped when the block declared another fragment after the gemm's
 * accumulator: lower_tile.c arranges the warps once per fragment and the
 * last fragment's (square) arrangement won, 2 x 2 instead of 4 x 1. */
static void policy_survives_other_fragments(void **state)
{
    (void)state;
    const char *src = block_src(128, "#pragma tile shared\n"
                                     "            half As[64][32], Bs[32][64];\n"
                                     "#pragma tile fragment\n"
                                     "            float Cf[64][64], Df[64][64];\n"
                                     "            tile_clear(Cf);\n"
                                     "            tile_clear(Df);\n"
                                     "#pragma tile pipelined stages(2)\n"
                                     "            for (int k = 0; k < tile_cdiv(K, 32); k++) {\n"
                                     "                tile_load(As, A, by * 64, k * 32, M, K);\n"
                                     "                tile_load(Bs, B, k * 32, bx * 64, K, N);\n"
                                     "#pragma tile gemm policy(row)\n"
                                     "                tile_gemm(As, Bs, Cf);\n"
                                     "            }\n"
                                     "            tile_store(C, Cf, by * 64, bx * 64, M, N);\n"
                                     "            tile_store(D, Df, by * 64, bx * 64, M, N);\n");
    Plan *plan = unit_lower(src);
    if (!plan)
        return; /* refused: honest */
    const GridPlan *gp = unit_grid_plan(plan, "g", 0);
    if (gp->warps_m != 4 || gp->warps_n != 1)
        fail_msg("policy(row) not honoured: warps %dx%d, expected 4x1", gp->warps_m, gp->warps_n);
}

/* 2. Two fragments that need different arrangements: 128 x 16 (only 4 x 1
 * fits) and 16 x 128 (only 1 x 4). When this was written both were declared
 * with the last arrangement (1 x 4) and nvcc rejected the generated code
 * (static assertion 'tile80::accum: warp tiles are multiples of 16 x 16'). */
static void fragments_share_one_arrangement(void **state)
{
    (void)state;
    const char *src = block_src(128, "#pragma tile fragment\n"
                                     "            float Cf[128][16];\n"
                                     "#pragma tile fragment\n"
                                     "            float Df[16][128];\n"
                                     "            tile_clear(Cf);\n"
                                     "            tile_clear(Df);\n"
                                     "            tile_store(C, Cf, by * 128, bx * 16, M, N);\n"
                                     "            tile_store(D, Df, by * 16, bx * 128, M, N);\n");
    Plan *plan = unit_lower(src);
    if (!plan)
        return;
    const GridPlan *gp = unit_grid_plan(plan, "g", 0);
    const IrGrid *g = gp->grid;
    for (int i = 0; i < g->tiles.len; i++) {
        const IrBuffer *t = g->tiles.items[i];
        if (t->space != SPACE_FRAGMENT)
            continue;
        if (t->dims[0] % (gp->warps_m * 16) || t->dims[1] % (gp->warps_n * 16))
            fail_msg("fragment %s (%lldx%lld) declared with warps %dx%d: warp tiles are not multiples of 16x16",
                     t->name, t->dims[0], t->dims[1], gp->warps_m, gp->warps_n);
    }
}

/* 3. A second pipelined loop, 3 stages deep. When this was written only the
 * first pipelined loop's tiles got stages: As2 and Bs2 got one copy, so the
 * loads of iteration k + 2 overwrote the tiles iteration k multiplied. */
static void second_pipeline_gets_its_stages(void **state)
{
    (void)state;
    const char *src = block_src(128, "#pragma tile shared\n"
                                     "            half As[64][32], Bs[32][64], As2[64][32], Bs2[32][64];\n"
                                     "#pragma tile fragment\n"
                                     "            float Cf[64][64];\n"
                                     "            tile_clear(Cf);\n"
                                     "#pragma tile pipelined stages(1)\n"
                                     "            for (int k = 0; k < tile_cdiv(K, 64); k++) {\n"
                                     "                tile_load(As, A, by * 64, k * 64, M, K);\n"
                                     "                tile_load(Bs, B, k * 64, bx * 64, K, N);\n"
                                     "                tile_gemm(As, Bs, Cf);\n"
                                     "            }\n"
                                     "#pragma tile pipelined stages(3)\n"
                                     "            for (int k = 0; k < tile_cdiv(K, 64); k++) {\n"
                                     "                tile_load(As2, A, by * 64, k * 64 + 32, M, K);\n"
                                     "                tile_load(Bs2, B, k * 64 + 32, bx * 64, K, N);\n"
                                     "                tile_gemm(As2, Bs2, Cf);\n"
                                     "            }\n"
                                     "            tile_store(C, Cf, by * 64, bx * 64, M, N);\n");
    Plan *plan = unit_lower(src);
    if (!plan)
        return;
    const GridPlan *gp = unit_grid_plan(plan, "g", 0);
    assert_int_equal(unit_shared_plan(gp, "As2")->stages, 3);
    assert_int_equal(unit_shared_plan(gp, "Bs2")->stages, 3);
}

/* 4. The register budget is per thread, over all the block's fragments.
 * When this was written each fragment was checked alone: two 128 x 128
 * accumulators over 128 threads (256 values per thread, more than the 255
 * registers a thread has) were accepted, and ptxas spilled kilobytes. */
static void budget_counts_every_fragment(void **state)
{
    (void)state;
    const char *src = aprintf("#include <tilepp/tile.h>\n"
                              "#pragma tile kernel threads(128)\n"
                              "void g(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N],\n"
                              "       float D[M][N])\n"
                              "{\n"
                              "#pragma tile grid\n"
                              "    for (int by = 0; by < tile_cdiv(M, 128); by++)\n"
                              "        for (int bx = 0; bx < tile_cdiv(N, 128); bx++) {\n"
                              "#pragma tile shared\n"
                              "            half As[128][32], Bs[32][128];\n"
                              "#pragma tile fragment\n"
                              "            float Cf[128][128], Df[128][128];\n"
                              "            tile_clear(Cf);\n"
                              "            tile_clear(Df);\n"
                              "#pragma tile pipelined stages(2)\n"
                              "            for (int k = 0; k < tile_cdiv(K, 32); k++) {\n"
                              "                tile_load(As, A, by * 128, k * 32, M, K);\n"
                              "                tile_load(Bs, B, k * 32, bx * 128, K, N);\n"
                              "                tile_gemm(As, Bs, Cf);\n"
                              "                tile_gemm(As, Bs, Df);\n"
                              "            }\n"
                              "            tile_store(C, Cf, by * 128, bx * 128, M, N);\n"
                              "            tile_store(D, Df, by * 128, bx * 128, M, N);\n"
                              "        }\n"
                              "}\n");
    expect_refused(unit_lower(src), "two 128x128 accumulators over 128 threads");
}

/* 5. The budget depends on the block size: a thread of a 512-thread block
 * has at most 128 registers, of a 1024-thread block 64. When this was
 * written 128 accumulator values per thread were accepted whatever the
 * threads, and ptxas spilled (about 2 KB of spill stores per thread). */
static void budget_depends_on_threads(void **state)
{
    (void)state;
    static const struct {
        int threads, bm, bn;
    } cases[] = {{512, 256, 256}, {1024, 256, 512}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int bm = cases[i].bm, bn = cases[i].bn;
        const char *src = aprintf("#include <tilepp/tile.h>\n"
                                  "#pragma tile kernel threads(%d)\n"
                                  "void g(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])\n"
                                  "{\n"
                                  "#pragma tile grid\n"
                                  "    for (int by = 0; by < tile_cdiv(M, %d); by++)\n"
                                  "        for (int bx = 0; bx < tile_cdiv(N, %d); bx++) {\n"
                                  "#pragma tile shared\n"
                                  "            half As[%d][32], Bs[32][%d];\n"
                                  "#pragma tile fragment\n"
                                  "            float Cf[%d][%d];\n"
                                  "            tile_clear(Cf);\n"
                                  "#pragma tile pipelined stages(2)\n"
                                  "            for (int k = 0; k < tile_cdiv(K, 32); k++) {\n"
                                  "                tile_load(As, A, by * %d, k * 32, M, K);\n"
                                  "                tile_load(Bs, B, k * 32, bx * %d, K, N);\n"
                                  "                tile_gemm(As, Bs, Cf);\n"
                                  "            }\n"
                                  "            tile_store(C, Cf, by * %d, bx * %d, M, N);\n"
                                  "        }\n"
                                  "}\n",
                                  cases[i].threads, bm, bn, bm, bn, bm, bn, bm, bn, bm, bn);
        expect_refused(unit_lower(src), aprintf("%dx%d over %d threads", bm, bn, cases[i].threads));
        unit_teardown(NULL);
        unit_setup(NULL);
    }
}

/* 5b. Two blocks per multiprocessor halve the registers a thread may have.
 * When this was written a 512-thread block with 64 accumulator values a
 * thread asked for two blocks (__launch_bounds__(512, 2): 64 registers a
 * thread, all of them the accumulator's), and ptxas spilled. Either one
 * block, or refused; here "fits" leaves 32 registers beside the fragments
 * for addresses and the operand fragments. */
static void occupancy_leaves_registers(void **state)
{
    (void)state;
    const char *src = aprintf("#include <tilepp/tile.h>\n"
                              "#pragma tile kernel threads(512)\n"
                              "void g(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])\n"
                              "{\n"
                              "#pragma tile grid\n"
                              "    for (int by = 0; by < tile_cdiv(M, 128); by++)\n"
                              "        for (int bx = 0; bx < tile_cdiv(N, 256); bx++) {\n"
                              "#pragma tile shared\n"
                              "            half As[128][32], Bs[32][256];\n"
                              "#pragma tile fragment\n"
                              "            float Cf[128][256];\n"
                              "            tile_clear(Cf);\n"
                              "#pragma tile pipelined stages(2)\n"
                              "            for (int k = 0; k < tile_cdiv(K, 32); k++) {\n"
                              "                tile_load(As, A, by * 128, k * 32, M, K);\n"
                              "                tile_load(Bs, B, k * 32, bx * 256, K, N);\n"
                              "                tile_gemm(As, Bs, Cf);\n"
                              "            }\n"
                              "            tile_store(C, Cf, by * 128, bx * 256, M, N);\n"
                              "        }\n"
                              "}\n");
    Plan *plan = unit_lower(src);
    if (!plan)
        return;
    const GridPlan *gp = unit_grid_plan(plan, "g", 0);
    int regs = 65536 / (512 * gp->min_blocks);
    if (regs > 255)
        regs = 255;
    if (regs < 64 + 32)
        fail_msg("min_blocks %d leaves %d registers a thread for 64 accumulator values", gp->min_blocks, regs);
}

/* 6. mma.sync m16n8k16 takes K 16 at a time. When this was written a gemm
 * with K = 8 (tile_gemm_tn of two 8 x 64 tiles, whose 128-byte rows lay out)
 * was accepted and nvcc failed ('tile80: BK is a multiple of 16'). */
static void gemm_k_multiple_of_16(void **state)
{
    (void)state;
    const char *src = aprintf("#include <tilepp/tile.h>\n"
                              "#pragma tile kernel threads(128)\n"
                              "void g(int M, int N, int K, const half A[K][M], const half B[K][N], float C[M][N])\n"
                              "{\n"
                              "#pragma tile grid\n"
                              "    for (int by = 0; by < tile_cdiv(M, 64); by++)\n"
                              "        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {\n"
                              "#pragma tile shared\n"
                              "            half As[8][64], Bs[8][64];\n"
                              "#pragma tile fragment\n"
                              "            float Cf[64][64];\n"
                              "            tile_clear(Cf);\n"
                              "#pragma tile pipelined stages(2)\n"
                              "            for (int k = 0; k < tile_cdiv(K, 8); k++) {\n"
                              "                tile_load(As, A, k * 8, by * 64, K, M);\n"
                              "                tile_load(Bs, B, k * 8, bx * 64, K, N);\n"
                              "                tile_gemm_tn(As, Bs, Cf);\n"
                              "            }\n"
                              "            tile_store(C, Cf, by * 64, bx * 64, M, N);\n"
                              "        }\n"
                              "}\n");
    expect_refused(unit_lower(src), "tile_gemm_tn with K = 8");
    assert_non_null(strstr(unit_diag(), "unit_input.c:17:17: error: "));
}

/* 7. The swizzled layout pairs 64-byte rows. When this was written a shared
 * tile of 3 rows of 64 bytes was accepted and nvcc failed ('tile80: 64-byte
 * rows come in pairs'). */
static void shared_odd_rows(void **state)
{
    (void)state;
    const char *src = block_src(128, "#pragma tile shared\n"
                                     "            half S[3][32];\n"
                                     "#pragma tile fragment\n"
                                     "            float Cf[64][64];\n"
                                     "            tile_clear(Cf);\n"
                                     "            tile_load(S, A, by * 3, 0, M, K);\n"
                                     "            tile_store(C, Cf, by * 64, bx * 64, M, N);\n");
    expect_refused(unit_lower(src), "half S[3][32]");
    assert_non_null(strstr(unit_diag(), "unit_input.c:10:18: error: shared tile 'S'"));
}

/* 8. A tile a pipelined loop loads, used after the loop: in C it holds the
 * last iteration's tile. When this was written the gemm after the loop read
 * stage 0 of the 3 stages, the last iteration's only when the trip count is
 * 1 mod 3. */
static void pipelined_tile_used_after_loop(void **state)
{
    (void)state;
    const char *src = block_src(128, "#pragma tile shared\n"
                                     "            half As[64][32], Bs[32][64];\n"
                                     "#pragma tile fragment\n"
                                     "            float Cf[64][64];\n"
                                     "            tile_clear(Cf);\n"
                                     "#pragma tile pipelined stages(3)\n"
                                     "            for (int k = 0; k < tile_cdiv(K, 32); k++) {\n"
                                     "                tile_load(As, A, by * 64, k * 32, M, K);\n"
                                     "                tile_load(Bs, B, k * 32, bx * 64, K, N);\n"
                                     "            }\n"
                                     "            tile_gemm(As, Bs, Cf);\n"
                                     "            tile_store(C, Cf, by * 64, bx * 64, M, N);\n");
    expect_refused(unit_lower(src), "a pipelined tile used after its loop");
}

/* 9. One error per mistake. When this was written each of these reported
 * follow-on errors too (listed). */
static void no_cascades(void **state)
{

    (void)state;
    static const struct {
        const char *block;
        const char *not_expected;
    } cases[] = {
        /* a tile declared in the pipelined loop: then 'must be a '#pragma
         * tile shared' or 'fragment' array' at each of its 4 uses */
        {"#pragma tile fragment\n"
         "            float Cf[64][64];\n"
         "            tile_clear(Cf);\n"
         "#pragma tile pipelined stages(2)\n"
         "            for (int k = 0; k < tile_cdiv(K, 32); k++) {\n"
         "#pragma tile shared\n"
         "                half As[64][32], Bs[32][64];\n"
         "                tile_load(As, A, by * 64, k * 32, M, K);\n"
         "                tile_load(Bs, B, k * 32, bx * 64, K, N);\n"
         "                tile_gemm(As, Bs, Cf);\n"
         "            }\n"
         "            tile_store(C, Cf, by * 64, bx * 64, M, N);\n",
         "array of this block"},
        /* a local array used as a tile: then the same at its use */
        {"#pragma tile shared\n"
         "            half Bs[32][64];\n"
         "            half As[64][32];\n"
         "#pragma tile fragment\n"
         "            float Cf[64][64];\n"
         "            tile_clear(Cf);\n"
         "            tile_load(Bs, B, 0, bx * 64, K, N);\n"
         "            tile_gemm(As, Bs, Cf);\n"
         "            tile_store(C, Cf, by * 64, bx * 64, M, N);\n",
         "array of this block"},
        /* a non-canonical loop in a gemm nest: first 'a parallel loop must
         * have the form ...' */
        {"#pragma tile shared\n"
         "            half As[64][32], Bs[32][64];\n"
         "#pragma tile fragment\n"
         "            float Cf[64][64];\n"
         "            tile_clear(Cf);\n"
         "#pragma tile gemm\n"
         "            for (int i = 0; i != 64; i++)\n"
         "                for (int j = 0; j < 64; j++)\n"
         "                    for (int kk = 0; kk < 32; kk++)\n"
         "                        Cf[i][j] += As[i][kk] * Bs[kk][j];\n"
         "            tile_store(C, Cf, by * 64, bx * 64, M, N);\n",
         "parallel loop"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_null(unit_lower(block_src(128, cases[i].block)));
        if (diag_error_count() != 1 || strstr(unit_diag(), cases[i].not_expected))
            fail_msg("case %zu: expected one error, without '%s'; got:\n%s", i, cases[i].not_expected, unit_diag());
        unit_teardown(NULL);
        unit_setup(NULL);
    }

    /* a grid whose clause or loop is refused: then each pragma of its block
     * reported as 'not implemented yet' */
    static const char *const grids[] = {"#pragma tile grid swizzle(0)\n    for (int by = 0; by < M; by++) {\n",
                                        "#pragma tile grid\n    for (int by = 0; by != M; by++) {\n"};
    for (size_t i = 0; i < 2; i++) {
        const char *src = aprintf("#include <tilepp/tile.h>\n"
                                  "#pragma tile kernel threads(128)\n"
                                  "void g(int M, const half A[M][32], float C[M][64])\n"
                                  "{\n"
                                  "%s"
                                  "#pragma tile shared\n"
                                  "        half As[64][32];\n"
                                  "#pragma tile fragment\n"
                                  "        float Cf[64][64];\n"
                                  "        tile_clear(Cf);\n"
                                  "#pragma tile pipelined stages(2)\n"
                                  "        for (int k = 0; k < 1; k++)\n"
                                  "            tile_load(As, A, by * 64, 0, M, 32);\n"
                                  "        tile_store(C, Cf, by * 64, 0, M, 64);\n"
                                  "    }\n"
                                  "}\n",
                                  grids[i]);
        assert_null(unit_lower(src));
        if (diag_error_count() != 1 || strstr(unit_diag(), "not implemented yet"))
            fail_msg("grid case %zu: expected one error; got:\n%s", i, unit_diag());
        unit_teardown(NULL);
        unit_setup(NULL);
    }
}

/* 10. Messages that named the wrong reason when this was written. */
static void refusal_reasons(void **state)
{

    (void)state;
    /* tile_reduce_max: once refused as plain code ('accepts tile
     * declarations, tile operations, ...'), as if it were not a tile
     * operation; a fragment's rows and columns reduce on the GPU now, into
     * a fragment or a shared tile */
    assert_non_null(unit_lower(block_src(128, "#pragma tile fragment\n"
                                              "            float Cf[64][64];\n"
                                              "#pragma tile fragment\n"
                                              "            float m[64];\n"
                                              "            tile_clear(Cf);\n"
                                              "            tile_reduce_max(Cf, m, 1, 1);\n"
                                              "            tile_store(C, Cf, by * 64, bx * 64, M, N);\n")));
    unit_teardown(NULL);
    unit_setup(NULL);
    assert_non_null(unit_lower(block_src(128, "#pragma tile fragment\n"
                                              "            float Cf[64][64];\n"
                                              "#pragma tile fragment\n"
                                              "            float m[64];\n"
                                              "            tile_clear(Cf);\n"
                                              "            tile_reduce_max(Cf, m, 0, 1);\n"
                                              "            tile_store(C, Cf, by * 64, bx * 64, M, N);\n")));
    unit_teardown(NULL);
    unit_setup(NULL);
    assert_non_null(unit_lower(block_src(128, "#pragma tile fragment\n"
                                              "            float Cf[64][64];\n"
                                              "#pragma tile shared\n"
                                              "            float m[64];\n"
                                              "            tile_clear(Cf);\n"
                                              "            tile_reduce_max(Cf, m, 0, 1);\n"
                                              "            tile_store(C, Cf, by * 64, bx * 64, M, N);\n")));
    unit_teardown(NULL);
    unit_setup(NULL);

    /* a 1-D fragment: 'would hold 0 values in each of the 128 threads'
     * registers; at most 128 fit'. 1-D fragments are implemented now (one
     * value per thread here). */
    assert_non_null(unit_lower(block_src(128, "#pragma tile fragment\n"
                                              "            float Cf[64][64], m[64];\n"
                                              "            tile_clear(Cf);\n"
                                              "            tile_clear(m);\n"
                                              "            tile_store(C, Cf, by * 64, bx * 64, M, N);\n")));
    assert_int_equal(diag_error_count(), 0);
    unit_teardown(NULL);
    unit_setup(NULL);

    /* a pipelined loop that is not canonical: 'a parallel loop must have
     * the form ...' */
    assert_null(unit_lower(block_src(128, "#pragma tile shared\n"
                                          "            half As[64][32];\n"
                                          "#pragma tile pipelined stages(2)\n"
                                          "            for (int k = 0; k != 4; k++)\n"
                                          "                tile_load(As, A, by * 64, k * 32, M, K);\n")));
    assert_int_equal(diag_error_count(), 1);
    assert_non_null(strstr(unit_diag(), "unit_input.c:12:13: error: "));
    assert_null(strstr(unit_diag(), "parallel loop"));
    unit_teardown(NULL);
    unit_setup(NULL);

    /* `#pragma tile gemm` on A[i][j]: the caret at the A operand, not at the
     * outer loop */
    assert_null(unit_lower(block_src(128, "#pragma tile shared\n"
                                          "            half As[64][32], Bs[32][64];\n"
                                          "#pragma tile fragment\n"
                                          "            float Cf[64][64];\n"
                                          "#pragma tile gemm\n"
                                          "            for (int i = 0; i < 64; i++)\n"
                                          "                for (int j = 0; j < 64; j++)\n"
                                          "                    for (int kk = 0; kk < 32; kk++)\n"
                                          "                        Cf[i][j] += As[i][j] * Bs[kk][j];\n")));
    assert_int_equal(diag_error_count(), 1);
    assert_non_null(strstr(unit_diag_first_line(), "unit_input.c:17:37: error: '#pragma tile gemm'"));
}

/* 11. `--emit ir` shows the slice a tile operation reads or writes. When this
 * was written `tile_load(As, A[b], ...)` printed as `load As A (...)`. */
static void ir_dump_shows_slices(void **state)
{
    (void)state;
    static const char src[] = "#include <tilepp/tile.h>\n"
                              "#pragma tile kernel threads(128)\n"
                              "void bg(int batch, int M, int K, const half A[batch][M][K], float C[batch][M][64])\n"
                              "{\n"
                              "#pragma tile grid\n"
                              "    for (int b = 0; b < batch; b++)\n"
                              "        for (int by = 0; by < tile_cdiv(M, 64); by++) {\n"
                              "#pragma tile shared\n"
                              "            half As[64][32];\n"
                              "#pragma tile fragment\n"
                              "            float Cf[64][64];\n"
                              "            tile_clear(Cf);\n"
                              "            tile_load(As, A[b], by * 64, 0, M, K);\n"
                              "            tile_store(C[b], Cf, by * 64, 0, M, 64);\n"
                              "        }\n"
                              "}\n";
    IrModule *m = unit_build(src);
    assert_non_null(m);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    ir_dump(out, m);
    fclose(out);
    bool ok = strstr(text, "load As A[b] (by * 64, 0)") && strstr(text, "store Cf C[b] (by * 64, 0)");
    if (!ok) {
        char *copy = astrdup(text);
        free(text);
        fail_msg("the IR does not show the slices:\n%s", copy);
    }
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(policy_survives_other_fragments),
        UNIT_TEST(fragments_share_one_arrangement),
        UNIT_TEST(second_pipeline_gets_its_stages),
        UNIT_TEST(budget_counts_every_fragment),
        UNIT_TEST(budget_depends_on_threads),
        UNIT_TEST(occupancy_leaves_registers),
        UNIT_TEST(gemm_k_multiple_of_16),
        UNIT_TEST(shared_odd_rows),
        UNIT_TEST(pipelined_tile_used_after_loop),
        UNIT_TEST(no_cascades),
        UNIT_TEST(refusal_reasons),
        UNIT_TEST(ir_dump_shows_slices),
    };
    return cmocka_run_group_tests_name("tile_issues", tests, NULL, NULL);
}

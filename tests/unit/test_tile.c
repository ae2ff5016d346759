/* test_tile.c — the tile stages: build_tile.c (grid nests, shared and
 * fragment tiles, tile operations, pipelined loops), gemm_match.c
 * (`#pragma tile gemm` on the user's loop nest or micro-kernel call) and
 * lower_tile.c (shared-memory layout and budget per architecture, warp
 * arrangement, accumulator register budget), with the refusals and their
 * messages. Behaviour the translator did not have yet when these were
 * written is in test_tile_issues.c. */
#include "unit.h"

#include <string.h>

static void expect_clean(void)
{
    assert_int_equal(diag_error_count(), 0);
    assert_string_equal(unit_diag(), "");
}

/* The one error reported, as its first line. */
static void expect_error(const char *first_line)
{
    assert_int_equal(diag_error_count(), 1);
    assert_string_equal(unit_diag_first_line(), first_line);
}

/* The one error reported contains `text`. */
static void expect_error_with(const char *text)
{
    assert_int_equal(diag_error_count(), 1);
    if (!strstr(unit_diag(), text))
        fail_msg("expected an error containing \"%s\"; got:\n%s", text, unit_diag());
}

static const IrStmt *grid_stmt(const IrGrid *g, int i)
{
    assert_true(i < g->body.len);
    return g->body.items[i];
}

/* ---- sources ---- */

/* The GEMM of the brief (samples/gemm.c), without its `tile tune` line. */
static const char brief_gemm[] = "#include <tilepp/tile.h>\n"                                              /* 1 */
                                 "enum { BM = 128, BN = 128, BK = 32, STAGES = 3 };\n"                     /* 2 */
                                 "\n"                                                                      /* 3 */
                                 "#pragma tile kernel threads(128)\n"                                      /* 4 */
                                 "void gemm(int M, int N, int K, const half A[M][K], const half B[K][N], " /* 5 */
                                 "half C[M][N])\n"
                                 "{\n"                                                        /* 6 */
                                 "#pragma tile grid swizzle(8)\n"                             /* 7 */
                                 "    for (int by = 0; by < tile_cdiv(M, BM); by++)\n"        /* 8 */
                                 "        for (int bx = 0; bx < tile_cdiv(N, BN); bx++) {\n"  /* 9 */
                                 "#pragma tile shared\n"                                      /* 10 */
                                 "            half As[BM][BK], Bs[BK][BN];\n"                 /* 11 */
                                 "#pragma tile fragment\n"                                    /* 12 */
                                 "            float Cf[BM][BN];\n"                            /* 13 */
                                 "            tile_clear(Cf);\n"                              /* 14 */
                                 "#pragma tile pipelined stages(STAGES)\n"                    /* 15 */
                                 "            for (int k = 0; k < tile_cdiv(K, BK); k++) {\n" /* 16 */
                                 "                tile_load(As, A, by * BM, k * BK, M, K);\n" /* 17 */
                                 "                tile_load(Bs, B, k * BK, bx * BN, K, N);\n" /* 18 */
                                 "                tile_gemm(As, Bs, Cf);\n"                   /* 19 */
                                 "            }\n"                                            /* 20 */
                                 "            tile_store(C, Cf, by * BM, bx * BN, M, N);\n"   /* 21 */
                                 "        }\n"                                                /* 22 */
                                 "}\n";                                                       /* 23 */

/* C = A B^T over BM x BN x 32 tiles: both shared tiles have 64-byte rows, so
 * any BM and BN that are multiples of 16 lay out; `gemm_pragma` goes on the
 * line before the tile_gemm_nt call (line 19). */
static const char *nt_gemm(int threads, int bm, int bn, int stages, const char *gemm_pragma)
{
    return aprintf("#include <tilepp/tile.h>\n"                                                           /* 1 */
                   "\n"                                                                                   /* 2 */
                   "#pragma tile kernel threads(%d)\n"                                                    /* 3 */
                   "void g(int M, int N, int K, const half A[M][K], const half B[N][K], float C[M][N])\n" /* 4 */
                   "{\n"                                                                                  /* 5 */
                   "#pragma tile grid\n"                                                                  /* 6 */
                   "    for (int by = 0; by < tile_cdiv(M, %d); by++)\n"                                  /* 7 */
                   "        for (int bx = 0; bx < tile_cdiv(N, %d); bx++) {\n"                            /* 8 */
                   "#pragma tile shared\n"                                                                /* 9 */
                   "            half As[%d][32], Bs[%d][32];\n"                                           /* 10 */
                   "#pragma tile fragment\n"                                                              /* 11 */
                   "            float Cf[%d][%d];\n"                                                      /* 12 */
                   "            tile_clear(Cf);\n"                                                        /* 13 */
                   "#pragma tile pipelined stages(%d)\n"                                                  /* 14 */
                   "            for (int k = 0; k < tile_cdiv(K, 32); k++) {\n"                           /* 15 */
                   "                tile_load(As, A, by * %d, k * 32, M, K);\n"                           /* 16 */
                   "                tile_load(Bs, B, bx * %d, k * 32, N, K);\n"                           /* 17 */
                   "%s\n"                                                                                 /* 18 */
                   "                tile_gemm_nt(As, Bs, Cf);\n"                                          /* 19 */
                   "            }\n"                                                                      /* 20 */
                   "            tile_store(C, Cf, by * %d, bx * %d, M, N);\n"                             /* 21 */
                   "        }\n"                                                                          /* 22 */
                   "}\n",
                   threads, bm, bn, bm, bn, bm, bn, stages, bm, bn, gemm_pragma ? gemm_pragma : "", bm, bn);
}

/* The GEMM of the brief with its loads and product replaced by `body` (the
 * pipelined loop's body, lines 16.., 64 x 64 x 32 tiles, 4 warps). */
static const char *gemm_with_body(const char *body)
{
    return aprintf("#include <tilepp/tile.h>\n"                                                           /* 1 */
                   "\n"                                                                                   /* 2 */
                   "#pragma tile kernel threads(128)\n"                                                   /* 3 */
                   "void g(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])\n" /* 4 */
                   "{\n"                                                                                  /* 5 */
                   "#pragma tile grid\n"                                                                  /* 6 */
                   "    for (int by = 0; by < tile_cdiv(M, 64); by++)\n"                                  /* 7 */
                   "        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {\n"                            /* 8 */
                   "#pragma tile shared\n"                                                                /* 9 */
                   "            half As[64][32], Bs[32][64];\n"                                           /* 10 */
                   "#pragma tile fragment\n"                                                              /* 11 */
                   "            float Cf[64][64];\n"                                                      /* 12 */
                   "            tile_clear(Cf);\n"                                                        /* 13 */
                   "#pragma tile pipelined stages(2)\n"                                                   /* 14 */
                   "            for (int k = 0; k < tile_cdiv(K, 32); k++) {\n"                           /* 15 */
                   "%s\n"                                                                                 /* 16.. */
                   "            }\n"
                   "            tile_store(C, Cf, by * 64, bx * 64, M, N);\n"
                   "        }\n"
                   "}\n",
                   body);
}

static const char loads[] = "                tile_load(As, A, by * 64, k * 32, M, K);\n"  /* 16 */
                            "                tile_load(Bs, B, k * 32, bx * 64, K, N);\n"; /* 17 */

/* ---- build_tile: the IR of the brief's GEMM ---- */

static void brief_gemm_ir(void **state)
{
    (void)state;
    IrModule *m = unit_build(brief_gemm);
    assert_non_null(m);
    expect_clean();
    const IrKernel *k = unit_kernel(m, "gemm");
    assert_int_equal(k->threads, 128);
    assert_int_equal(k->stmts.len, 1);
    const IrStmt *gs = k->stmts.items[0];
    assert_int_equal(gs->kind, STMT_GRID);
    const IrGrid *g = unit_grid(k, 0);
    assert_int_equal(g->loc.line, 7);
    assert_int_equal(g->swizzle, 8);

    /* the block nest */
    assert_int_equal(g->depth, 2);
    assert_string_equal(g->loops[0].var, "by");
    assert_string_equal(g->loops[0].lo, "0");
    assert_string_equal(g->loops[0].hi, "tile_cdiv(M, BM)");
    assert_true(g->loops[0].step_is_const);
    assert_int_equal(g->loops[0].step_const, 1);
    assert_string_equal(g->loops[1].var, "bx");
    assert_string_equal(g->loops[1].hi, "tile_cdiv(N, BN)");

    /* the tiles, their spaces, element types and constant shapes */
    assert_int_equal(g->tiles.len, 3);
    const IrBuffer *as = unit_grid_tile(g, "As"), *bs = unit_grid_tile(g, "Bs"), *cf = unit_grid_tile(g, "Cf");
    assert_ptr_equal(g->tiles.items[0], as);
    assert_ptr_equal(g->tiles.items[1], bs);
    assert_ptr_equal(g->tiles.items[2], cf);
    assert_int_equal(as->space, SPACE_SHARED);
    assert_int_equal(as->elem.kind, SCALAR_HALF);
    assert_int_equal(as->elem.size, 2);
    assert_int_equal(as->rank, 2);
    assert_int_equal(as->dims[0], 128);
    assert_int_equal(as->dims[1], 32);
    assert_int_equal(as->loc.line, 11);
    assert_int_equal(as->loc.col, 18);
    assert_int_equal(bs->space, SPACE_SHARED);
    assert_int_equal(bs->dims[0], 32);
    assert_int_equal(bs->dims[1], 128);
    assert_int_equal(cf->space, SPACE_FRAGMENT);
    assert_int_equal(cf->elem.kind, SCALAR_FLOAT);
    assert_int_equal(cf->rank, 2);
    assert_int_equal(cf->dims[0], 128);
    assert_int_equal(cf->dims[1], 128);
    assert_int_equal(cf->loc.line, 13);

    /* the block's statements, in order */
    assert_int_equal(g->body.len, 6);
    static const IrStmtKind kinds[] = {STMT_TILE_DECL, STMT_TILE_DECL, STMT_TILE_DECL,
                                       STMT_TILE_OP,   STMT_PIPELINED, STMT_TILE_OP};
    for (int i = 0; i < 6; i++)
        assert_int_equal(grid_stmt(g, i)->kind, kinds[i]);
    assert_ptr_equal(grid_stmt(g, 0)->tile, as);
    assert_ptr_equal(grid_stmt(g, 1)->tile, bs);
    assert_ptr_equal(grid_stmt(g, 2)->tile, cf);
    const IrTileOp *clear = grid_stmt(g, 3)->op;
    assert_int_equal(clear->kind, TILE_CLEAR);
    assert_ptr_equal(clear->dst, cf);
    assert_int_equal(clear->loc.line, 14);

    /* the pipelined loop */
    const IrPipelined *pipe = grid_stmt(g, 4)->pipe;
    assert_int_equal(pipe->stages, 3);
    assert_int_equal(pipe->loc.line, 15);
    assert_string_equal(pipe->loop.var, "k");
    assert_string_equal(pipe->loop.lo, "0");
    assert_string_equal(pipe->loop.hi, "tile_cdiv(K, BK)");
    assert_string_equal(pipe->loop.step, "1");
    assert_int_equal(pipe->body.len, 3);

    const IrBuffer *a = unit_param(k, "A")->buf, *b = unit_param(k, "B")->buf, *c = unit_param(k, "C")->buf;
    const IrTileOp *la = ((const IrStmt *)pipe->body.items[0])->op;
    assert_int_equal(la->kind, TILE_LOAD);
    assert_ptr_equal(la->dst, as);
    assert_null(la->src);
    assert_ptr_equal(la->mat.buf, a);
    assert_int_equal(la->mat.nlead, 0);
    assert_string_equal(la->r0, "by * BM");
    assert_string_equal(la->c0, "k * BK");
    assert_string_equal(la->rows, "M");
    assert_string_equal(la->cols, "K");
    assert_int_equal(la->loc.line, 17);
    assert_int_equal(la->loc.col, 17);
    const IrTileOp *lb = ((const IrStmt *)pipe->body.items[1])->op;
    assert_int_equal(lb->kind, TILE_LOAD);
    assert_ptr_equal(lb->dst, bs);
    assert_ptr_equal(lb->mat.buf, b);
    assert_string_equal(lb->r0, "k * BK");
    assert_string_equal(lb->c0, "bx * BN");
    assert_string_equal(lb->rows, "K");
    assert_string_equal(lb->cols, "N");
    const IrTileOp *mm = ((const IrStmt *)pipe->body.items[2])->op;
    assert_int_equal(mm->kind, TILE_GEMM);
    assert_ptr_equal(mm->a, as);
    assert_ptr_equal(mm->b, bs);
    assert_ptr_equal(mm->c, cf);
    assert_false(mm->a_trans);
    assert_false(mm->b_trans);
    assert_null(mm->policy);
    assert_int_equal(mm->loc.line, 19);

    /* the store */
    const IrTileOp *st = grid_stmt(g, 5)->op;
    assert_int_equal(st->kind, TILE_STORE);
    assert_ptr_equal(st->src, cf);
    assert_null(st->dst);
    assert_ptr_equal(st->mat.buf, c);
    assert_int_equal(st->mat.nlead, 0);
    assert_string_equal(st->r0, "by * BM");
    assert_string_equal(st->c0, "bx * BN");
    assert_string_equal(st->rows, "M");
    assert_string_equal(st->cols, "N");
    assert_int_equal(st->loc.line, 21);
}

/* `tile tune` (the brief's GEMM has one) is built into the kernel's space:
 * its four constants, their values, and the file's own values (the space's
 * expansion is test_tune.c's). */
static void tune_space_of_brief_gemm(void **state)
{
    (void)state;
    const char *src = aprintf("#include <tilepp/tile.h>\n"
                              "enum { BM = 128, BN = 128, BK = 32, STAGES = 3 };\n"
                              "\n"
                              "#pragma tile kernel threads(128)\n"
                              "#pragma tile tune BM(64, 128) BN(128, 256) BK(32, 64) STAGES(2, 3, 4)\n"
                              "%s",
                              strstr(brief_gemm, "void gemm("));
    IrModule *m = unit_build(src);
    assert_non_null(m);
    assert_int_equal(diag_error_count(), 0);
    const IrTune *t = unit_kernel(m, "gemm")->tune;
    assert_non_null(t);
    assert_int_equal(t->nparams, 4);
    assert_int_equal(t->npoints, 24);
    const char *names[] = {"BM", "BN", "BK", "STAGES"};
    const long long source[] = {128, 128, 32, 3};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(t->params[i].name, names[i]);
        assert_int_equal(t->params[i].source_value, source[i]);
    }
    assert_int_equal(t->params[3].nvalues, 3);
    assert_int_equal(t->loc.line, 5);
}

static void matrix_slices(void **state)
{
    (void)state;
    static const char src[] =
        "#include <tilepp/tile.h>\n"
        "#pragma tile kernel threads(128)\n"
        "void attn(int B, int H, int S, int D, const half Q[B][H][S][D], const half K[B][H][S][D],\n"
        "          float O[B][H][S][S])\n"
        "{\n"
        "#pragma tile grid\n"
        "    for (int b = 0; b < B; b++)\n"
        "        for (int h = 0; h < H; h++)\n"
        "            for (int i0 = 0; i0 < S; i0 += 64) {\n"
        "#pragma tile shared\n"
        "                half Qs[64][64], Ks[64][64];\n"
        "#pragma tile fragment\n"
        "                float Sf[64][64];\n"
        "                tile_clear(Sf);\n"
        "#pragma tile pipelined stages(2)\n"
        "                for (int j0 = 0; j0 < S; j0 += 64) {\n"
        "                    tile_load(Qs, Q[b][h], i0, 0, S, D);\n"
        "                    tile_load(Ks, K[b][h], j0, 0, S, D);\n"
        "                    tile_gemm_nt(Qs, Ks, Sf);\n"
        "                }\n"
        "                tile_store(O[b][h], Sf, i0, 0);\n"
        "            }\n"
        "}\n";
    IrModule *m = unit_build(src);
    assert_non_null(m);
    expect_clean();
    const IrKernel *k = unit_kernel(m, "attn");
    const IrGrid *g = unit_grid(k, 0);
    assert_int_equal(g->depth, 3);
    assert_string_equal(g->loops[2].var, "i0");
    assert_string_equal(g->loops[2].step, "(64)");
    assert_int_equal(g->loops[2].step_const, 64);

    const IrTileOp *lq = unit_tile_op(&g->body, TILE_LOAD, 0);
    assert_ptr_equal(lq->mat.buf, unit_param(k, "Q")->buf);
    assert_int_equal(lq->mat.nlead, 2);
    assert_string_equal(lq->mat.lead[0], "b");
    assert_string_equal(lq->mat.lead[1], "h");
    const IrTileOp *lk = unit_tile_op(&g->body, TILE_LOAD, 1);
    assert_ptr_equal(lk->mat.buf, unit_param(k, "K")->buf);
    assert_int_equal(lk->mat.nlead, 2);

    const IrTileOp *mm = unit_tile_op(&g->body, TILE_GEMM, 0);
    assert_false(mm->a_trans);
    assert_true(mm->b_trans);

    /* the 4-argument store: no extents (the matrix's own are used) */
    const IrTileOp *st = unit_tile_op(&g->body, TILE_STORE, 0);
    assert_ptr_equal(st->mat.buf, unit_param(k, "O")->buf);
    assert_int_equal(st->mat.nlead, 2);
    assert_string_equal(st->mat.lead[0], "b");
    assert_string_equal(st->mat.lead[1], "h");
    assert_null(st->rows);
    assert_null(st->cols);

    /* a 3-D batched slice */
    static const char batched[] = "#include <tilepp/tile.h>\n"
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
                                  "            tile_load(As, A[b + 1 - 1], by * 64, 0, M, K);\n"
                                  "            tile_store(C[b], Cf, by * 64, 0, M, 64);\n"
                                  "        }\n"
                                  "}\n";
    m = unit_build(batched);
    assert_non_null(m);
    expect_clean();
    k = unit_kernel(m, "bg");
    g = unit_grid(k, 0);
    const IrTileOp *la = unit_tile_op(&g->body, TILE_LOAD, 0);
    assert_int_equal(la->mat.nlead, 1);
    assert_string_equal(la->mat.lead[0], "b + 1 - 1");
    st = unit_tile_op(&g->body, TILE_STORE, 0);
    assert_int_equal(st->mat.nlead, 1);
    assert_string_equal(st->mat.lead[0], "b");
}

static void gemm_transpositions(void **state)
{
    (void)state;
    static const struct {
        const char *call;
        bool a_trans, b_trans;
        int a0, a1, b0, b1; /* the shared tiles' shapes for M = N = 64, K = 32 */
    } cases[] = {
        {"tile_gemm", false, false, 64, 32, 32, 64},
        {"tile_gemm_nt", false, true, 64, 32, 64, 32},
        {"tile_gemm_tn", true, false, 32, 64, 32, 64},
        {"tile_gemm_tt", true, true, 32, 64, 64, 32},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *src =
            aprintf("#include <tilepp/tile.h>\n"
                    "#pragma tile kernel threads(128)\n"
                    "void g(int M, int N, const half A[M][%d], const half B[N][%d], float C[M][N])\n"
                    "{\n"
                    "#pragma tile grid\n"
                    "    for (int by = 0; by < M; by += 64) {\n"
                    "#pragma tile shared\n"
                    "        half As[%d][%d], Bs[%d][%d];\n"
                    "#pragma tile fragment\n"
                    "        float Cf[64][64];\n"
                    "        tile_clear(Cf);\n"
                    "        tile_load(As, A, 0, 0);\n"
                    "        tile_load(Bs, B, 0, 0);\n"
                    "        %s(As, Bs, Cf);\n"
                    "        tile_store(C, Cf, by, 0, M, N);\n"
                    "    }\n"
                    "}\n",
                    cases[i].a1, cases[i].b1, cases[i].a0, cases[i].a1, cases[i].b0, cases[i].b1, cases[i].call);
        Plan *plan = unit_lower(src);
        if (!plan)
            fail_msg("%s refused:\n%s", cases[i].call, unit_diag());
        const IrGrid *g = unit_grid(unit_kernel(plan->m, "g"), 0);
        const IrTileOp *mm = unit_tile_op(&g->body, TILE_GEMM, 0);
        assert_int_equal(mm->a_trans, cases[i].a_trans);
        assert_int_equal(mm->b_trans, cases[i].b_trans);
        /* loads outside a pipelined loop: the 4-argument form */
        const IrTileOp *la = unit_tile_op(&g->body, TILE_LOAD, 0);
        assert_null(la->rows);
        assert_null(la->cols);
        const GridPlan *gp = unit_grid_plan(plan, "g", 0);
        assert_int_equal(unit_shared_plan(gp, "As")->stages, 1);
        assert_int_equal(unit_shared_plan(gp, "Bs")->stages, 1);
        unit_teardown(NULL);
        unit_setup(NULL);
    }
}

static void fill_value(void **state)
{
    (void)state;
    static const char src[] = "#include <tilepp/tile.h>\n"
                              "#pragma tile kernel threads(64)\n"
                              "void f(int M, float v, float C[M][32])\n"
                              "{\n"
                              "#pragma tile grid\n"
                              "    for (int by = 0; by < M / 32; by++) {\n"
                              "#pragma tile fragment\n"
                              "        float Cf[32][32];\n"
                              "        tile_fill(Cf, v * 2.0f);\n"
                              "        tile_store(C, Cf, by * 32, 0);\n"
                              "    }\n"
                              "}\n";
    Plan *plan = unit_lower(src);
    assert_non_null(plan);
    expect_clean();
    const IrGrid *g = unit_grid(unit_kernel(plan->m, "f"), 0);
    const IrTileOp *fill = unit_tile_op(&g->body, TILE_FILL, 0);
    assert_string_equal(fill->dst->name, "Cf");
    assert_string_equal(fill->value, "v * 2.0f");
    const GridPlan *gp = unit_grid_plan(plan, "f", 0);
    assert_int_equal(gp->smem_bytes, 0);
    assert_int_equal(gp->shared.len, 0);
    assert_int_equal(gp->warps_m * gp->warps_n, 2);
}

/* ---- gemm_match: `#pragma tile gemm` on the user's code ---- */

static void gemm_loop_forms(void **state)
{
    (void)state;
    static const struct {
        const char *nest; /* lines 18.. */
        bool a_trans, b_trans;
        const char *bs; /* the Bs declaration */
    } cases[] = {
        /* C[i][j] += A[i][k] * B[k][j], loops i j k */
        {"                for (int i = 0; i < 64; i++)\n"
         "                    for (int j = 0; j < 64; j++)\n"
         "                        for (int kk = 0; kk < 32; kk++)\n"
         "                            Cf[i][j] += As[i][kk] * Bs[kk][j];",
         false, false, "Bs[32][64]"},
        /* B^T, C = C + ..., loops k i j */
        {"                for (int kk = 0; kk < 32; kk++)\n"
         "                    for (int i = 0; i < 64; i++)\n"
         "                        for (int j = 0; j < 64; j++)\n"
         "                            Cf[i][j] = Cf[i][j] + As[i][kk] * Bs[j][kk];",
         false, true, "Bs[64][32]"},
        /* braces, ++v, loops j i k */
        {"                for (int j = 0; j < 64; ++j) {\n"
         "                    for (int i = 0; i < 64; ++i) {\n"
         "                        for (int kk = 0; kk < 32; ++kk) {\n"
         "                            Cf[i][j] += As[i][kk] * Bs[kk][j];\n"
         "                        }\n"
         "                    }\n"
         "                }",
         false, false, "Bs[32][64]"},
        /* casts of the operands */
        {"                for (int i = 0; i < 64; i++)\n"
         "                    for (int j = 0; j < 64; j++)\n"
         "                        for (int kk = 0; kk < 32; kk++)\n"
         "                            Cf[i][j] += (float)As[i][kk] * (float)Bs[j][kk];",
         false, true, "Bs[64][32]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *src = aprintf("#include <tilepp/tile.h>\n"                                       /* 1 */
                                  "#pragma tile kernel threads(128)\n"                               /* 2 */
                                  "void g(int M, int N, int K, const half A[M][K], const half *B,\n" /* 3 */
                                  "       float C[M][N])\n"                                          /* 4 */
                                  "{\n"                                                              /* 5 */
                                  "#pragma tile grid\n"                                              /* 6 */
                                  "    for (int by = 0; by < tile_cdiv(M, 64); by++)\n"              /* 7 */
                                  "        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {\n"        /* 8 */
                                  "#pragma tile shared\n"                                            /* 9 */
                                  "            half As[64][32], %s;\n"                               /* 10 */
                                  "#pragma tile fragment\n"                                          /* 11 */
                                  "            float Cf[64][64];\n"                                  /* 12 */
                                  "            tile_clear(Cf);\n"                                    /* 13 */
                                  "#pragma tile pipelined stages(2)\n"                               /* 14 */
                                  "            for (int k = 0; k < tile_cdiv(K, 32); k++) {\n"       /* 15 */
                                  "                tile_load(As, A, by * 64, k * 32, M, K);\n"       /* 16 */
                                  "#pragma tile gemm policy(col)\n"                                  /* 17 */
                                  "%s\n"                                                             /* 18 */
                                  "            }\n"
                                  "            tile_store(C, Cf, by * 64, bx * 64, M, N);\n"
                                  "        }\n"
                                  "}\n",
                                  cases[i].bs, cases[i].nest);
        Plan *plan = unit_lower(src);
        if (!plan)
            fail_msg("case %zu refused:\n%s", i, unit_diag());
        const IrGrid *g = unit_grid(unit_kernel(plan->m, "g"), 0);
        const IrTileOp *mm = unit_tile_op(&g->body, TILE_GEMM, 0);
        assert_string_equal(mm->a->name, "As");
        assert_string_equal(mm->b->name, "Bs");
        assert_string_equal(mm->c->name, "Cf");
        assert_int_equal(mm->a_trans, cases[i].a_trans);
        assert_int_equal(mm->b_trans, cases[i].b_trans);
        assert_string_equal(mm->policy, "col");
        assert_int_equal(mm->loc.line, 18);
        /* the nest is gone: the pipelined body is a load and the gemm */
        assert_int_equal(unit_pipelined(g)->body.len, 2);
        const GridPlan *gp = unit_grid_plan(plan, "g", 0);
        assert_int_equal(gp->warps_m, 1);
        assert_int_equal(gp->warps_n, 4);
        unit_teardown(NULL);
        unit_setup(NULL);
    }
}

/* A transposed A (A[k][i]) in a loop nest (the cast keeps the products in
 * float, as the tensor cores do, and spares the build_f16.c warning). */
static void gemm_loop_a_transposed(void **state)
{
    (void)state;
    static const char src[] = "#include <tilepp/tile.h>\n"
                              "#pragma tile kernel threads(128)\n"
                              "void g(int M, int N, const bfloat16 A[32][M], const bfloat16 B[32][N], float C[M][N])\n"
                              "{\n"
                              "#pragma tile grid\n"
                              "    for (int by = 0; by < M; by += 64) {\n"
                              "#pragma tile shared\n"
                              "        bfloat16 As[32][64], Bs[32][64];\n"
                              "#pragma tile fragment\n"
                              "        float Cf[64][64];\n"
                              "        tile_clear(Cf);\n"
                              "        tile_load(As, A, 0, by, 32, M);\n"
                              "        tile_load(Bs, B, 0, 0, 32, N);\n"
                              "#pragma tile gemm\n"
                              "        for (int i = 0; i < 64; i++)\n"
                              "            for (int j = 0; j < 64; j++)\n"
                              "                for (int k = 0; k < 32; k++)\n"
                              "                    Cf[i][j] += (float)As[k][i] * Bs[k][j];\n"
                              "        tile_store(C, Cf, by, 0, M, N);\n"
                              "    }\n"
                              "}\n";
    Plan *plan = unit_lower(src);
    assert_non_null(plan);
    expect_clean();
    const IrGrid *g = unit_grid(unit_kernel(plan->m, "g"), 0);
    const IrTileOp *mm = unit_tile_op(&g->body, TILE_GEMM, 0);
    assert_true(mm->a_trans);
    assert_false(mm->b_trans);
    assert_int_equal(mm->a->elem.kind, SCALAR_BF16);
    assert_null(mm->policy);
}

/* A micro-kernel whose parameters come in another order than A, B, C (and
 * with B given N x K): the call binds each parameter to its tile. */
static void gemm_micro_kernel_call(void **state)
{
    (void)state;
    static const char src[] = "#include <tilepp/tile.h>\n"
                              "static void mm(float acc[64][64], const half b[64][32], const half a[64][32])\n"
                              "{\n"
                              "    for (int i = 0; i < 64; i++)\n"
                              "        for (int j = 0; j < 64; j++)\n"
                              "            for (int k = 0; k < 32; k++)\n"
                              "                acc[i][j] += a[i][k] * b[j][k];\n"
                              "}\n"
                              "#pragma tile kernel threads(128)\n"
                              "void g(int M, int N, const half A[M][32], const half B[N][32], float C[M][N])\n"
                              "{\n"
                              "#pragma tile grid\n"
                              "    for (int by = 0; by < M; by += 64) {\n"
                              "#pragma tile shared\n"
                              "        half As[64][32], Bs[64][32];\n"
                              "#pragma tile fragment\n"
                              "        float Cf[64][64];\n"
                              "        tile_clear(Cf);\n"
                              "        tile_load(As, A, by, 0, M, 32);\n"
                              "        tile_load(Bs, B, 0, 0, N, 32);\n"
                              "#pragma tile gemm policy(row)\n"
                              "        mm(Cf, Bs, As);\n"
                              "        tile_store(C, Cf, by, 0, M, N);\n"
                              "    }\n"
                              "}\n";
    Plan *plan = unit_lower(src);
    if (!plan)
        fail_msg("refused:\n%s", unit_diag());
    expect_clean();
    const IrGrid *g = unit_grid(unit_kernel(plan->m, "g"), 0);
    const IrTileOp *mm = unit_tile_op(&g->body, TILE_GEMM, 0);
    assert_string_equal(mm->a->name, "As");
    assert_string_equal(mm->b->name, "Bs");
    assert_string_equal(mm->c->name, "Cf");
    assert_false(mm->a_trans);
    assert_true(mm->b_trans);
    assert_string_equal(mm->policy, "row");
    assert_int_equal(mm->loc.line, 22);
    const GridPlan *gp = unit_grid_plan(plan, "g", 0);
    assert_int_equal(gp->warps_m, 4);
    assert_int_equal(gp->warps_n, 1);
}

/* What is not a product, and why (the reason after the common head). */
static void gemm_loop_refusals(void **state)
{
    (void)state;
    static const char head[] = "'#pragma tile gemm': this is not a matrix product C[i][j] += A[i][k] * B[k][j] over "
                               "whole tiles: ";
    static const struct {
        const char *nest;
        const char *where; /* line:col of the error */
        const char *why;
    } cases[] = {
        {"Cf[i][j] -= As[i][kk] * Bs[kk][j];", "22:29",
         "the statement must accumulate into C[i][j] with += (or C[i][j] = C[i][j] + ...)"},
        {"Cf[i][j] += As[i][kk] + Bs[kk][j];", "22:41",
         "the product must be A[..][..] * B[..][..], each subscripted by loop variables"},
        {"Cf[i][j] = As[i][kk] * Bs[kk][j];", "22:40", "the right side must be C[i][j] + A[i][k] * B[k][j]"},
        {"Cf[i][j] += As[kk][j] * Bs[kk][j];", NULL,
         "A must be A[i][k] (or A[k][i]) with i the row of C and k the third loop"},
        {"Cf[i][j] += As[i][kk] * Bs[kk][i];", NULL,
         "B must be B[k][j] (or B[j][k]) with j the column of C and k the third loop"},
        {"Cf[i][i] += As[i][kk] * Bs[kk][j];", NULL, "C must be subscripted by two different loop variables"},
        {"Cf[i][j] += As[i][kk] * Bs[kk][j] * 2;", "22:41",
         "the product must be A[..][..] * B[..][..], each subscripted by loop variables"},
        {"Cf[i][j] += As[i][kk + 0] * Bs[kk][j];", "22:41",
         "the product must be A[..][..] * B[..][..], each subscripted by loop variables"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *body = aprintf("%s#pragma tile gemm\n"
                                   "                for (int i = 0; i < 64; i++)\n"
                                   "                    for (int j = 0; j < 64; j++)\n"
                                   "                        for (int kk = 0; kk < 32; kk++)\n"
                                   "                            %s",
                                   loads, cases[i].nest);
        assert_null(unit_build(gemm_with_body(body)));
        assert_int_equal(diag_error_count(), 1);
        const char *want = aprintf("%s%s", head, cases[i].why);
        if (!strstr(unit_diag_first_line(), want))
            fail_msg("case %zu: expected \"%s\"; got:\n%s", i, want, unit_diag());
        if (cases[i].where) {
            const char *at = aprintf("unit_input.c:%s: error: ", cases[i].where);
            if (strncmp(unit_diag_first_line(), at, strlen(at)) != 0)
                fail_msg("case %zu: expected at %s; got:\n%s", i, cases[i].where, unit_diag());
        }
        unit_teardown(NULL);
        unit_setup(NULL);
    }

    /* loops: not from 0, a bound that is not constant, extents that are not
     * the tiles', a step of 2 */
    static const struct {
        const char *loops[3];
        const char *why;
    } loops_cases[] = {
        {{"for (int i = 1; i < 64; i++)", "for (int j = 0; j < 64; j++)", "for (int kk = 0; kk < 32; kk++)"},
         "each loop must be 'for (int v = 0; v < N; v++)' with a constant N"},
        {{"for (int i = 0; i < 64; i++)", "for (int j = 0; j < N; j++)", "for (int kk = 0; kk < 32; kk++)"},
         "each loop must be 'for (int v = 0; v < N; v++)' with a constant N"},
        {{"for (int i = 0; i < 64; i += 2)", "for (int j = 0; j < 64; j++)", "for (int kk = 0; kk < 32; kk++)"},
         "each loop must be 'for (int v = 0; v < N; v++)' with a constant N"},
        {{"for (int i = 0; i < 64; i++)", "for (int j = 0; j < 64; j++)", "for (int kk = 0; kk < 16; kk++)"},
         "its loops must run over the whole tiles (their extents differ from the arrays')"},
        {{"for (int i = 0; i < 32; i++)", "for (int j = 0; j < 64; j++)", "for (int kk = 0; kk < 32; kk++)"},
         "its loops must run over the whole tiles (their extents differ from the arrays')"},
    };
    for (size_t i = 0; i < sizeof loops_cases / sizeof loops_cases[0]; i++) {
        const char *body = aprintf("%s#pragma tile gemm\n"
                                   "                %s\n"
                                   "                    %s\n"
                                   "                        %s\n"
                                   "                            Cf[i][j] += As[i][kk] * Bs[kk][j];",
                                   loads, loops_cases[i].loops[0], loops_cases[i].loops[1], loops_cases[i].loops[2]);
        assert_null(unit_build(gemm_with_body(body)));
        assert_int_equal(diag_error_count(), 1);
        const char *want = aprintf("%s%s", head, loops_cases[i].why);
        if (!strstr(unit_diag_first_line(), want))
            fail_msg("loop case %zu: expected \"%s\"; got:\n%s", i, want, unit_diag());
        unit_teardown(NULL);
        unit_setup(NULL);
    }

    /* a perfect nest of three loops */
    const char *two = aprintf("%s#pragma tile gemm\n"
                              "                for (int i = 0; i < 64; i++)\n"
                              "                    for (int j = 0; j < 64; j++)\n"
                              "                        Cf[i][j] += As[i][j] * Bs[j][j];",
                              loads);
    assert_null(unit_build(gemm_with_body(two)));
    expect_error_with("it must be a perfect nest of three for loops");
}

/* ---- lower_tile: shared memory ---- */

static void brief_gemm_plan(void **state)
{
    (void)state;
    Plan *plan = unit_lower(brief_gemm);
    assert_non_null(plan);
    expect_clean();
    const GridPlan *gp = unit_grid_plan(plan, "gemm", 0);
    assert_string_equal(gp->kernel_name, "tile_gemm_grid0");
    assert_int_equal(gp->stmt_index, 0);
    assert_int_equal(gp->shared.len, 2);
    const SharedPlan *as = unit_shared_plan(gp, "As"), *bs = unit_shared_plan(gp, "Bs");
    assert_ptr_equal(gp->shared.items[0], as);
    assert_int_equal(as->stages, 3);
    assert_int_equal(as->offset, 0);
    assert_int_equal(as->bytes, 128 * 32 * 2);
    assert_int_equal(bs->stages, 3);
    assert_int_equal(bs->offset, 3 * 8192);
    assert_int_equal(bs->bytes, 32 * 128 * 2);
    assert_int_equal(gp->smem_bytes, 6 * 8192);
    assert_ptr_equal(grid_shared(gp, as->buf), as);
    /* 4 warps over 128 x 128: 2 x 2 warp tiles of 64 x 64 */
    assert_int_equal(gp->warps_m, 2);
    assert_int_equal(gp->warps_n, 2);
    assert_int_equal(gp->min_blocks, 1); /* 128 accumulator values a thread */
    assert_int_equal(gp->decls.len, 0);
}

/* Offsets in declaration order; the stages a tile gets come from the
 * pipelined loop that loads it. */
static void shared_offsets_and_stages(void **state)
{
    (void)state;
    static const char src[] = "#include <tilepp/tile.h>\n"
                              "#pragma tile kernel threads(128)\n"
                              "void g(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])\n"
                              "{\n"
                              "    const int kt = tile_cdiv(K, 32);\n"
                              "#pragma tile grid\n"
                              "    for (int by = 0; by < tile_cdiv(M, 64); by++)\n"
                              "        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {\n"
                              "#pragma tile shared\n"
                              "            half As[64][32], S[64][64], Bs[32][64];\n"
                              "#pragma tile shared\n"
                              "            bfloat16 U[16][128];\n"
                              "#pragma tile fragment\n"
                              "            float Cf[64][64];\n"
                              "            tile_clear(Cf);\n"
                              "            tile_load(S, A, by * 64, 0, M, K);\n"
                              "#pragma tile pipelined stages(4)\n"
                              "            for (int k = 0; k < kt; k++) {\n"
                              "                tile_load(As, A, by * 64, k * 32, M, K);\n"
                              "                tile_load(Bs, B, k * 32, bx * 64, K, N);\n"
                              "                tile_gemm(As, Bs, Cf);\n"
                              "            }\n"
                              "            tile_store(C, Cf, by * 64, bx * 64, M, N);\n"
                              "        }\n"
                              "}\n";
    Plan *plan = unit_lower(src);
    assert_non_null(plan);
    expect_clean();
    const GridPlan *gp = unit_grid_plan(plan, "g", 0);
    assert_int_equal(gp->stmt_index, 1);
    assert_int_equal(gp->shared.len, 4);
    static const struct {
        const char *name;
        int stages;
        long long offset, bytes;
    } want[] = {
        {"As", 4, 0, 4096},
        {"S", 1, 16384, 8192},
        {"Bs", 4, 24576, 4096},
        {"U", 1, 40960, 4096},
    };
    for (int i = 0; i < 4; i++) {
        const SharedPlan *sp = gp->shared.items[i];
        assert_string_equal(sp->buf->name, want[i].name);
        assert_int_equal(sp->stages, want[i].stages);
        assert_int_equal(sp->offset, want[i].offset);
        assert_int_equal(sp->bytes, want[i].bytes);
        assert_int_equal(sp->offset % 128, 0);
    }
    assert_int_equal(gp->smem_bytes, 45056);
    /* the kernel-level declaration the pipelined loop's bound reads */
    assert_int_equal(gp->decls.len, 1);
    assert_int_equal(((const IrStmt *)gp->decls.items[0])->loc.line, 5);
}

/* One shared tile X[rows][64] of half (128-byte rows), two stages. */
static const char *smem_src(int rows)
{
    return aprintf("#include <tilepp/tile.h>\n"
                   "#pragma tile kernel threads(128)\n"
                   "void s(int M, int K, const half A[M][K])\n"
                   "{\n"
                   "#pragma tile grid\n"
                   "    for (int by = 0; by < M; by++) {\n"
                   "#pragma tile shared\n"
                   "        half X[%d][64];\n"
                   "#pragma tile pipelined stages(2)\n"
                   "        for (int k = 0; k < K; k += 64)\n"
                   "            tile_load(X, A, by, k, M, K);\n"
                   "    }\n"
                   "}\n",
                   rows);
}

/* The budget of a block: 163 KB on sm_80, 227 KB on sm_90a; the smallest
 * of the targets counts. Boundaries exactly. */
static void shared_budget_per_arch(void **state)
{
    (void)state;
    /* 2 x 652 x 128 = 166912 = 163 KB: fits sm_80 exactly */
    Plan *plan = unit_lower(smem_src(652));
    assert_non_null(plan);
    expect_clean();
    assert_int_equal(unit_grid_plan(plan, "s", 0)->smem_bytes, 166912);
    unit_teardown(NULL);
    unit_setup(NULL);

    assert_null(unit_lower(smem_src(653)));
    expect_error("unit_input.c:5:1: error: this block needs 167168 bytes of shared memory (X: 2 x 83584), more than "
                 "the 166912 a block may have on sm_80: use smaller tiles or fewer stages");
    unit_teardown(NULL);
    unit_setup(NULL);

    assert_null(unit_lower_archs(smem_src(653), ARCH_SM80));
    expect_error_with("more than the 166912 a block may have on sm_80");
    unit_teardown(NULL);
    unit_setup(NULL);

    /* sm_90a alone: 2 x 908 x 128 = 232448 = 227 KB fits exactly */
    plan = unit_lower_archs(smem_src(908), ARCH_SM90A);
    assert_non_null(plan);
    expect_clean();
    assert_int_equal(unit_grid_plan(plan, "s", 0)->smem_bytes, 232448);
    unit_teardown(NULL);
    unit_setup(NULL);

    assert_null(unit_lower_archs(smem_src(909), ARCH_SM90A));
    expect_error("unit_input.c:5:1: error: this block needs 232704 bytes of shared memory (X: 2 x 116352), more than "
                 "the 232448 a block may have on sm_90a: use smaller tiles or fewer stages");
    unit_teardown(NULL);
    unit_setup(NULL);

    /* the same 227 KB with sm_80 among the targets */
    assert_null(unit_lower_archs(smem_src(908), ARCH_SM80 | ARCH_SM90A));
    expect_error_with("more than the 166912 a block may have on sm_80");
}

static void shared_row_bytes(void **state)
{
    (void)state;
    /* half [64][16]: 32-byte rows */
    const char *src = gemm_with_body("                tile_load(As, A, by * 64, k * 32, M, K);");
    src = aprintf("%.*shalf As[64][16], Bs[32][64];%s", (int)(strstr(src, "half As[64][32]") - src), src,
                  strstr(src, "half As[64][32], Bs[32][64];") + strlen("half As[64][32], Bs[32][64];"));
    assert_null(unit_lower(src));
    expect_error(
        "unit_input.c:10:18: error: shared tile 'As': 2-D shared tiles are stored in swizzled 16-byte chunks "
        "(free of bank conflicts for cp.async and ldmatrix), in rows of a multiple of 64 bytes (32 bytes here)");
    unit_teardown(NULL);
    unit_setup(NULL);

    /* float [64][24]: 96-byte rows */
    src = gemm_with_body("                tile_load(As, A, by * 64, k * 32, M, K);");
    src = aprintf("%.*shalf As[64][32], Bs[32][64];\n#pragma tile shared\n            float F[64][24];%s",
                  (int)(strstr(src, "half As[64][32]") - src), src,
                  strstr(src, "half As[64][32], Bs[32][64];") + strlen("half As[64][32], Bs[32][64];"));
    assert_null(unit_lower(src));
    expect_error_with("shared tile 'F': 2-D shared tiles are stored in swizzled 16-byte chunks (free of bank "
                      "conflicts for cp.async and ldmatrix), in rows of a multiple of 64 bytes (96 bytes here)");
}

/* ---- lower_tile: warps and registers ---- */

static void warp_arrangements(void **state)
{
    (void)state;
    static const struct {
        int threads, bm, bn;
        const char *policy;
        int wm, wn;
    } cases[] = {
        {128, 128, 128, NULL, 2, 2},  {128, 128, 128, "square", 2, 2}, {128, 128, 128, "row", 4, 1},
        {128, 128, 128, "col", 1, 4}, {128, 64, 64, NULL, 2, 2},       {128, 64, 64, "row", 4, 1},
        {128, 32, 128, NULL, 1, 4},   {128, 128, 32, NULL, 4, 1},      {256, 128, 256, NULL, 2, 4},
        {256, 128, 64, NULL, 4, 2},   {256, 256, 64, "row", 8, 1},     {256, 64, 256, "col", 1, 8},
        {256, 128, 128, "row", 8, 1}, {32, 16, 16, NULL, 1, 1},        {32, 64, 32, NULL, 1, 1},
        {512, 64, 64, NULL, 4, 4},    {64, 64, 64, "row", 2, 1},       {64, 64, 64, "col", 1, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *pragma =
            cases[i].policy ? aprintf("#pragma tile gemm policy(%s)", cases[i].policy) : "// no policy";
        Plan *plan = unit_lower(nt_gemm(cases[i].threads, cases[i].bm, cases[i].bn, 2, pragma));
        if (!plan)
            fail_msg("case %zu (%d threads, %dx%d, %s) refused:\n%s", i, cases[i].threads, cases[i].bm, cases[i].bn,
                     cases[i].policy ? cases[i].policy : "no policy", unit_diag());
        const GridPlan *gp = unit_grid_plan(plan, "g", 0);
        if (gp->warps_m != cases[i].wm || gp->warps_n != cases[i].wn)
            fail_msg("case %zu (%d threads, %dx%d, %s): warps %dx%d, expected %dx%d", i, cases[i].threads, cases[i].bm,
                     cases[i].bn, cases[i].policy ? cases[i].policy : "no policy", gp->warps_m, gp->warps_n,
                     cases[i].wm, cases[i].wn);
        /* every warp tile a multiple of 16 x 16, all warps used */
        assert_int_equal(gp->warps_m * gp->warps_n, cases[i].threads / 32);
        assert_int_equal(cases[i].bm % (gp->warps_m * 16), 0);
        assert_int_equal(cases[i].bn % (gp->warps_n * 16), 0);
        unit_teardown(NULL);
        unit_setup(NULL);
    }
}

static void warp_arrangements_refused(void **state)
{
    (void)state;
    static const struct {
        int threads, bm, bn;
        const char *policy;
        const char *message;
    } cases[] = {
        {128, 48, 48, NULL,
         "unit_input.c:12:19: error: cannot share the 48x48 fragment 'Cf' among 4 warps: each warp needs a multiple "
         "of 16x16"},
        {96, 128, 64, NULL,
         "unit_input.c:12:19: error: cannot share the 128x64 fragment 'Cf' among 3 warps: each warp needs a "
         "multiple of 16x16"},
        {128, 32, 128, "row",
         "unit_input.c:12:19: error: cannot share the 32x128 fragment 'Cf' among 4 warps with policy row: each warp "
         "needs a multiple of 16x16"},
        {128, 128, 32, "col",
         "unit_input.c:12:19: error: cannot share the 128x32 fragment 'Cf' among 4 warps with policy col: each warp "
         "needs a multiple of 16x16"},
        {1024, 64, 64, NULL,
         "unit_input.c:12:19: error: cannot share the 64x64 fragment 'Cf' among 32 warps: each warp needs a multiple "
         "of 16x16"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *pragma =
            cases[i].policy ? aprintf("#pragma tile gemm policy(%s)", cases[i].policy) : "// no policy";
        assert_null(unit_lower(nt_gemm(cases[i].threads, cases[i].bm, cases[i].bn, 2, pragma)));
        if (diag_error_count() != 1 || strcmp(unit_diag_first_line(), cases[i].message) != 0)
            fail_msg("case %zu: expected\n%s\ngot:\n%s", i, cases[i].message, unit_diag());
        unit_teardown(NULL);
        unit_setup(NULL);
    }
}

/* At most 176 accumulator values per thread up to 256 threads, fewer above. */
static void accumulator_budget(void **state)
{
    (void)state;
    /* 128 x 256 over 256 threads: 128 each, the limit */
    Plan *plan = unit_lower(nt_gemm(256, 128, 256, 2, NULL));
    assert_non_null(plan);
    expect_clean();
    unit_teardown(NULL);
    unit_setup(NULL);

    assert_null(unit_lower(nt_gemm(128, 128, 256, 2, NULL)));
    expect_error("unit_input.c:12:19: error: the block's fragments would hold 256 values in each of the 128 "
                 "threads' registers; at most 176 fit without spilling (of a thread's 255 registers, tilepp gives "
                 "fragments at most 176, up to 256 threads): use more threads (with threads(256): 128 values a "
                 "thread, of at most 176) or smaller tiles");
    unit_teardown(NULL);
    unit_setup(NULL);

    assert_null(unit_lower(nt_gemm(128, 256, 256, 2, NULL)));
    expect_error("unit_input.c:12:19: error: the block's fragments would hold 512 values in each of the 128 "
                 "threads' registers; at most 176 fit without spilling (of a thread's 255 registers, tilepp gives "
                 "fragments at most 176, up to 256 threads): use smaller tiles");
    unit_teardown(NULL);
    unit_setup(NULL);

    /* above 256 threads each has fewer registers: the advice is fewer threads */
    /* (threads(512) would not do either: 80 values, of at most 64) */
    assert_null(unit_lower(nt_gemm(1024, 128, 320, 2, NULL)));
    expect_error("unit_input.c:12:19: error: the block's fragments would hold 40 values in each of the 1024 "
                 "threads' registers; at most 32 fit without spilling (65536 registers / 1024 threads = 64 a thread, "
                 "32 of them kept for addresses and operands): use fewer threads (with threads(256): 160 values a "
                 "thread, of at most 176) or smaller tiles");
}

/* Two blocks per multiprocessor (__launch_bounds__ min blocks) when the
 * fragments hold at most 64 values a thread and two blocks' shared memory
 * fits the smallest target. */
static void occupancy(void **state)
{
    (void)state;
    static const struct {
        int threads, bm, bn, stages;
        unsigned archs;
        int min_blocks;
    } cases[] = {
        {128, 128, 128, 2, ARCH_SM80 | ARCH_SM90A, 1}, /* 128 values a thread */
        {128, 64, 64, 2, ARCH_SM80 | ARCH_SM90A, 2},   /* 32 */
        {128, 128, 64, 2, ARCH_SM80 | ARCH_SM90A, 2},  /* 64 */
        {128, 64, 128, 3, ARCH_SM80 | ARCH_SM90A, 2},  /* 64 */
        {256, 128, 128, 2, ARCH_SM80 | ARCH_SM90A, 2}, /* 64 */
        {256, 128, 256, 2, ARCH_SM80 | ARCH_SM90A, 1}, /* 128 */
        {256, 128, 128, 8, ARCH_SM80 | ARCH_SM90A, 1}, /* 2 x 128 KB > 163 KB */
        {256, 128, 128, 7, ARCH_SM80 | ARCH_SM90A, 1}, /* 2 x 112 KB > 163 KB */
        {256, 128, 128, 7, ARCH_SM90A, 2},             /* 2 x 112 KB <= 227 KB */
        {256, 128, 128, 8, ARCH_SM90A, 1},             /* 2 x 128 KB > 227 KB */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Plan *plan = unit_lower_archs(nt_gemm(cases[i].threads, cases[i].bm, cases[i].bn, cases[i].stages, NULL),
                                      cases[i].archs);
        if (!plan)
            fail_msg("case %zu refused:\n%s", i, unit_diag());
        const GridPlan *gp = unit_grid_plan(plan, "g", 0);
        if (gp->min_blocks != cases[i].min_blocks)
            fail_msg("case %zu (%d threads, %dx%d, %d stages, %lld bytes): min_blocks %d, expected %d", i,
                     cases[i].threads, cases[i].bm, cases[i].bn, cases[i].stages, gp->smem_bytes, gp->min_blocks,
                     cases[i].min_blocks);
        unit_teardown(NULL);
        unit_setup(NULL);
    }
}

/* A load's column origin is known to be a multiple of 16 bytes (8 halves)
 * through sums, products, constants, enum constants and block loop variables
 * that start at and step by such multiples; when every load of a block has
 * one, the kernel also comes in a 16-byte-aligned variant. */
static void load_alignment(void **state)
{
    (void)state;
    /* nonneg: tilepp can tell c0 is never negative; where it cannot, the
     * load goes element by element (reading 0 before the matrix), and is
     * not one of the cp.async loads whose alignment the variants test */
    static const struct {
        const char *c0;
        bool aligned, nonneg;
    } cases[] = {
        {"k * 32", true, true},       {"k * BK", true, true},  {"k0", true, true},     {"k0 + 16", true, true},
        {"k * 32 - 8", true, false},  {"8", true, true},       {"0", true, true},      {"bx * 64 + k0", true, true},
        {"k * 32 + 4", false, true},  {"k", false, true},      {"off", false, false},  {"k0 + off", false, false},
        {"k * 32 + 12", false, true}, {"k0 / 2", false, true}, {"4 * k", false, true}, {"k1", false, true},
        {"-k", false, false},         {"k - 1", false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* the pipelined loop has one variable: k (step 1) in the first
         * form, k0 (step BK) in the second; k1 starts at 1 */
        const char *var = strstr(cases[i].c0, "k0") ? "k0" : strstr(cases[i].c0, "k1") ? "k1" : "k";
        const char *loop = strcmp(var, "k0") == 0   ? "for (int k0 = 0; k0 < K; k0 += BK)"
                           : strcmp(var, "k1") == 0 ? "for (int k1 = 1; k1 < K; k1 += BK)"
                                                    : "for (int k = 0; k < tile_cdiv(K, BK); k++)";
        const char *src =
            aprintf("#include <tilepp/tile.h>\n"
                    "enum { BK = 32 };\n"
                    "#pragma tile kernel threads(128)\n"
                    "void g(int M, int N, int K, int off, const half A[M][K], const half B[K][N], float C[M][N])\n"
                    "{\n"
                    "#pragma tile grid\n"
                    "    for (int by = 0; by < tile_cdiv(M, 64); by++)\n"
                    "        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {\n"
                    "#pragma tile shared\n"
                    "            half As[64][32], Bs[32][64];\n"
                    "#pragma tile fragment\n"
                    "            float Cf[64][64];\n"
                    "            tile_clear(Cf);\n"
                    "#pragma tile pipelined stages(2)\n"
                    "            %s {\n"
                    "                tile_load(As, A, by * 64, %s, M, K);\n"
                    "                tile_load(Bs, B, 0, bx * 64, K, N);\n"
                    "                tile_gemm(As, Bs, Cf);\n"
                    "            }\n"
                    "            tile_store(C, Cf, by * 64, bx * 64, M, N);\n"
                    "        }\n"
                    "}\n",
                    loop, cases[i].c0);
        Plan *plan = unit_lower(src);
        if (!plan)
            fail_msg("case %zu (c0 = %s) refused:\n%s", i, cases[i].c0, unit_diag());
        const GridPlan *gp = unit_grid_plan(plan, "g", 0);
        const IrTileOp *la = unit_tile_op(&gp->grid->body, TILE_LOAD, 0);
        const IrTileOp *lb = unit_tile_op(&gp->grid->body, TILE_LOAD, 1);
        if (la->c0_aligned != cases[i].aligned)
            fail_msg("case %zu: c0 = %s: c0_aligned %d, expected %d", i, cases[i].c0, la->c0_aligned, cases[i].aligned);
        assert_true(lb->c0_aligned); /* bx * 64 */
        if (la->origin_nonneg != cases[i].nonneg)
            fail_msg("case %zu: c0 = %s: origin_nonneg %d, expected %d", i, cases[i].c0, la->origin_nonneg,
                     cases[i].nonneg);
        assert_true(lb->origin_nonneg);
        assert_int_equal(gp->loads.len, cases[i].nonneg ? 2 : 1);
        assert_int_equal(gp->align_variants, cases[i].aligned || !cases[i].nonneg);
        unit_teardown(NULL);
        unit_setup(NULL);
    }
}

/* ---- build_tile: refusals ---- */

/* Case i: `src` is refused with exactly one error, `message`. Resets the
 * diagnostics for the next case. */
static void expect_one_refusal(size_t i, const char *src, const char *message)
{
    assert_null(unit_lower(src));
    if (diag_error_count() != 1 || strcmp(unit_diag_first_line(), message) != 0)
        fail_msg("case %zu: expected one error\n%s\ngot:\n%s", i, message, unit_diag());
    unit_teardown(NULL);
    unit_setup(NULL);
}

static void tile_op_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *body; /* lines 16.. */
        const char *message;
    } cases[] = {
        {"                tile_load(As, A, by * 64, k * 32, M);",
         "unit_input.c:16:17: error: 'tile_load' of a 2-D tile takes 4 or 6 arguments, not 5"},
        {"                tile_load(As, A, by * 64);",
         "unit_input.c:16:17: error: 'tile_load' of a 2-D tile takes 4 or 6 arguments, not 3"},
        {"                tile_load(As, A, by * 64, k * 32, M, K, 0);",
         "unit_input.c:16:17: error: 'tile_load' takes 4 or 6 arguments (tile and matrix, r0, c0 [, rows, cols]), "
         "or 3 or 4 with a 1-D tile (tile and vector, i0 [, n])"},
        {"                tile_load(Cf, A, by * 64, k * 32, M, K);",
         "unit_input.c:16:17: error: in a pipelined loop tile_load fills shared tiles, which have a buffer per "
         "stage; load fragment 'Cf' before or after the loop, or through a shared tile"},
        {"                tile_load(As, A[0], by * 64, k * 32, M, K);",
         "unit_input.c:16:31: error: argument 2 of 'tile_load' must be a matrix parameter (a 2-D array such as "
         "'const half A[M][K]', or a 2-D slice of one such as 'Q[b][h]')"},
        {"                tile_load(A, A, by * 64, k * 32, M, K);",
         "unit_input.c:16:27: error: the destination of 'tile_load' must be a '#pragma tile shared' or 'fragment' "
         "array of this block"},
        {"                tile_gemm(As, Bs, C);",
         "unit_input.c:16:35: error: the accumulator of 'tile_gemm' must be a '#pragma tile shared' or 'fragment' "
         "array of this block"},
        {"                tile_gemm(Bs, As, Cf);",
         "unit_input.c:16:17: error: 'tile_gemm': the shapes do not match: A is 32x64, B is 64x32, C is 64x64"},
        {"                tile_gemm_tn(As, Bs, Cf);",
         "unit_input.c:16:17: error: 'tile_gemm_tn': the shapes do not match: A (transposed) is 32x64, B is 32x64, "
         "C is 64x64"},
        {"                tile_copy(As, Bs);",
         "unit_input.c:16:17: error: tile_copy: 'As' and 'Bs' must be tiles of the same shape"},
        {"#pragma tile gemm\n                tile_clear(Cf);",
         "unit_input.c:16:1: error: '#pragma tile gemm' applies to a matrix multiply, not to 'tile_clear'"},
        {"                tile_load(As, A, by * 64, k * 32, M, K);\n"
         "                tile_gemm(As, Bs, Cf);\n"
         "                tile_load(Bs, B, k * 32, bx * 64, K, N);",
         "unit_input.c:18:17: error: in a pipelined loop the tile loads come first, before the work that uses them"},
        {"#pragma tile pipelined stages(2)\n"
         "                for (int kk = 0; kk < 2; kk++)\n"
         "                    tile_gemm(As, Bs, Cf);",
         "unit_input.c:16:1: error: pipelined loops cannot be nested"},
        {"                int x = k;",
         "unit_input.c:16:17: error: a pipelined loop holds its tile loads, then tile operations on what they "
         "loaded; this statement belongs before or after the loop"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_one_refusal(i, gemm_with_body(cases[i].body), cases[i].message);
}

static void clause_ranges(void **state)
{
    (void)state;
    static const struct {
        const char *from, *to, *message;
    } cases[] = {
        {"stages(STAGES)", "stages(0)", "unit_input.c:15:31: error: stages(0) is out of range: expected 1 to 8"},
        {"stages(STAGES)", "stages(9)", "unit_input.c:15:31: error: stages(9) is out of range: expected 1 to 8"},
        {"stages(STAGES)", "stages(-1)", "unit_input.c:15:31: error: stages(-1) is out of range: expected 1 to 8"},
        {"swizzle(8)", "swizzle(65)", "unit_input.c:7:27: error: swizzle(65) is out of range: expected 1 to 64"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *at = strstr(brief_gemm, cases[i].from);
        const char *src =
            aprintf("%.*s%s%s", (int)(at - brief_gemm), brief_gemm, cases[i].to, at + strlen(cases[i].from));
        assert_null(unit_build(src));
        assert_true(diag_error_count() >= 1);
        if (strcmp(unit_diag_first_line(), cases[i].message) != 0)
            fail_msg("case %zu: expected\n%s\ngot:\n%s", i, cases[i].message, unit_diag());
        unit_teardown(NULL);
        unit_setup(NULL);
    }
    /* stages(1) and stages(8) are the ends of the range */
    for (int s = 1; s <= 8; s += 7) {
        const char *at = strstr(brief_gemm, "stages(STAGES)");
        const char *src =
            aprintf("%.*sstages(%d)%s", (int)(at - brief_gemm), brief_gemm, s, at + strlen("stages(STAGES)"));
        Plan *plan = unit_lower(src);
        assert_non_null(plan);
        const GridPlan *gp = unit_grid_plan(plan, "gemm", 0);
        assert_int_equal(unit_shared_plan(gp, "As")->stages, s);
        assert_int_equal(gp->smem_bytes, 2 * s * 8192);
        unit_teardown(NULL);
        unit_setup(NULL);
    }
}

static void tile_decl_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *decl, *message;
    } cases[] = {
        {"#pragma tile local\n            float r[4];",
         "unit_input.c:13:1: error: '#pragma tile local' in a grid block is not implemented yet in this version of "
         "tilepp (it works in parallel loop bodies)"},
        {"#pragma tile shared\n            half Z[4][64] = {0};",
         "unit_input.c:14:18: error: tile 'Z' cannot have an initializer: use tile_clear or tile_fill"},
        {"#pragma tile fragment\n            float z;",
         "unit_input.c:14:19: error: tile 'z' needs an array of constant extents with arithmetic elements"},
        {"#pragma tile fragment\n            float z[2][16][16];",
         "unit_input.c:14:19: error: tile 'z' has more than 2 dimensions: tiles are 1-D or 2-D"},
        {"#pragma tile shared\n            int z[64];",
         "unit_input.c:14:17: error: tile 'z' is in shared memory, which this version of tilepp uses for float, half "
         "and bfloat16 tiles"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *src = gemm_with_body(loads);
        const char *at = strstr(src, "            tile_clear(Cf);");
        expect_one_refusal(i, aprintf("%.*s%s\n%s", (int)(at - src), src, cases[i].decl, at), cases[i].message);
    }
}

/* ---- the element-wise tile operations: 1-D tiles, converting loads,
 * shared tiles filled, copied and stored ---- */

/* src with the first `old` replaced by `new`; the test fails if absent. */
static const char *str_replace_once(const char *src, const char *old, const char *new)
{
    const char *at = strstr(src, old);
    assert_non_null(at);
    return aprintf("%.*s%s%s", (int)(at - src), src, new, at + strlen(old));
}

/* A block of 128 threads around the brief's mainloop, with `decls` and
 * `before` ahead of the loop (line 18 onwards) and `after` behind it. */
static const char *elementwise_src(const char *decls, const char *before, const char *after)
{
    return aprintf("#include <tilepp/tile.h>\n"                                                           /* 1 */
                   "#pragma tile kernel threads(128)\n"                                                   /* 2 */
                   "void g(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N],\n" /* 3 */
                   "       const float *bias, const float X[M][N], const float F[M][K], half *y)\n"       /* 4 */
                   "{\n"                                                                                  /* 5 */
                   "#pragma tile grid\n"                                                                  /* 6 */
                   "    for (int by = 0; by < tile_cdiv(M, 64); by++)\n"                                  /* 7 */
                   "        for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {\n"                            /* 8 */
                   "#pragma tile shared\n"                                                                /* 9 */
                   "            half As[64][32], Bs[32][64];\n"                                           /* 10 */
                   "#pragma tile fragment\n"                                                              /* 11 */
                   "            float Cf[64][64];\n"                                                      /* 12 */
                   "%s\n"                                                                                 /* 13.. */
                   "            tile_clear(Cf);\n"
                   "%s\n"
                   "#pragma tile pipelined stages(2)\n"
                   "            for (int k = 0; k < tile_cdiv(K, 32); k++) {\n"
                   "                tile_load(As, A, by * 64, k * 32, M, K);\n"
                   "                tile_load(Bs, B, k * 32, bx * 64, K, N);\n"
                   "                tile_gemm(As, Bs, Cf);\n"
                   "            }\n"
                   "%s\n"
                   "            tile_store(C, Cf, by * 64, bx * 64, M, N);\n"
                   "        }\n"
                   "}\n",
                   decls, before, after);
}

static void elementwise_plan(void **state)
{
    (void)state;
    Plan *plan = unit_lower(elementwise_src("#pragma tile shared\n"
                                            "            float bs[64];\n"
                                            "#pragma tile shared\n"
                                            "            half Ts[64][64];\n"
                                            "#pragma tile fragment\n"
                                            "            float b[200];\n"
                                            "#pragma tile fragment\n"
                                            "            half Hf[64][64];",
                                            "            tile_load(bs, bias, bx * 64, N);\n"
                                            "            tile_load(b, bias, bx * 64 + 1);\n"
                                            "            tile_load(Hf, X, by * 64, bx * 64, M, N);\n"
                                            "            tile_fill(Ts, 0.5f);",
                                            "            tile_copy(Ts, Ts);\n"
                                            "            tile_store(y, b, 3, 100);\n"
                                            "            tile_store(C, Ts, by * 64, bx * 64, M, N);"));
    if (!plan)
        fail_msg("refused:\n%s", unit_diag());
    const GridPlan *gp = unit_grid_plan(plan, "g", 0);
    /* 1-D shared tiles are plain arrays, rounded up to 128 bytes */
    const SharedPlan *bs = unit_shared_plan(gp, "bs");
    assert_int_equal(bs->bytes, 256);
    assert_int_equal(bs->stages, 1);
    /* only the pipeline's two same-type 2-D loads are cp.async copies */
    assert_int_equal(gp->loads.len, 2);
    const IrTileOp *load_bs = unit_tile_op(&gp->grid->body, TILE_LOAD, 0);
    const IrTileOp *load_b = unit_tile_op(&gp->grid->body, TILE_LOAD, 1);
    const IrTileOp *load_hf = unit_tile_op(&gp->grid->body, TILE_LOAD, 2);
    assert_false(tile_load_is_async(load_bs));
    assert_false(tile_load_is_async(load_b));
    assert_false(tile_load_is_async(load_hf));
    assert_true(tile_load_is_async(unit_tile_op(&unit_pipelined(gp->grid)->body, TILE_LOAD, 0)));
    /* a 1-D window is row 0 of a one-row matrix; the 3-argument form has no n */
    assert_string_equal(load_bs->r0, "0");
    assert_string_equal(load_bs->c0, "bx * 64");
    assert_string_equal(load_bs->cols, "N");
    assert_null(load_b->cols);
    /* registers: 200 elements over 128 threads take 2 a thread */
    assert_int_equal(fragment_values_per_thread(unit_grid_tile(gp->grid, "b"), 128), 2);
    assert_int_equal(fragment_values_per_thread(unit_grid_tile(gp->grid, "Hf"), 128), 32);
    /* shared memory outside the pipelined loop keeps the grid on sm_80 */
    assert_null(gp->sm90);
    assert_non_null(gp->sm90_why);
}

static void elementwise_sm90(void **state)
{
    (void)state;
    /* C loaded into the accumulator first (C += A B): fragment work only,
     * so the sm_90a variant stays */
    Plan *plan = unit_lower(elementwise_src("", "            tile_load(Cf, X, by * 64, bx * 64, M, N);", ""));
    if (!plan)
        fail_msg("refused:\n%s", unit_diag());
    const GridPlan *gp = unit_grid_plan(plan, "g", 0);
    assert_non_null(gp->sm90);
    unit_teardown(NULL);
    unit_setup(NULL);

    /* a converting load in the mainloop: TMA cannot convert */
    const char *src = elementwise_src("#pragma tile shared\n            half Fs[64][32];", "", "");
    src = str_replace_once(src, "tile_load(As, A, by * 64, k * 32, M, K);\n",
                           "tile_load(Fs, F, by * 64, k * 32, M, K);\n");
    src = str_replace_once(src, "tile_gemm(As, Bs, Cf)", "tile_gemm(Fs, Bs, Cf)");
    plan = unit_lower(src);
    if (!plan)
        fail_msg("refused:\n%s", unit_diag());
    gp = unit_grid_plan(plan, "g", 0);
    assert_null(gp->sm90);
    assert_string_equal(gp->sm90_why,
                        "a load of a shared tile converts elements or fills a 1-D tile, where TMA copies 2-D tiles as "
                        "they are");
    assert_int_equal(gp->loads.len, 1); /* Bs only */
}

static void elementwise_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *before, *message;
    } cases[] = {
        {"            tile_load(b, X, by * 64, 0);",
         "unit_input.c:16:26: error: argument 2 of 'tile_load' with a 1-D tile must be a vector parameter (a "
         "pointer such as 'const float *x', a 1-D array, or a row of a parameter such as 'X[b]'), or one moved by an "
         "offset, 'x + off'"},
        {"            tile_load(b, bias, 0, N, 1);",
         "unit_input.c:16:13: error: 'tile_load' of a 1-D tile takes 3 or 4 arguments, not 5"},
        {"            tile_store(C, b, 0, N);",
         "unit_input.c:16:24: error: argument 1 of 'tile_store' with a 1-D tile must be a vector parameter (a "
         "pointer such as 'const float *x', a 1-D array, or a row of a parameter such as 'X[b]'), or one moved by an "
         "offset, 'x + off'"},
        {"            tile_load(Cf, bias, 0, N);",
         "unit_input.c:16:27: error: argument 2 of 'tile_load' must be a matrix parameter (a 2-D array such as "
         "'const half A[M][K]', or a 2-D slice of one such as 'Q[b][h]')"},
        {"            tile_copy(b, Cf);",
         "unit_input.c:16:13: error: tile_copy: 'b' and 'Cf' must be tiles of the same shape"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_one_refusal(i, elementwise_src("#pragma tile fragment\n            float b[64];", cases[i].before, ""),
                           cases[i].message);
}

/* A 2-D shared tile of float: the swizzled layout of 16-byte chunks (4
 * floats), its bytes, one stage per pipelined load; rows of 16 floats pass,
 * of 8 (32 bytes) do not. */
static void float_shared_tiles(void **state)
{
    (void)state;
    Plan *plan = unit_lower("#include <tilepp/tile.h>\n"
                            "#pragma tile kernel threads(128)\n"
                            "void g(int M, int N, const float X[M][N], float cmax[N], float Y[N][M])\n"
                            "{\n"
                            "#pragma tile grid\n"
                            "    for (int bx = 0; bx < tile_cdiv(N, 64); bx++) {\n"
                            "#pragma tile shared\n"
                            "        float Ts[64][64], Us[32][16];\n"
                            "#pragma tile shared\n"
                            "        float cm[64];\n"
                            "        tile_fill(cm, 0.0f);\n"
                            "#pragma tile pipelined stages(3)\n"
                            "        for (int rb = 0; rb < tile_cdiv(M, 64); rb++) {\n"
                            "            tile_load(Ts, X, rb * 64, bx * 64, M, N);\n"
                            "            tile_reduce_absmax(Ts, cm, 0, 0);\n"
                            "        }\n"
                            "        tile_store(cmax, cm, bx * 64, N);\n"
                            "        tile_load(Us, X, 0, bx * 64, M, N);\n"
                            "        tile_store(Y, Us, bx * 64, 0, N, M);\n"
                            "    }\n"
                            "}\n");
    if (!plan)
        fail_msg("refused:\n%s", unit_diag());
    const GridPlan *gp = unit_grid_plan(plan, "g", 0);
    const SharedPlan *ts = grid_shared(gp, gp->grid->tiles.items[0]);
    assert_int_equal(ts->bytes, 64 * 64 * 4);
    assert_int_equal(ts->stages, 3);
    assert_int_equal(grid_shared(gp, gp->grid->tiles.items[1])->bytes, 32 * 16 * 4);
    assert_null(gp->sm90); /* no product */
    unit_teardown(NULL);
    unit_setup(NULL);
    assert_null(unit_lower("#include <tilepp/tile.h>\n"
                           "#pragma tile kernel threads(128)\n"
                           "void g(int M, const float X[M][8], float Y[M][8])\n"
                           "{\n"
                           "#pragma tile grid\n"
                           "    for (int by = 0; by < tile_cdiv(M, 64); by++) {\n"
                           "#pragma tile shared\n"
                           "        float Ts[64][8];\n"
                           "        tile_load(Ts, X, by * 64, 0, M, 8);\n"
                           "        tile_store(Y, Ts, by * 64, 0, M, 8);\n"
                           "    }\n"
                           "}\n"));
    expect_error_with(
        "shared tile 'Ts': 2-D shared tiles are stored in swizzled 16-byte chunks (free of bank conflicts "
        "for cp.async and ldmatrix), in rows of a multiple of 64 bytes (32 bytes here)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(brief_gemm_ir),
        UNIT_TEST(tune_space_of_brief_gemm),
        UNIT_TEST(matrix_slices),
        UNIT_TEST(gemm_transpositions),
        UNIT_TEST(fill_value),
        UNIT_TEST(gemm_loop_forms),
        UNIT_TEST(gemm_loop_a_transposed),
        UNIT_TEST(gemm_micro_kernel_call),
        UNIT_TEST(gemm_loop_refusals),
        UNIT_TEST(brief_gemm_plan),
        UNIT_TEST(shared_offsets_and_stages),
        UNIT_TEST(shared_budget_per_arch),
        UNIT_TEST(shared_row_bytes),
        UNIT_TEST(warp_arrangements),
        UNIT_TEST(warp_arrangements_refused),
        UNIT_TEST(accumulator_budget),
        UNIT_TEST(occupancy),
        UNIT_TEST(load_alignment),
        UNIT_TEST(tile_op_refusals),
        UNIT_TEST(clause_ranges),
        UNIT_TEST(tile_decl_refusals),
        UNIT_TEST(elementwise_plan),
        UNIT_TEST(elementwise_sm90),
        UNIT_TEST(elementwise_refusals),
        UNIT_TEST(float_shared_tiles),
    };
    return cmocka_run_group_tests_name("tile", tests, NULL, NULL);
}

/* Unit tests of the debug translation (-g, lower_debug.c): which tile
 * operations check what, against which extents; that -g grids take the
 * sm_80 kernel; what the emitter prints for a check and for the launcher;
 * and that without -g nothing of it is planned or printed. */
#include "unit.h"

#include <string.h>

/* parse + build_ir + check_module + lower_module, for 80 and 90a, with or
 * without -g; NULL on any error. */
static Plan *lower_debug(const char *src, bool debug)
{
    IrModule *m = unit_build(src);
    if (!m)
        return NULL;
    m->archs = ARCH_SM80 | ARCH_SM90A;
    m->debug = debug;
    if (!check_module(m))
        return NULL;
    return lower_module(m);
}

static const KernelPlan *kernel_plan(const Plan *plan, const char *name)
{
    for (int i = 0; i < plan->kernels.len; i++) {
        const KernelPlan *kp = plan->kernels.items[i];
        if (strcmp(kp->k->name, name) == 0)
            return kp;
    }
    fail_msg("no kernel plan '%s'", name);
    return NULL;
}

static const char gemm_src[] = "#include <tilepp/tile.h>\n"
                               "enum { BM = 128, BN = 128, BK = 32 };\n"
                               "#pragma tile kernel threads(128)\n"
                               "void g(int M, int N, int K, const half A[M][K], const half B[K][N], float C[M][N])\n"
                               "{\n"
                               "#pragma tile grid\n"
                               "    for (int by = 0; by < tile_cdiv(M, BM); by++)\n"
                               "        for (int bx = 0; bx < tile_cdiv(N, BN); bx++) {\n"
                               "#pragma tile shared\n"
                               "            half As[BM][BK], Bs[BK][BN];\n"
                               "#pragma tile fragment\n"
                               "            float Cf[BM][BN];\n"
                               "            tile_clear(Cf);\n"
                               "#pragma tile pipelined stages(3)\n"
                               "            for (int k = 0; k < tile_cdiv(K, BK); k++) {\n"
                               "                tile_load(As, A, by * BM, k * BK);\n"
                               "                tile_load(Bs, B, k * BK, bx * BN, K, N);\n"
                               "                tile_gemm(As, Bs, Cf);\n"
                               "            }\n"
                               "            tile_store(C, Cf, by * BM, bx * BN, M - 1, N);\n"
                               "        }\n"
                               "}\n";

/* Without -g: no checks, the sm_90a variant stays. */
static void no_checks_without_debug(void **state)
{
    (void)state;
    Plan *plan = lower_debug(gemm_src, false);
    assert_non_null(plan);
    const KernelPlan *kp = kernel_plan(plan, "g");
    assert_false(kp->debug);
    assert_int_equal(kp->checks.len, 0);
    const GridPlan *gp = kp->grids.items[0];
    assert_non_null(gp->sm90);
    char *cu = emit_cuda(plan, &(EmitNames){UNIT_FILE, "u.tile.cu", "u.tile.h", NULL, 0, 0});
    assert_null(strstr(cu, "tile_debug"));
}

/* With -g: the promise of the 4-argument load is checked against the
 * declared M x K; the 6-argument load whose extents are the declared
 * ones is not checked; the store's M - 1 is; the grid loses its sm_90a
 * variant, and says why. */
static void checks_planned(void **state)
{
    (void)state;
    Plan *plan = lower_debug(gemm_src, true);
    assert_non_null(plan);
    assert_string_equal(unit_diag(), "");
    const KernelPlan *kp = kernel_plan(plan, "g");
    assert_true(kp->debug);
    assert_int_equal(kp->checks.len, 2);
    const TileCheck *load = kp->checks.items[0], *store = kp->checks.items[1];
    assert_int_equal(load->kind, CHECK_WINDOW);
    assert_int_equal(load->op->kind, TILE_LOAD);
    assert_string_equal(load->op->dst->name, "As");
    assert_string_equal(load->rows, "M");
    assert_string_equal(load->cols, "K");
    assert_int_equal(load->site, 0);
    assert_int_equal(store->kind, CHECK_BOUNDS);
    assert_int_equal(store->op->kind, TILE_STORE);
    assert_string_equal(store->rows, "M");
    assert_string_equal(store->cols, "N");
    assert_int_equal(store->site, 1);
    assert_ptr_equal(tile_check_of(kp, load->op), load);
    const GridPlan *gp = kp->grids.items[0];
    assert_null(gp->sm90);
    assert_non_null(strstr(gp->sm90_why, "-g"));
    assert_int_equal(load->grid->depth, 2);
}

/* The emitter prints what the plan says: the test around the access (in
 * the pipelined loop's prologue and steady state), the header, the
 * launcher's table and its collection of the record. */
static void checks_printed(void **state)
{
    (void)state;
    Plan *plan = lower_debug(gemm_src, true);
    assert_non_null(plan);
    char *cu = emit_cuda(plan, &(EmitNames){UNIT_FILE, "u.tile.cu", "u.tile.h", NULL, 0, 0});
    assert_non_null(strstr(cu, "#include <tilepp/tile_debug.cuh>\n"));
    assert_int_equal(unit_count(cu, "if (tile_debug_window(0, (long long)(by * BM), (long long)(k * BK), 128LL, 32LL, "
                                    "(long long)(M), (long long)(K), (long long)(by), (long long)(bx), 0LL)) {\n"),
                     2);
    assert_int_equal(unit_count(cu, "if (tile_debug_bounds(1, (long long)(M - 1), (long long)(N), (long long)(M), "
                                    "(long long)(N), (long long)(by), (long long)(bx), 0LL)) {\n"),
                     1);
    assert_non_null(strstr(cu, "{0, \"unit_input.c:16:17\", \"tile_load of 'As' from 'A'\", TILE_DEBUG_WINDOW, 2, "
                               "{\"by\", \"bx\", nullptr}},\n"));
    assert_non_null(strstr(cu, "{1, \"unit_input.c:20:13\", \"tile_store of 'Cf' to 'C'\", TILE_DEBUG_BOUNDS, 2, "));
    assert_non_null(strstr(cu,
                           "tile_err = tile_debug_collect(tile_prof, &tile_dev, tile_stream, tile_debug_sites, 2);\n"
                           "    if (tile_err != cudaSuccess)\n        return tile_err;\n"
                           "    return tile_prof.done();\n"));
    assert_null(strstr(cu, "tile_mma_sm90.cuh"));
}

/* Vectors: the 3-argument load's promise against the declared length; a
 * moved vector's length less the offset; a pointer's length unknown; site
 * numbers run on over the file's kernels. */
static void vector_checks(void **state)
{
    (void)state;
    static const char src[] = "#include <tilepp/tile.h>\n"
                              "#pragma tile kernel threads(128)\n"
                              "void first(int n, const float x[n], float *y)\n"
                              "{\n"
                              "#pragma tile grid\n"
                              "    for (int i0 = 0; i0 < n; i0 += 256) {\n"
                              "#pragma tile shared\n"
                              "        float xs[256];\n"
                              "        tile_load(xs, x, i0);\n"
                              "        tile_store(y, xs, i0);\n"
                              "    }\n"
                              "}\n"
                              "#pragma tile kernel threads(128)\n"
                              "void second(int n, int off, const float x[n], float y[n])\n"
                              "{\n"
                              "#pragma tile grid\n"
                              "    for (int i0 = 0; i0 < n; i0 += 256) {\n"
                              "#pragma tile shared\n"
                              "        float xs[256];\n"
                              "        tile_load(xs, x + off, i0, n - off);\n"
                              "        tile_store(y, xs, i0, n);\n"
                              "    }\n"
                              "}\n";
    Plan *plan = lower_debug(src, true);
    assert_non_null(plan);
    const KernelPlan *first = kernel_plan(plan, "first"), *second = kernel_plan(plan, "second");
    assert_int_equal(first->checks.len, 2);
    const TileCheck *load = first->checks.items[0], *store = first->checks.items[1];
    assert_int_equal(load->kind, CHECK_WINDOW);
    assert_string_equal(load->rows, "1");
    assert_string_equal(load->cols, "n");
    assert_int_equal(store->kind, CHECK_WINDOW);
    assert_null(store->cols);                /* `float *y`: no length */
    assert_int_equal(second->checks.len, 1); /* the store's n is the declared length */
    const TileCheck *moved = second->checks.items[0];
    assert_int_equal(moved->kind, CHECK_BOUNDS);
    assert_string_equal(moved->cols, "(n) - (off)");
    assert_int_equal(moved->site, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(no_checks_without_debug),
        UNIT_TEST(checks_planned),
        UNIT_TEST(checks_printed),
        UNIT_TEST(vector_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_helpers.c — the host-side arithmetic of <tilepp/check.h> and
 * <tilepp/bench.h> against values computed by hand: half and bfloat16
 * conversions (rounding to even, subnormals, overflow, NaN), the random
 * fills (never zero, rounded to the stored type), poison and NaN counts, the
 * relative error and allclose with NaN and infinities, the median, buffer
 * sets and batch sizes, the rates, the board's reasons and the CSV
 * records. No GPU and no CUDA call: only the pure functions run.
 *
 * With TILEPP_TEST_CXX, helpers_cxx.cu (the same headers compiled by nvcc
 * as C++) computes a digest of the same functions, which must be equal to
 * the C one bit for bit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <tilepp/bench.h>
#include <tilepp/check.h>

#include "helpers_digest.h"

/* |a - b| <= eps (CMocka before 1.1.6 has no assert_double_equal). */
#define assert_near(a, b, eps) assert_near_((a), (b), (eps), #a, __FILE__, __LINE__)
static void assert_near_(double a, double b, double eps, const char *text, const char *file, int line)
{
    if (!(fabs(a - b) <= eps))
        fail_msg("%s:%d: %s = %.17g, expected %.17g (within %g)", file, line, text, a, b, eps);
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- half -------------------------------------------------------------------- */

static void test_float_to_half_by_hand(void **state)
{
    (void)state;
    assert_int_equal(tile_check_float_to_half(1.0f), 0x3C00);
    assert_int_equal(tile_check_float_to_half(-2.0f), 0xC000);
    assert_int_equal(tile_check_float_to_half(0.0f), 0x0000);
    assert_int_equal(tile_check_float_to_half(-0.0f), 0x8000);
    assert_int_equal(tile_check_float_to_half(0.1f), 0x2E66);     /* 0.0999755859375 */
    assert_int_equal(tile_check_float_to_half(65504.0f), 0x7BFF); /* the largest half */
    assert_int_equal(tile_check_float_to_half(65519.99f), 0x7BFF);
    assert_int_equal(tile_check_float_to_half(65520.0f), 0x7C00); /* halfway, 0x7BFF odd: up, to infinity */
    assert_int_equal(tile_check_float_to_half(1e30f), 0x7C00);
    assert_int_equal(tile_check_float_to_half(INFINITY), 0x7C00);
    assert_int_equal(tile_check_float_to_half(-INFINITY), 0xFC00);
    /* halfway between two halves: to the even one */
    assert_int_equal(tile_check_float_to_half(1.0f + 0x1p-11f), 0x3C00);
    assert_int_equal(tile_check_float_to_half(1.0f + 3 * 0x1p-11f), 0x3C02);
    assert_int_equal(tile_check_float_to_half(1.0f + 0x1p-11f + 0x1p-20f), 0x3C01); /* above halfway */
    /* subnormals: units of 2^-24 */
    assert_int_equal(tile_check_float_to_half(0x1p-24f), 0x0001);
    assert_int_equal(tile_check_float_to_half(0x1p-25f), 0x0000);           /* halfway to 0 and 1: 0 */
    assert_int_equal(tile_check_float_to_half(1.5f * 0x1p-25f), 0x0001);    /* above halfway */
    assert_int_equal(tile_check_float_to_half(3 * 0x1p-25f), 0x0002);       /* 1.5 units: to 2 */
    assert_int_equal(tile_check_float_to_half(-1023 * 0x1p-24f), 0x83FF);   /* the largest subnormal */
    assert_int_equal(tile_check_float_to_half(1023.5f * 0x1p-24f), 0x0400); /* up into the smallest normal */
    assert_int_equal(tile_check_float_to_half(0x1p-14f), 0x0400);
    assert_int_equal(tile_check_float_to_half(1e-30f), 0x0000);
    assert_int_equal(tile_check_float_to_half(FLT_TRUE_MIN), 0x0000);
    /* NaN stays NaN (exponent all ones, mantissa not zero), quiet */
    uint16_t nan = tile_check_float_to_half(NAN);
    assert_int_equal(nan & 0x7C00, 0x7C00);
    assert_true((nan & 0x3FF) != 0);
    uint16_t snan = tile_check_float_to_half(bits_float(0x7F800001u)); /* payload below half's mantissa */
    assert_int_equal(snan & 0x7E00, 0x7E00);
}

static void test_half_to_float_by_hand(void **state)
{
    (void)state;
    assert_true(tile_check_half_to_float(0x3C00) == 1.0f);
    assert_true(tile_check_half_to_float(0xC000) == -2.0f);
    assert_true(tile_check_half_to_float(0x7BFF) == 65504.0f);
    assert_true(tile_check_half_to_float(0x0001) == 0x1p-24f);
    assert_true(tile_check_half_to_float(0x03FF) == 1023 * 0x1p-24f);
    assert_true(tile_check_half_to_float(0x0400) == 0x1p-14f);
    assert_true(tile_check_half_to_float(0x3555) == 0.333251953125f);
    assert_true(tile_check_half_to_float(0x7C00) == INFINITY);
    assert_true(tile_check_half_to_float(0xFC00) == -INFINITY);
    assert_true(isnan(tile_check_half_to_float(0x7E00)));
    assert_true(isnan(tile_check_half_to_float(0xFFFF))); /* the poison */
    float mz = tile_check_half_to_float(0x8000);
    assert_true(mz == 0.0f && signbit(mz));
}

/* Every half survives the trip through float; NaNs stay NaNs. */
static void test_half_round_trip(void **state)
{
    (void)state;
    for (uint32_t h = 0; h <= 0xFFFF; h++) {
        float f = tile_check_half_to_float((uint16_t)h);
        uint16_t back = tile_check_float_to_half(f);
        if (isnan(f))
            assert_true((back & 0x7C00) == 0x7C00 && (back & 0x3FF) != 0);
        else if (back != h)
            fail_msg("half 0x%04x -> %g -> 0x%04x", h, (double)f, back);
    }
}

/* Against the C compiler's own conversion (_Float16), every 251st float. */
static void test_half_against_compiler(void **state)
{
    (void)state;
#if defined(__FLT16_MAX__)
    for (uint64_t u = 0; u <= 0xFFFFFFFFull; u += 251) {
        float f = bits_float((uint32_t)u);
        if (isnan(f))
            continue;
        _Float16 h = (_Float16)f;
        uint16_t want;
        memcpy(&want, &h, sizeof want);
        uint16_t got = tile_check_float_to_half(f);
        if (got != want)
            fail_msg("float 0x%08x (%g): 0x%04x, the compiler 0x%04x", (unsigned)u, (double)f, got, want);
    }
#else
    skip();
#endif
}

/* ---- bfloat16 ------------------------------------------------------------------ */

static void test_bf16_by_hand(void **state)
{
    (void)state;
    assert_int_equal(tile_check_float_to_bf16(1.0f), 0x3F80);
    assert_int_equal(tile_check_float_to_bf16(-1.0f), 0xBF80);
    assert_int_equal(tile_check_float_to_bf16(1.0f + 0x1p-8f), 0x3F80);            /* halfway: even */
    assert_int_equal(tile_check_float_to_bf16(1.0f + 3 * 0x1p-8f), 0x3F82);        /* halfway: even, up */
    assert_int_equal(tile_check_float_to_bf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3F81); /* above halfway */
    assert_int_equal(tile_check_float_to_bf16(FLT_MAX), 0x7F80);                   /* rounds up to infinity */
    assert_int_equal(tile_check_float_to_bf16(-INFINITY), 0xFF80);
    assert_int_equal(tile_check_float_to_bf16(0x1p-133f), 0x0001); /* the smallest subnormal */
    assert_int_equal(tile_check_float_to_bf16(0x1p-134f), 0x0000); /* halfway to it: 0 */
    /* NaN stays NaN, also one whose payload lies in the low half only */
    assert_true(isnan(tile_check_bf16_to_float(tile_check_float_to_bf16(NAN))));
    assert_true(isnan(tile_check_bf16_to_float(tile_check_float_to_bf16(bits_float(0x7F800001u)))));
    assert_true(tile_check_bf16_to_float(0x3F81) == 1.0078125f);
    assert_true(tile_check_bf16_to_float(0xC040) == -3.0f);
    assert_true(isnan(tile_check_bf16_to_float(0xFFFF)));
}

/* ---- elements, poison ------------------------------------------------------------ */

static void test_get_set(void **state)
{
    (void)state;
    float f[2];
    uint16_t h[2], b[2];
    tile_check_set(TILE_CHECK_F32, f, 1, 0.1f);
    tile_check_set(TILE_CHECK_F16, h, 1, 0.1f);
    tile_check_set(TILE_CHECK_BF16, b, 1, 0.1f);
    assert_true(f[1] == 0.1f);
    assert_int_equal(h[1], 0x2E66);
    assert_int_equal(b[1], 0x3DCD); /* 0.1f = 0x3DCCCCCD: rounds up */
    assert_true(tile_check_get(TILE_CHECK_F32, f, 1) == (double)0.1f);
    assert_true(tile_check_get(TILE_CHECK_F16, h, 1) == 0.0999755859375);
    assert_true(tile_check_get(TILE_CHECK_BF16, b, 1) == 0.10009765625);
    assert_int_equal(tile_check_type_size(TILE_CHECK_F32), 4);
    assert_int_equal(tile_check_type_size(TILE_CHECK_F16), 2);
    assert_int_equal(tile_check_type_size(TILE_CHECK_BF16), 2);
    assert_string_equal(tile_check_type_name(TILE_CHECK_BF16), "bf16");
}

static void test_poison_and_nan_count(void **state)
{
    (void)state;
    static const tile_check_type types[] = {TILE_CHECK_F32, TILE_CHECK_F16, TILE_CHECK_BF16};
    for (int t = 0; t < 3; t++) {
        unsigned char buf[10 * 4];
        size_t first = 99, n = 10, es = tile_check_type_size(types[t]);
        tile_check_poison_host(buf, n * es);
        assert_true(tile_check_is_poisoned(buf, n * es));
        assert_int_equal(tile_check_count_nan(types[t], buf, n, &first), 10);
        assert_int_equal(first, 0);
        for (size_t i = 0; i < 4; i++) /* the first four written */
            tile_check_set(types[t], buf, i, (float)i);
        tile_check_set(types[t], buf, 7, -1.5f);
        assert_false(tile_check_is_poisoned(buf, n * es));
        assert_true(tile_check_is_poisoned(buf + 8 * es, 2 * es));
        assert_int_equal(tile_check_count_nan(types[t], buf, n, &first), 5); /* 4, 5, 6, 8, 9 */
        assert_int_equal(first, 4);
        assert_int_equal(tile_check_count_nan(types[t], buf, 4, &first), 0);
        assert_int_equal(first, 4); /* n when none */
        assert_int_equal(tile_check_count_nan(types[t], buf, n, NULL), 5);
    }
}

/* ---- random fills -------------------------------------------------------------- */

static void test_uniform_draws(void **state)
{
    (void)state;
    tile_check_rng r = tile_check_rng_seed(42);
    int neg = 0, pos = 0;
    double sum = 0.0;
    for (int i = 0; i < 200000; i++) {
        float v = tile_check_rng_uniform(&r);
        double k = (double)v * 8388608.0; /* an odd integer: (2k + 1) * 2^-23 - 1, times 2^23 */
        assert_true(v > -1.0f && v < 1.0f);
        assert_true(k == floor(k) && fmod(fabs(k), 2.0) == 1.0);
        neg += v<0, pos += v> 0;
        sum += v;
    }
    assert_int_equal(neg + pos, 200000); /* no zero */
    assert_true(fabs(sum / 200000) < 0.01);
    /* the same seed, the same draws; the next seed, others (not the same
     * ones shifted: seed * step as the state would give seed 8 the draws of
     * seed 7, one later) */
    tile_check_rng a = tile_check_rng_seed(7), b = tile_check_rng_seed(7), c = tile_check_rng_seed(8);
    uint64_t da[8], dc[8];
    for (int i = 0; i < 8; i++) {
        da[i] = tile_check_rng_next(&a);
        dc[i] = tile_check_rng_next(&c);
        assert_true(da[i] == tile_check_rng_next(&b));
    }
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            assert_true(da[i] != dc[j]);
}

/* Fills are the uniform draws rounded to the type, none zero. */
static void test_fills(void **state)
{
    (void)state;
    enum { N = 100000 };
    static float f[N];
    static uint16_t h[N], b[N];
    tile_check_rng rf = tile_check_rng_seed(3), rh = tile_check_rng_seed(3), rb = tile_check_rng_seed(3);
    tile_check_fill(TILE_CHECK_F32, f, N, &rf);
    tile_check_fill(TILE_CHECK_F16, h, N, &rh);
    tile_check_fill(TILE_CHECK_BF16, b, N, &rb);
    tile_check_rng ref = tile_check_rng_seed(3);
    for (int i = 0; i < N; i++) {
        float u = tile_check_rng_uniform(&ref);
        assert_true(f[i] == u);
        assert_int_equal(h[i], tile_check_float_to_half(u));
        assert_int_equal(b[i], tile_check_float_to_bf16(u));
        assert_true(tile_check_half_to_float(h[i]) != 0.0f && tile_check_bf16_to_float(b[i]) != 0.0f);
        assert_true(fabsf(tile_check_half_to_float(h[i])) <= 1.0f);
    }
    /* the smallest draws, +-2^-23, are not zero in either 16-bit type */
    assert_int_equal(tile_check_float_to_half(0x1p-23f), 0x0002);
    assert_int_equal(tile_check_float_to_half(-0x1p-23f), 0x8002);
    assert_int_equal(tile_check_float_to_bf16(0x1p-23f), 0x3400);
    /* the rng states advanced alike: no draw was repeated */
    assert_true(rf.state == ref.state && rh.state == ref.state && rb.state == ref.state);
}

/* ---- relative error ------------------------------------------------------------ */

static void test_rel_err_by_hand(void **state)
{
    (void)state;
    const float out[] = {1, 2, 3}, ref[] = {1, 2, 4};
    /* ||(0, 0, -1)|| / ||(1, 2, 4)|| = 1 / sqrt(21) */
    assert_near(tile_check_rel_err(TILE_CHECK_F32, out, TILE_CHECK_F32, ref, 3), 1.0 / sqrt(21.0), 1e-15);
    assert_true(tile_check_rel_err(TILE_CHECK_F32, out, TILE_CHECK_F32, out, 3) == 0.0);
    /* a reference of zeros: the absolute error */
    const float three_four[] = {3, -4}, zeros[] = {0, 0};
    assert_true(tile_check_rel_err(TILE_CHECK_F32, three_four, TILE_CHECK_F32, zeros, 2) == 5.0);
    /* of different types: half (1, 2) against float (1, 2.5): 0.5 / sqrt(7.25) */
    const uint16_t h[] = {0x3C00, 0x4000};
    const float r2[] = {1.0f, 2.5f};
    assert_near(tile_check_rel_err(TILE_CHECK_F16, h, TILE_CHECK_F32, r2, 2), 0.5 / sqrt(7.25), 1e-15);
    assert_true(tile_check_rel_err(TILE_CHECK_F32, out, TILE_CHECK_F32, ref, 0) == 0.0);
    assert_true(tile_check_rel_err_finish(1.0, 4.0) == 0.5);
    assert_true(tile_check_rel_err_finish(9.0, 0.0) == 3.0);
}

static void test_rel_err_nan_inf(void **state)
{
    (void)state;
    const float ok[] = {1, 2}, nan_out[] = {1, NAN};
    assert_true(isnan(tile_check_rel_err(TILE_CHECK_F32, nan_out, TILE_CHECK_F32, ok, 2)));
    assert_true(isnan(tile_check_rel_err(TILE_CHECK_F32, ok, TILE_CHECK_F32, nan_out, 2)));
    assert_false(tile_check_rel_err(TILE_CHECK_F32, nan_out, TILE_CHECK_F32, ok, 2) < 1.0); /* fails any tolerance */
    /* a poisoned (unwritten) half output */
    const uint16_t poisoned[] = {0x3C00, 0xFFFF}, ones[] = {0x3C00, 0x3C00};
    assert_true(isnan(tile_check_rel_err(TILE_CHECK_F16, poisoned, TILE_CHECK_F16, ones, 2)));
    assert_true(isnan(tile_check_rel_err(TILE_CHECK_BF16, poisoned, TILE_CHECK_BF16, ones, 2)));
    /* the same infinity: exact, the rest counts alone: ||(0, -1)|| / ||(0, 2)|| */
    const float inf_out[] = {INFINITY, 1}, inf_ref[] = {INFINITY, 2};
    assert_true(tile_check_rel_err(TILE_CHECK_F32, inf_out, TILE_CHECK_F32, inf_ref, 2) == 0.5);
    /* an infinity against a finite value or the other infinity */
    const float fin[] = {5, 2}, minus_inf[] = {-INFINITY, 2};
    assert_true(tile_check_rel_err(TILE_CHECK_F32, inf_out, TILE_CHECK_F32, fin, 2) == INFINITY);
    assert_true(tile_check_rel_err(TILE_CHECK_F32, fin, TILE_CHECK_F32, inf_ref, 2) == INFINITY);
    assert_true(tile_check_rel_err(TILE_CHECK_F32, minus_inf, TILE_CHECK_F32, inf_ref, 2) == INFINITY);
}

/* ---- allclose ------------------------------------------------------------------ */

static void test_isclose_by_hand(void **state)
{
    (void)state;
    /* |out - ref| <= atol + rtol * |ref| */
    assert_true(tile_check_isclose(1.0105, 1.0, 1e-2, 1e-3, 0)); /* 0.0105 <= 0.011 */
    assert_false(tile_check_isclose(1.012, 1.0, 1e-2, 1e-3, 0)); /* 0.012 > 0.011 */
    assert_true(tile_check_isclose(1.0, 1.0, 0.0, 0.0, 0));
    /* not symmetric: ref scales the tolerance (numpy: isclose(1, 2, .5, 0) but not isclose(2, 1, .5, 0)) */
    assert_true(tile_check_isclose(1.0, 2.0, 0.5, 0.0, 0));
    assert_false(tile_check_isclose(2.0, 1.0, 0.5, 0.0, 0));
    /* numpy's defaults near zero: atol 1e-8 */
    assert_true(tile_check_isclose(1e-9, 0.0, 1e-5, 1e-8, 0));
    assert_false(tile_check_isclose(2e-8, 0.0, 1e-5, 1e-8, 0));
    /* NaN */
    assert_false(tile_check_isclose(NAN, NAN, 1.0, 1.0, 0));
    assert_true(tile_check_isclose(NAN, NAN, 1.0, 1.0, 1));
    assert_false(tile_check_isclose(NAN, 1.0, 1.0, 1.0, 1));
    assert_false(tile_check_isclose(1.0, NAN, 1.0, 1.0, 1));
    /* infinities: only the same one */
    assert_true(tile_check_isclose(INFINITY, INFINITY, 0.0, 0.0, 0));
    assert_false(tile_check_isclose(INFINITY, -INFINITY, 1.0, 1.0, 0));
    assert_false(tile_check_isclose(INFINITY, 1e308, 1.0, INFINITY, 0));
    assert_false(tile_check_isclose(1.0, INFINITY, 1.0, 1.0, 0));
}

static void test_allclose_report(void **state)
{
    (void)state;
    const float out[] = {1, 2, 3, NAN, 5}, ref[] = {1, 2.5f, 3, 4, 5};
    tile_check_close r;
    assert_false(tile_check_allclose(TILE_CHECK_F32, out, TILE_CHECK_F32, ref, 5, 0.0, 0.1, 0, &r));
    assert_int_equal(r.n, 5);
    assert_int_equal(r.mismatches, 2); /* [1]: 0.5 > 0.1, [3]: NaN */
    assert_int_equal(r.first, 1);
    assert_true(r.first_out == 2.0 && r.first_ref == 2.5);
    assert_true(r.max_abs_err == 0.5);       /* the NaN pair is left out */
    assert_true(r.max_rel_err == 0.5 / 2.5); /* 0.2 */
    char text[200];
    tile_check_close_describe(&r, text, sizeof text);
    assert_string_equal(text, "2 of 5 not close (first [1]: 2 vs 2.5); max abs err 0.5, max rel err 0.2");

    /* rtol 0.25 admits [1] (0.5 <= 0.625); the NaN stays */
    assert_false(tile_check_allclose(TILE_CHECK_F32, out, TILE_CHECK_F32, ref, 5, 0.25, 0.0, 0, &r));
    assert_int_equal(r.mismatches, 1);
    assert_int_equal(r.first, 3);
    assert_true(tile_check_allclose(TILE_CHECK_F32, out, TILE_CHECK_F32, ref, 3, 0.25, 0.0, 0, NULL));

    /* equal_nan, and of different types: half out against float ref */
    const float with_nan[] = {1, NAN};
    const uint16_t h[] = {0x3C00, 0x7E00};
    assert_false(tile_check_allclose(TILE_CHECK_F16, h, TILE_CHECK_F32, with_nan, 2, 0.0, 0.0, 0, &r));
    assert_true(tile_check_allclose(TILE_CHECK_F16, h, TILE_CHECK_F32, with_nan, 2, 0.0, 0.0, 1, &r));
    tile_check_close_describe(&r, text, sizeof text);
    assert_string_equal(text, "all 2 close; max abs err 0, max rel err 0");

    /* nothing to compare: close, first == n */
    assert_true(tile_check_allclose(TILE_CHECK_F32, out, TILE_CHECK_F32, ref, 0, 0.0, 0.0, 0, &r));
    assert_int_equal(r.first, 0);
}

/* ---- bench arithmetic ------------------------------------------------------------ */

static void test_median(void **state)
{
    (void)state;
    double odd[] = {3, 1, 2}, even[] = {4, 1, 3, 2}, one[] = {5}, dup[] = {2, 2, 1, 2}, neg[] = {-1, -5, 10, 0, 7};
    assert_true(tile_bench_median(odd, 3) == 2.0);
    assert_true(odd[0] == 1.0 && odd[2] == 3.0); /* sorted */
    assert_true(tile_bench_median(even, 4) == 2.5);
    assert_true(tile_bench_median(one, 1) == 5.0);
    assert_true(tile_bench_median(dup, 4) == 2.0);
    assert_true(tile_bench_median(neg, 5) == 0.0);
    assert_true(isnan(tile_bench_median(one, 0)));
}

static void test_rates(void **state)
{
    (void)state;
    /* 2 * 4096^3 = 137438953472 operations in 0.2 ms: 687.19476736 TFLOP/s */
    assert_true(tile_bench_gemm_flops(4096, 4096, 4096) == 137438953472.0);
    assert_true(tile_bench_gemm_flops(2, 3, 4) == 48.0);
    assert_near(tile_bench_tflops(137438953472.0, 0.2), 687.19476736, 1e-9);
    /* 10^9 bytes in 1 ms: 1000 GB/s; vector_add 2^28 (12 bytes each) in 0.738 ms: 4364.804 GB/s */
    assert_near(tile_bench_gbps(1e9, 1.0), 1000.0, 1e-9);
    assert_near(tile_bench_gbps(12.0 * (1 << 28), 0.738), 3221225472.0 / 0.738e-3 / 1e9, 1e-9);
    assert_near(tile_bench_gbps(12.0 * (1 << 28), 0.738), 4364.804162601626, 1e-9);
}

/* The reasons NVML gives for held-down clocks, as the sustained tables
 * print them; and a board that did not open reads zeros (no NVML call). */
static void test_board_reasons(void **state)
{
    (void)state;
    char buf[96];
    tile_bench_reasons_text(0, buf, sizeof buf);
    assert_string_equal(buf, "none");
    tile_bench_reasons_text(TILE_BENCH_REASON_SW_POWER_CAP, buf, sizeof buf);
    assert_string_equal(buf, "power cap");
    tile_bench_reasons_text(0x4 | 0x40 | 0x1, buf, sizeof buf); /* 0x1 (idle) is not named */
    assert_string_equal(buf, "power cap, HW thermal");
    tile_bench_reasons_text(0x4 | 0x8 | 0x20 | 0x40 | 0x80, buf, 12); /* cut at the buffer's end */
    assert_string_equal(buf, "power cap, ");
    tile_bench_board closed;
    memset(&closed, 0, sizeof closed);
    tile_bench_board_reading r = tile_bench_board_read(&closed);
    assert_int_equal(r.sm_mhz, 0);
    assert_int_equal(r.celsius, 0);
    assert_true(r.watts == 0.0);
    assert_true(r.reasons == 0);
    r = tile_bench_board_read(NULL);
    assert_int_equal(r.sm_mhz, 0);
}

static void test_sets(void **state)
{
    (void)state;
    const size_t l2 = (size_t)60 << 20; /* the H200's */
    /* vector_add 2^22: a | b | c = 48 MiB a set; 4 x 60 MiB = 240 MiB: 5 sets */
    assert_int_equal(tile_bench_sets_for((size_t)3 * 4 << 22, l2), 5);
    assert_int_equal(tile_bench_sets_for(((size_t)3 * 4 << 22) + 1, l2), 5);
    assert_int_equal(tile_bench_sets_for(((size_t)3 * 4 << 22) - 1, l2), 6);
    assert_int_equal(tile_bench_sets_for((size_t)3 << 30, l2), 1); /* 2^28: one set exceeds it */
    assert_int_equal(tile_bench_sets_for(0, l2), 1);
    assert_int_equal(tile_bench_sets_for(1, l2), 1000000); /* capped */
}

static void test_batch_size(void **state)
{
    (void)state;
    /* the fewest whole cycles over the sets lasting >= 2 ms */
    assert_int_equal(tile_bench_batch_size(0.1, 1), 20);
    assert_int_equal(tile_bench_batch_size(0.015, 5), 135); /* 27 cycles of 0.075 ms: 2.025 ms; 26: 1.95 */
    assert_int_equal(tile_bench_batch_size(0.5, 4), 4);
    assert_int_equal(tile_bench_batch_size(5.0, 1), 1);
    assert_int_equal(tile_bench_batch_size(5.0, 3), 3);
    assert_int_equal(tile_bench_batch_size(0.4, 1), 5); /* exactly 2.0 ms */
    assert_int_equal(tile_bench_batch_size(0.0, 4), 1 << 20);
    assert_int_equal(tile_bench_batch_size(NAN, 1), 1 << 20);
    assert_int_equal(tile_bench_batch_size(1e-9, 7), 1048579); /* 149797 cycles of 7 */
    assert_int_equal(tile_bench_batch_size(0.1, 0), 20);       /* nsets < 1 taken as 1 */
}

/* ---- CSV -------------------------------------------------------------------------- */

static char *read_all(FILE *f)
{
    static char buf[4096];
    rewind(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    return buf;
}

static void test_csv(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    tile_bench_csv_write_header(f);
    tile_bench_record r =
        tile_bench_record_make("gemm", "gemm_128x256x64_s3_t256", "4096x4096x4096", "fp16", "TFLOP/s");
    r.ms = 0.25;
    r.rate = tile_bench_tflops(tile_bench_gemm_flops(4096, 4096, 4096), r.ms);
    r.reference = "cuBLAS";
    r.ref_ms = 0.2;
    r.ref_rate = tile_bench_tflops(tile_bench_gemm_flops(4096, 4096, 4096), r.ref_ms);
    r.rel_err = 3.1e-4;
    tile_bench_csv_write(f, &r);
    /* times only, no reference, fields to quote, an exact check */
    tile_bench_record t = tile_bench_record_make("launch", "gemm_gpu, n=128", "say \"128\"", NULL, NULL);
    t.ms = 0.0051;
    t.rel_err = 0.0;
    tile_bench_csv_write(f, &t);
    /* a rate of 0 or a negative time is not a measurement: empty */
    tile_bench_record z = tile_bench_record_make("x", "k", "1", "f32", "GB/s");
    z.ms = -1.0;
    z.rate = 0.0;
    z.reference = "copy";
    z.ref_ms = 2.0;
    tile_bench_csv_write(f, &z);
    tile_bench_csv_write(NULL, &z); /* no file: nothing, no crash */
    assert_string_equal(read_all(f),
                        "bench,kernel,shape,dtype,metric,tilepp_ms,tilepp_rate,reference,reference_ms,reference_rate,"
                        "ratio,rel_err\n"
                        "gemm,gemm_128x256x64_s3_t256,4096x4096x4096,fp16,TFLOP/s,0.25,549.756,cuBLAS,0.2,687.195,0.8,"
                        "0.00031\n"
                        "launch,\"gemm_gpu, n=128\",\"say \"\"128\"\"\",,,0.0051,,,,,,0\n"
                        "x,k,1,f32,GB/s,,,copy,2,,,\n");
    fclose(f);
    assert_int_equal(tile_bench_csv_close(NULL, NULL), 0);
}

static void test_csv_arg(void **state)
{
    (void)state;
    char prog[] = "bench", csv[] = "--csv", file[] = "out.csv", joined[] = "--csv=x.csv";
    char *a1[] = {prog, csv, file, NULL}, *a2[] = {prog, joined, NULL}, *a3[] = {prog, NULL};
    assert_string_equal(tile_bench_csv_arg(3, a1, ""), "out.csv");
    assert_string_equal(tile_bench_csv_arg(2, a2, ""), "x.csv");
    assert_null(tile_bench_csv_arg(1, a3, ""));
}

/* ---- C and C++ alike -------------------------------------------------------------- */

#define HELPERS_DIGEST_NAME helpers_digest_c
#include "helpers_digest.inc"

static void test_cxx_digest(void **state)
{
    (void)state;
#if defined(TILEPP_TEST_CXX)
    double c[HELPERS_DIGEST_SIZE], cxx[HELPERS_DIGEST_SIZE];
    int n = helpers_digest_c(c), m = helpers_digest_cxx(cxx);
    assert_int_equal(n, HELPERS_DIGEST_SIZE);
    assert_int_equal(m, HELPERS_DIGEST_SIZE);
    for (int i = 0; i < n; i++)
        if (memcmp(&c[i], &cxx[i], sizeof c[i]) != 0)
            fail_msg("digest[%d]: C %.17g, C++ %.17g", i, c[i], cxx[i]);
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_to_half_by_hand),
        cmocka_unit_test(test_half_to_float_by_hand),
        cmocka_unit_test(test_half_round_trip),
        cmocka_unit_test(test_half_against_compiler),
        cmocka_unit_test(test_bf16_by_hand),
        cmocka_unit_test(test_get_set),
        cmocka_unit_test(test_poison_and_nan_count),
        cmocka_unit_test(test_uniform_draws),
        cmocka_unit_test(test_fills),
        cmocka_unit_test(test_rel_err_by_hand),
        cmocka_unit_test(test_rel_err_nan_inf),
        cmocka_unit_test(test_isclose_by_hand),
        cmocka_unit_test(test_allclose_report),
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_rates),
        cmocka_unit_test(test_board_reasons),
        cmocka_unit_test(test_sets),
        cmocka_unit_test(test_batch_size),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_csv_arg),
        cmocka_unit_test(test_cxx_digest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

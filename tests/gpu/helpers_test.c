/* helpers_test.c — <tilepp/check.h> and <tilepp/bench.h> on a GPU.
 *
 * tile_check_run with stand-in "launchers" made of cudaMemcpy (a copy is
 * the kernel, memcpy its CPU reference): the right one must PASS, and each
 * wrong one must FAIL for its reason: an element left unwritten, a write
 * past the end or before the start, wrong values, an error returned, a case
 * without outputs, one element off that only allclose sees.
 *
 * The timing helpers on cudaMemsetAsync, whose cost grows with its size:
 * results are positive and consistent (min <= median, whole cycles over the
 * sets), a memset of 4x the bytes takes 2-8x the time when paired in turns,
 * the bandwidth is plausible, the flushed timing agrees within a factor,
 * the sustained timing agrees with the paired one and reads the board
 * (SM clock, power) through NVML;
 * the CSV file starts with the title and the device line.
 *
 * Prints one line per check and "N passed, N failed"; exits 77 (SKIPPED)
 * without a CUDA device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tilepp/bench.h>
#include <tilepp/check.h>

static int passed, failed;

static void expect(int ok, const char *what)
{
    printf("%s  %s\n", ok ? "ok  " : "FAIL", what);
    fflush(stdout);
    ok ? passed++ : failed++;
}

/* ---- tile_check_run ------------------------------------------------------------ */

enum { N = 1000 };

typedef enum { RIGHT, SHORT, PAST_END, BEFORE_START, WRONG_INPUT, RETURNS_ERROR, ONE_OFF } flavour;

typedef struct {
    flavour how;
    size_t es; /* element size */
} copy_ctx;

/* out = a (args: a, b, out) */
static void cpu_copy(void *ctx, void *const *p)
{
    const copy_ctx *c = (const copy_ctx *)ctx;
    memcpy(p[2], p[0], N * c->es);
}

static cudaError_t gpu_copy(void *ctx, void *const *p)
{
    const copy_ctx *c = (const copy_ctx *)ctx;
    char *out = (char *)p[2];
    switch (c->how) {
    case SHORT:
        return cudaMemcpy(out, p[0], (N - 1) * c->es, cudaMemcpyDeviceToDevice);
    case PAST_END:
        return cudaMemcpy(out + c->es, p[0], N * c->es, cudaMemcpyDeviceToDevice);
    case BEFORE_START:
        return cudaMemcpy(out - c->es, p[0], (N + 1) * c->es, cudaMemcpyDeviceToDevice);
    case WRONG_INPUT:
        return cudaMemcpy(out, p[1], N * c->es, cudaMemcpyDeviceToDevice);
    case RETURNS_ERROR:
        return cudaErrorInvalidValue;
    case ONE_OFF: {
        /* element 5 a little off: 1e-3 of the norm, far more for the element */
        cudaError_t e = cudaMemcpy(out, p[0], N * c->es, cudaMemcpyDeviceToDevice);
        float v = 0.0f;
        if (e == cudaSuccess)
            e = cudaMemcpy(&v, out + 5 * c->es, sizeof v, cudaMemcpyDeviceToHost);
        v += 0.01f;
        return e == cudaSuccess ? cudaMemcpy(out + 5 * c->es, &v, sizeof v, cudaMemcpyHostToDevice) : e;
    }
    default:
        return cudaMemcpy(out, p[0], N * c->es, cudaMemcpyDeviceToDevice);
    }
}

static void check_run(flavour how, tile_check_type t, int close, int want_pass, const char *what)
{
    copy_ctx c = {how, tile_check_type_size(t)};
    tile_check_arg args[3] = {tile_check_input(t, N), tile_check_input(t, N),
                              close ? tile_check_output_close(t, N, 1e-3, 1e-6) : tile_check_output(t, N, 1e-2)};
    char label[120];
    snprintf(label, sizeof label, "(%s expected) %s", want_pass ? "PASS" : "FAIL", what);
    int ok = tile_check_run(label, args, 3, cpu_copy, gpu_copy, &c);
    expect(ok == want_pass, what);
}

static void no_output_cpu(void *ctx, void *const *p) { (void)ctx, (void)p; }
static cudaError_t no_output_gpu(void *ctx, void *const *p) { return (void)ctx, (void)p, cudaSuccess; }

static void test_run(void)
{
    check_run(RIGHT, TILE_CHECK_F32, 0, 1, "f32 copy, rel_err");
    check_run(RIGHT, TILE_CHECK_F16, 0, 1, "f16 copy, rel_err");
    check_run(RIGHT, TILE_CHECK_BF16, 1, 1, "bf16 copy, allclose");
    check_run(SHORT, TILE_CHECK_F32, 0, 0, "last element not written");
    check_run(PAST_END, TILE_CHECK_F16, 0, 0, "written past the end");
    check_run(BEFORE_START, TILE_CHECK_F32, 0, 0, "written before the start");
    check_run(WRONG_INPUT, TILE_CHECK_F32, 0, 0, "wrong values");
    check_run(RETURNS_ERROR, TILE_CHECK_F32, 0, 0, "launcher returns an error");
    check_run(ONE_OFF, TILE_CHECK_F32, 0, 1, "one element off by 0.01: within rel_err 1e-2");
    check_run(ONE_OFF, TILE_CHECK_F32, 1, 0, "one element off by 0.01: not allclose(1e-3, 1e-6)");
    tile_check_arg in = tile_check_input(TILE_CHECK_F32, N);
    expect(!tile_check_run("(FAIL expected) no output", &in, 1, no_output_cpu, no_output_gpu, NULL),
           "a case without outputs fails");
    /* the same label, the same data: a reproducible run */
    tile_check_rng a = tile_check_rng_seed(tile_check_seed_of("x")), b = tile_check_rng_seed(tile_check_seed_of("x"));
    expect(tile_check_rng_next(&a) == tile_check_rng_next(&b), "seeds from labels");
}

/* ---- the timing helpers ------------------------------------------------------------ */

typedef struct {
    char **sets;
    size_t bytes;
} memset_ctx;

static cudaError_t run_memset(void *ctx, int set)
{
    const memset_ctx *m = (const memset_ctx *)ctx;
    return cudaMemsetAsync(m->sets[set], set & 0xFF, m->bytes, 0);
}

static void test_timing(void)
{
    const size_t small = (size_t)32 << 20, big = 4 * small;
    int nsets = tile_bench_sets(big);
    char **sets = (char **)tile_check_xmalloc((size_t)nsets * sizeof *sets);
    for (int i = 0; i < nsets; i++)
        TILE_CHECK_CUDA(cudaMalloc((void **)&sets[i], big));
    memset_ctx ms = {sets, small}, mb = {sets, big};
    char what[200];

    tile_bench_result r = tile_bench_time(run_memset, &mb, nsets);
    double gbps = tile_bench_gbps((double)big, r.median_ms);
    snprintf(what, sizeof what, "tile_bench_time: 128 MB memset %.4f ms (min %.4f), %.0f GB/s, batch %d of %d sets",
             r.median_ms, r.min_ms, gbps, r.batch, nsets);
    expect(r.median_ms > 0.0 && r.min_ms > 0.0 && r.min_ms <= r.median_ms && r.reps == TILE_BENCH_REPS &&
               r.batch % nsets == 0 && r.batch * r.median_ms >= 0.5 * TILE_BENCH_MIN_BATCH_MS && gbps > 50.0 &&
               gbps < 50000.0,
           what);

    tile_bench_result ra, rb;
    tile_bench_pair(run_memset, &ms, run_memset, &mb, nsets, &ra, &rb);
    double ratio = rb.median_ms / ra.median_ms;
    snprintf(what, sizeof what, "tile_bench_pair: 32 MB %.4f ms, 128 MB %.4f ms: x%.2f (2-8 expected)", ra.median_ms,
             rb.median_ms, ratio);
    expect(ratio > 2.0 && ratio < 8.0, what);

    tile_bench_result f = tile_bench_time_flushed(run_memset, &mb, nsets);
    snprintf(what, sizeof what, "tile_bench_time_flushed: 128 MB %.4f ms (rotating: %.4f ms)", f.median_ms,
             r.median_ms);
    expect(f.batch == 1 && f.median_ms > 0.5 * r.median_ms && f.median_ms < 4.0 * r.median_ms, what);

    /* sustained: half a second of memsets, the board read meanwhile (NVML comes with the driver) */
    tile_bench_board board = tile_bench_board_open();
    tile_bench_sustained s = tile_bench_sustain(run_memset, &mb, nsets, 0.5, 0.1, &board);
    snprintf(what, sizeof what,
             "tile_bench_sustain: 128 MB %.4f ms (in turns: %.4f), %d batches, board %s: %u MHz, %.0f W, %u C, "
             "%d readings",
             s.median_ms, rb.median_ms, s.batches, board.ok ? "read" : "NOT READ", s.sm_mhz, s.watts, s.celsius,
             s.readings);
    expect(board.ok && s.batches > 0 && s.median_ms > 0.5 * rb.median_ms && s.median_ms < 2.0 * rb.median_ms &&
               s.readings > 0 && s.readings <= s.batches && s.sm_mhz > 100 && s.sm_mhz < 5000 && s.watts > 1.0 &&
               s.watts < 2000.0,
           what);

    for (int i = 0; i < nsets; i++)
        TILE_CHECK_CUDA(cudaFree(sets[i]));
    free(sets);
}

static void test_csv(void)
{
    const char *path = "helpers_test.csv"; /* in the working directory */
    char line[512] = "", device[256];
    FILE *f = tile_bench_csv_open(path, "helpers_test");
    tile_bench_record rec = tile_bench_record_make("helpers", "memset", "128MB", "u8", "GB/s");
    rec.ms = 0.04;
    rec.rate = 3355.4432;
    tile_bench_csv_write(f, &rec);
    expect(tile_bench_csv_close(f, path) == 0, "CSV written");
    f = fopen(path, "r");
    tile_bench_device_line(device, sizeof device);
    int ok = f && fgets(line, sizeof line, f) && strcmp(line, "# helpers_test\n") == 0;
    ok = ok && fgets(line, sizeof line, f) && strncmp(line + 2, device, strlen(device)) == 0 && device[0];
    ok = ok && fgets(line, sizeof line, f) && strcmp(line, TILE_BENCH_CSV_COLUMNS "\n") == 0;
    ok = ok && fgets(line, sizeof line, f) && strcmp(line, "helpers,memset,128MB,u8,GB/s,0.04,3355.44,,,,,\n") == 0;
    expect(ok, "CSV: title, device, columns, the record");
    if (f)
        fclose(f);
    remove(path);
}

int main(void)
{
    tile_check_require_gpu();
    tile_check_print_device(stdout);
    test_run();
    test_timing();
    test_csv();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}

/* test_inspect.c — `tilepp inspect`'s parsers on real tool output
 * (inspect_data/, README.md there says how each file was made), the
 * expectations and warnings drawn from them, kernel names, and the helpers
 * that find and run the CUDA tools. */
#define _POSIX_C_SOURCE 200809L
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_tools.h"
#include "inspect.h"
#include "process.h"

#ifndef TILEPP_INSPECT_DATA
#error "TILEPP_INSPECT_DATA must name tests/unit/inspect_data"
#endif

/* Mangled names of samples/gemm.c's kernels. */
#define GEMM_ALIGN0 "_Z15tile_gemm_grid0ILi0EEviiiPK12tile_float16I16tile_half_formatES4_PS2_9tile_loopS6_"
#define GEMM_ALIGN16 "_Z15tile_gemm_grid0ILi16EEviiiPK12tile_float16I16tile_half_formatES4_PS2_9tile_loopS6_"
#define GEMM_SM90                                                                                                      \
    "_Z20tile_gemm_grid0_sm90iiiPK12tile_float16I16tile_half_formatES3_PS1_9tile_loopS5_14CUtensorMap_stS6_S6_b"
#define NORMALIZE_0 "_Z16tile_normalize_0iPKfPf9tile_loopxxPhS3_"
#define NORMALIZE_1 "_Z16tile_normalize_1iPKfPf9tile_loopxxPhS3_"
#define NORMALIZE_COMBINE "_Z24tile_normalize_0_combineiPKfPfPhS2_i"

/* A canned file's text (arena memory). */
static const char *data(const char *name)
{
    size_t len;
    char *text = read_file(aprintf("%s/%s", TILEPP_INSPECT_DATA, name), &len);
    assert_non_null(text);
    char *copy = astrndup(text, len);
    free(text);
    return copy;
}

static const KernelReport *kernel(const InspectReport *r, const char *mangled, const char *arch)
{
    const KernelReport *k = find_kernel(r, mangled, arch);
    if (!k)
        fail_msg("no record of %s for %s", mangled, arch);
    return k;
}

static int op_count(const KernelReport *k, const char *mnemonic)
{
    for (int i = 0; i < k->ops.len; i++) {
        const OpCount *c = k->ops.items[i];
        if (strcmp(c->mnemonic, mnemonic) == 0)
            return c->count;
    }
    return 0;
}

/* tensor, async, barrier, matrix, shuffle, local stores, local loads */
static void assert_counts(const KernelReport *k, int tc, int cp, int bar, int ldsm, int shfl, int stl, int ldl)
{
    const int want[LM_FAMILIES] = {tc, cp, bar, ldsm, shfl, stl, ldl};
    for (int f = 0; f < LM_FAMILIES; f++)
        if (k->counts[f] != want[f])
            fail_msg("%s (%s): %d %s, expected %d", k->name, k->arch, k->counts[f], landmark_key(f), want[f]);
}

/* ---- SASS ------------------------------------------------------------------------ */

static void sass_from_cuobjdump_fatbin(void **state)
{
    (void)state;
    InspectReport r = {0};
    parse_sass(data("gemm_fatbin.sass"), NULL, &r);
    assert_int_equal(r.kernels.len, 6); /* three kernels, two architectures */
    const KernelReport *k = kernel(&r, GEMM_ALIGN0, "sm_80");
    assert_string_equal(k->name, "tile_gemm_grid0<0>");
    assert_counts(k, 2, 2, 2, 2, 0, 0, 0);
    assert_int_equal(k->instructions, 12);
    assert_int_equal(op_count(k, "HMMA"), 2);
    assert_int_equal(op_count(k, "LDGSTS"), 2);
    assert_int_equal(k->registers, -1); /* no resources in a listing */
    /* The register-starved variant on sm_90a: local-memory traffic. */
    assert_counts(kernel(&r, GEMM_ALIGN0, "sm_90a"), 2, 2, 2, 2, 0, 2, 2);
    assert_counts(kernel(&r, GEMM_ALIGN16, "sm_90a"), 2, 2, 2, 2, 0, 0, 0);
    /* The warp-specialized kernel: wgmma, TMA loads and stores, mbarriers. */
    k = kernel(&r, GEMM_SM90, "sm_90a");
    assert_string_equal(k->name, "tile_gemm_grid0_sm90");
    assert_counts(k, 2, 4, 4, 0, 0, 0, 0);
    assert_int_equal(op_count(k, "HGMMA"), 2);
    assert_int_equal(op_count(k, "UTMALDG"), 2);
    assert_int_equal(op_count(k, "UTMASTG"), 2);
    assert_int_equal(op_count(k, "SYNCS"), 2);
    assert_int_equal(op_count(k, "BAR"), 2);
    assert_int_equal(k->instructions, 14);
    /* Families in report order: the tensor cores first. */
    assert_string_equal(((OpCount *)k->ops.items[0])->mnemonic, "HGMMA");
    /* Compiled for sm_80 it is empty (#if TILE90_DEVICE). */
    assert_int_equal(kernel(&r, GEMM_SM90, "sm_80")->instructions, 2);
}

static void sass_from_nvdisasm(void **state)
{
    (void)state;
    InspectReport r = {0};
    parse_sass(data("gemm_sm80.nvdisasm"), NULL, &r);
    /* One record per .text section; .nv.info and .nv.constant0 sections name
     * the kernels too but hold no code; .sectioninfo lines do not end one. */
    assert_int_equal(r.kernels.len, 3);
    const KernelReport *k = kernel(&r, GEMM_ALIGN16, "sm_80");
    assert_counts(k, 2, 2, 2, 2, 0, 0, 0);
    assert_int_equal(k->instructions, 12);
    assert_int_equal(kernel(&r, GEMM_SM90, "sm_80")->instructions, 2);
}

static void sass_arch_from_listing(void **state)
{
    (void)state;
    InspectReport r = {0};
    /* "code for sm_90a" wins over the default. */
    parse_sass(data("normalize_sm90a_cubin.sass"), "sm_80", &r);
    assert_int_equal(r.kernels.len, 3);
    const KernelReport *k = kernel(&r, NORMALIZE_COMBINE, "sm_90a");
    assert_string_equal(k->name, "tile_normalize_0_combine");
    assert_counts(k, 0, 0, 2, 0, 2, 0, 0);
    assert_int_equal(op_count(k, "SHFL"), 2);
    assert_counts(kernel(&r, NORMALIZE_1, "sm_90a"), 0, 0, 0, 0, 0, 0, 0);
    assert_int_equal(kernel(&r, NORMALIZE_1, "sm_90a")->instructions, 4);
}

/* ---- PTX ---------------------------------------------------------------------------- */

static void ptx_entries(void **state)
{
    (void)state;
    InspectReport r = {0};
    parse_ptx(data("gemm_compute_90a.ptx"), "sm_80", &r);
    /* Two entries; the third is only named in a comment at the end. */
    assert_int_equal(r.kernels.len, 2);
    const KernelReport *k = kernel(&r, GEMM_SM90, "sm_90a");
    /* wgmma.fence is not a product; cp.async.bulk.wait_group not a copy. */
    assert_counts(k, 1, 1, 2, 0, 0, 0, 0);
    assert_int_equal(op_count(k, "wgmma.mma_async"), 1);
    assert_int_equal(op_count(k, "cp.async.bulk.tensor"), 1);
    assert_int_equal(op_count(k, "mbarrier"), 1);
    assert_int_equal(op_count(k, "bar"), 1);
    /* The sm_80 kernel: cp.async (its commit and wait are bookkeeping),
     * ldmatrix, mma.sync. */
    k = kernel(&r, GEMM_ALIGN16, "sm_90a");
    assert_counts(k, 2, 1, 0, 2, 0, 0, 0);
    assert_int_equal(op_count(k, "cp.async"), 1);
    assert_int_equal(op_count(k, "ldmatrix"), 2);
    assert_int_equal(op_count(k, "mma.sync"), 2);
    assert_true(k->instructions > 20);
}

/* ---- resources --------------------------------------------------------------------------- */

static void res_usage_of_fatbin(void **state)
{
    (void)state;
    InspectReport r = {0};
    parse_sass(data("gemm_fatbin.sass"), NULL, &r);
    parse_res_usage(data("gemm_fatbin.res-usage"), NULL, &r);
    const KernelReport *k = kernel(&r, GEMM_ALIGN0, "sm_80");
    assert_true(k->has_resources);
    assert_int_equal(k->registers, 255);
    assert_int_equal(k->stack_bytes, 0);
    assert_int_equal(k->shared_bytes, 0);
    k = kernel(&r, GEMM_ALIGN0, "sm_90a");
    assert_int_equal(k->registers, 255);
    assert_int_equal(k->stack_bytes, 16);
    assert_int_equal(k->shared_bytes, 1024);    /* sm_90's reserved kilobyte */
    assert_int_equal(k->spill_store_bytes, -1); /* a binary does not record spills */
    assert_int_equal(kernel(&r, GEMM_SM90, "sm_90a")->registers, 128);
    assert_int_equal(kernel(&r, GEMM_SM90, "sm_80")->registers, 4);
}

static void res_usage_of_cubin(void **state)
{
    (void)state;
    InspectReport r = {0};
    parse_sass(data("normalize_sm90a_cubin.sass"), NULL, &r);
    /* A cubin's listing has no "arch =" line: the default applies. */
    parse_res_usage(data("normalize_sm90a_cubin.res-usage"), "sm_90a", &r);
    assert_int_equal(kernel(&r, NORMALIZE_COMBINE, "sm_90a")->registers, 31);
    assert_int_equal(kernel(&r, NORMALIZE_COMBINE, "sm_90a")->shared_bytes, 1280);
    assert_int_equal(kernel(&r, NORMALIZE_1, "sm_90a")->shared_bytes, 0);
    /* Functions it has no record of are not added. */
    InspectReport empty = {0};
    parse_res_usage(data("normalize_sm90a_cubin.res-usage"), "sm_90a", &empty);
    assert_int_equal(empty.kernels.len, 0);
}

static void ptxas_spills(void **state)
{
    (void)state;
    InspectReport r = {0};
    parse_ptxas_verbose(data("gemm_sm90a.ptxas"), &r);
    assert_int_equal(r.kernels.len, 3);
    const KernelReport *k = kernel(&r, GEMM_ALIGN0, "sm_90a");
    assert_int_equal(k->registers, 255);
    assert_int_equal(k->stack_bytes, 16);
    assert_int_equal(k->spill_store_bytes, 16);
    assert_int_equal(k->spill_load_bytes, 16);
    assert_int_equal(k->shared_bytes, 0);
    k = kernel(&r, GEMM_SM90, "sm_90a");
    assert_int_equal(k->registers, 128);
    assert_int_equal(k->spill_store_bytes, 0);
}

static void ptxas_two_archs_and_smem(void **state)
{
    (void)state;
    InspectReport r = {0};
    parse_ptxas_verbose(data("normalize_nvcc.ptxas"), &r);
    assert_int_equal(r.kernels.len, 6);
    assert_int_equal(kernel(&r, NORMALIZE_COMBINE, "sm_80")->shared_bytes, 256);
    assert_int_equal(kernel(&r, NORMALIZE_COMBINE, "sm_80")->registers, 31);
    assert_int_equal(kernel(&r, NORMALIZE_0, "sm_80")->registers, 28);
    assert_int_equal(kernel(&r, NORMALIZE_0, "sm_90a")->registers, 26);
    assert_int_equal(kernel(&r, NORMALIZE_1, "sm_90a")->shared_bytes, 0);
    assert_int_equal(kernel(&r, NORMALIZE_1, "sm_90a")->registers, 32);
}

static void ptxas_device_function(void **state)
{
    (void)state;
    InspectReport r = {0};
    parse_ptxas_verbose(data("noinline_sm80.ptxas"), &r);
    /* The helper's properties come after the kernel's and are not its. */
    assert_int_equal(r.kernels.len, 1);
    const KernelReport *k = kernel(&r, "_Z11uses_helperPfi", "sm_80");
    assert_string_equal(k->name, "uses_helper");
    assert_int_equal(k->stack_bytes, 32);
    assert_int_equal(k->registers, 16);
    assert_int_equal(k->spill_store_bytes, 0);
}

/* ---- classification and names ----------------------------------------------------------------- */

static void sass_families(void **state)
{
    (void)state;
    const char *m;
    assert_int_equal(sass_landmark("HGMMA.64x128x16.F32", &m), LM_TENSOR_CORE);
    assert_string_equal(m, "HGMMA");
    assert_int_equal(sass_landmark("HMMA.16816.F32.BF16", &m), LM_TENSOR_CORE);
    assert_int_equal(sass_landmark("UTCHMMA.2CTA", &m), LM_TENSOR_CORE);
    assert_string_equal(m, "UTCHMMA");
    assert_int_equal(sass_landmark("UTMALDG.2D", &m), LM_ASYNC_COPY);
    assert_int_equal(sass_landmark("LDGSTS.E.BYPASS.128.ZFILL", &m), LM_ASYNC_COPY);
    assert_int_equal(sass_landmark("BAR.SYNC.DEFER_BLOCKING", &m), LM_BARRIER);
    assert_string_equal(m, "BAR");
    assert_int_equal(sass_landmark("SYNCS.PHASECHK.TRANS64.TRYWAIT", &m), LM_BARRIER);
    assert_int_equal(sass_landmark("LDSM.16.MT88.4", &m), LM_MATRIX_LOAD);
    assert_int_equal(sass_landmark("SHFL.BFLY", &m), LM_SHUFFLE);
    assert_int_equal(sass_landmark("STL.64", &m), LM_LOCAL_STORE);
    assert_int_equal(sass_landmark("LDL.LU", &m), LM_LOCAL_LOAD);
    /* Near misses: branch convergence, cp.async group waits, shared loads. */
    assert_int_equal(sass_landmark("BSYNC", &m), LM_NONE);
    assert_int_equal(sass_landmark("LDGDEPBAR", &m), LM_NONE);
    assert_int_equal(sass_landmark("DEPBAR.LE", &m), LM_NONE);
    assert_int_equal(sass_landmark("LDS.128", &m), LM_NONE);
    assert_int_equal(sass_landmark("BARX", &m), LM_NONE);
}

static void ptx_families(void **state)
{
    (void)state;
    const char *m;
    assert_int_equal(ptx_landmark("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16", &m), LM_TENSOR_CORE);
    assert_int_equal(ptx_landmark("wgmma.fence.sync.aligned", &m), LM_NONE);
    assert_int_equal(ptx_landmark("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", &m), LM_TENSOR_CORE);
    assert_int_equal(ptx_landmark("cp.async.bulk.tensor.2d.shared::cluster.global.tile", &m), LM_ASYNC_COPY);
    assert_string_equal(m, "cp.async.bulk.tensor");
    assert_int_equal(ptx_landmark("cp.async.bulk.shared::cluster.global.mbarrier", &m), LM_ASYNC_COPY);
    assert_string_equal(m, "cp.async.bulk");
    assert_int_equal(ptx_landmark("cp.async.bulk.commit_group", &m), LM_NONE);
    assert_int_equal(ptx_landmark("cp.async.bulk.wait_group.read", &m), LM_NONE);
    assert_int_equal(ptx_landmark("cp.async.ca.shared.global", &m), LM_ASYNC_COPY);
    assert_string_equal(m, "cp.async");
    assert_int_equal(ptx_landmark("cp.async.wait_group", &m), LM_NONE);
    assert_int_equal(ptx_landmark("cp.async.mbarrier.arrive.noinc.shared.b64", &m), LM_BARRIER);
    assert_int_equal(ptx_landmark("mbarrier.try_wait.parity.shared::cta.b64", &m), LM_BARRIER);
    assert_int_equal(ptx_landmark("barrier.sync.aligned", &m), LM_BARRIER);
    assert_int_equal(ptx_landmark("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", &m), LM_MATRIX_LOAD);
    assert_int_equal(ptx_landmark("shfl.sync.bfly.b32", &m), LM_SHUFFLE);
    assert_int_equal(ptx_landmark("st.local.v4.u32", &m), LM_LOCAL_STORE);
    assert_int_equal(ptx_landmark("ld.local.f32", &m), LM_LOCAL_LOAD);
    assert_int_equal(ptx_landmark("ld.global.nc.v4.f32", &m), LM_NONE);
    assert_int_equal(ptx_landmark("bra.uni", &m), LM_NONE);
}

static void demangled_names(void **state)
{
    (void)state;
    assert_string_equal(demangle_name(GEMM_ALIGN16), "tile_gemm_grid0<16>");
    assert_string_equal(demangle_name("_Z22tile_softmax_f32_grid0ILi4ELi32EEviiPKfPf9tile_loop"),
                        "tile_softmax_f32_grid0<4, 32>");
    assert_string_equal(demangle_name(NORMALIZE_1), "tile_normalize_1");
    assert_string_equal(demangle_name("vector_add_kernel"), "vector_add_kernel"); /* extern "C" */
    assert_string_equal(demangle_name("_ZN4tile6kernelILj8ELb1EEEvv"), "tile::kernel<8u, true>");
    assert_string_equal(demangle_name("_ZN12_GLOBAL__N_16kernelEv"), "(anonymous namespace)::kernel");
    assert_string_equal(demangle_name("_Z1fILin3EEvv"), "f<-3>");
    assert_string_equal(demangle_name("_Z1fIfPKiEvv"), "f<float, const int*>");
    assert_string_equal(demangle_name("_Z1fI1AIiEEvv"), "f<A<int> >");
    assert_string_equal(demangle_name("_ZL6kernelv"), "kernel");
    /* What it cannot read stays mangled. */
    assert_string_equal(demangle_name("_Z999x"), "_Z999x");
    assert_string_equal(demangle_name("_Z1fIXadL_Z1gEEEvv"), "_Z1fIXadL_Z1gEEEvv");
    assert_string_equal(demangle_name("_Z1fIL"), "_Z1fIL");
}

static void origins(void **state)
{
    (void)state;
    TileOrigin o = tile_origin("tile_gemm_grid0<16>");
    assert_true(o.known);
    assert_string_equal(o.kernel, "gemm");
    assert_string_equal(o.construct, "grid");
    assert_int_equal(o.index, 0);
    assert_false(o.sm90);
    o = tile_origin("tile_flash_attention_gqa_grid2_sm90");
    assert_true(o.known && o.sm90);
    assert_string_equal(o.kernel, "flash_attention_gqa");
    assert_int_equal(o.index, 2);
    o = tile_origin("tile_normalize_0_combine");
    assert_true(o.known);
    assert_string_equal(o.construct, "combine");
    assert_string_equal(o.kernel, "normalize");
    o = tile_origin("tile_copy_heads_1");
    assert_string_equal(o.construct, "parallel");
    assert_string_equal(o.kernel, "copy_heads");
    assert_int_equal(o.index, 1);
    o = tile_origin("tile_softmax_f32_grid0<4, 32>");
    assert_string_equal(o.kernel, "softmax_f32");
    assert_false(o.tuned);
    /* a tune point's variant, in its namespace (emit_tune.c) */
    o = tile_origin("tile_tune_gemm_v13::tile_gemm_grid0_sm90");
    assert_true(o.known && o.sm90 && o.tuned);
    assert_string_equal(o.kernel, "gemm");
    assert_int_equal(o.variant, 13);
    o = tile_origin("tile_tune_scale_rows_v1::tile_scale_rows_0");
    assert_true(o.known && o.tuned);
    assert_string_equal(o.kernel, "scale_rows");
    assert_string_equal(o.construct, "parallel");
    assert_false(tile_origin("vector_add_kernel").known);
    assert_false(tile_origin("tile_x").known);
    assert_false(tile_origin("tile_k_grid").known);
    assert_false(tile_origin("tile_k_0_sm90").known);
    assert_false(tile_origin("tile__grid0").known);
}

/* ---- expectations and warnings ------------------------------------------------------------------ */

static const InspectWarning *warning_of(const Vec *warnings, int i) { return warnings->items[i]; }

static void expectations_from_names(void **state)
{
    (void)state;
    InspectReport r = {0};
    parse_sass(data("gemm_fatbin.sass"), NULL, &r);
    parse_res_usage(data("gemm_fatbin.res-usage"), NULL, &r);
    apply_expectations(&r, NULL, 0);
    /* The sm_90a variant compiled for sm_80 is empty on purpose. */
    const KernelReport *stub = kernel(&r, GEMM_SM90, "sm_80");
    assert_true(stub->stub);
    assert_null(stub->want_tc);
    /* Its sibling, the sm_80 kernel of the same block, should be a GEMM too. */
    const KernelReport *k = kernel(&r, GEMM_ALIGN0, "sm_80");
    assert_false(k->stub);
    assert_non_null(k->want_tc);
    assert_non_null(k->want_cp);
    assert_true(k->origin.known);
    Vec warnings = {0};
    inspect_warnings(&r, &warnings);
    /* Only the local-memory traffic of the sm_90a build of <0>. */
    assert_int_equal(warnings.len, 1);
    assert_string_equal(warning_of(&warnings, 0)->kind, "local_memory");
    assert_ptr_equal(warning_of(&warnings, 0)->k, kernel(&r, GEMM_ALIGN0, "sm_90a"));
    assert_non_null(strstr(warning_of(&warnings, 0)->message, "2 local-memory stores and 2 loads (STL/LDL)"));
    assert_non_null(strstr(warning_of(&warnings, 0)->message, "16-byte stack frame"));
}

static void expectations_from_source(void **state)
{
    (void)state;
    InspectReport r = {0};
    parse_ptxas_verbose(data("gemm_sm90a.ptxas"), &r); /* resources only: no instruction counted */
    KernelSource sources[] = {
        {"tile_gemm_grid0", true, true, "gemm.c", 20, 49152},
        {"tile_gemm_grid0_sm90", true, true, "gemm.c", 20, 66608},
    };
    apply_expectations(&r, sources, 2);
    const KernelReport *k = kernel(&r, GEMM_SM90, "sm_90a");
    assert_int_equal(k->dynamic_shared_bytes, 66608);
    assert_int_equal(k->source_line, 20);
    assert_string_equal(k->want_tc, "its block at gemm.c:20 has a tile_gemm");
    assert_string_equal(k->want_cp, "its block at gemm.c:20 has a pipelined loop");
    Vec warnings = {0};
    inspect_warnings(&r, &warnings);
    /* <0> spills; none of the three has tensor-core instructions or copies. */
    assert_int_equal(warnings.len, 7);
    const InspectWarning *w = warning_of(&warnings, 0);
    assert_string_equal(w->kind, "spills");
    assert_string_equal(w->message, "16 bytes spill stores, 16 bytes spill loads (255 registers)");
    w = warning_of(&warnings, 1);
    assert_string_equal(w->kind, "no_tensor_core");
    assert_string_equal(w->message, "no tensor-core instruction, though its block at gemm.c:20 has a tile_gemm");
    assert_string_equal(warning_of(&warnings, 2)->kind, "no_async_copy");
}

static void expectations_across_archs(void **state)
{
    (void)state;
    /* Made up (no tool wrote it): one kernel of no known origin, with
     * tensor-core instructions on sm_80 and none on sm_86. */
    const char *listing = "\tcode for sm_80\n"
                          "\t\tFunction : _Z6kernelv\n"
                          "        /*0000*/                   HMMA.16816.F32 R4, R8, R12, R4 ;\n"
                          "        /*0010*/                   EXIT ;\n"
                          "\tcode for sm_86\n"
                          "\t\tFunction : _Z6kernelv\n"
                          "        /*0000*/                   FFMA R4, R8, R12, R4 ;\n"
                          "        /*0010*/                   EXIT ;\n";
    InspectReport r = {.view = VIEW_SASS};
    parse_sass(listing, NULL, &r);
    apply_expectations(&r, NULL, 0);
    Vec warnings = {0};
    inspect_warnings(&r, &warnings);
    assert_int_equal(warnings.len, 1);
    assert_string_equal(warning_of(&warnings, 0)->k->arch, "sm_86");
    assert_string_equal(warning_of(&warnings, 0)->message,
                        "no tensor-core instruction, though it has tensor-core instructions on sm_80");
}

/* Every parser on every canned file cut at 64 places, and the demangler on
 * every prefix of a name: whatever the tools print when they stop short, the
 * parsers read within the text (the sanitizer build checks that). */
static void truncated_listings(void **state)
{
    (void)state;
    static const char *const files[] = {"gemm_fatbin.sass",     "gemm_fatbin.res-usage", "gemm_sm80.nvdisasm",
                                        "gemm_compute_90a.ptx", "gemm_sm90a.ptxas",      "normalize_sm90a_cubin.sass",
                                        "normalize_nvcc.ptxas", "noinline_sm80.ptxas"};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        const char *text = data(files[f]);
        size_t len = strlen(text);
        for (size_t cut = 0; cut <= len; cut += len / 64 + 1) {
            char *prefix = astrndup(text, cut);
            InspectReport r = {0};
            parse_sass(prefix, NULL, &r);
            parse_ptx(prefix, "sm_80", &r);
            parse_res_usage(prefix, "sm_80", &r);
            parse_ptxas_verbose(prefix, &r);
            apply_expectations(&r, NULL, 0);
            Vec warnings = {0};
            inspect_warnings(&r, &warnings);
        }
    }
    const char *name = "_ZN12_GLOBAL__N_14tileILi4ELj8ELb1EEEvPK1AIfEi";
    for (size_t n = 0; n <= strlen(name); n++)
        assert_non_null(demangle_name(astrndup(name, n)));
}

/* ---- finding and running tools ---------------------------------------------------------------------- */

static void arch_names(void **state)
{
    (void)state;
    assert_string_equal(sm_arch_name("90a"), "sm_90a");
    assert_string_equal(sm_arch_name("90"), "sm_90a");
    assert_string_equal(sm_arch_name("compute_90a"), "sm_90a");
    assert_string_equal(sm_arch_name("sm_80"), "sm_80");
    assert_string_equal(sm_arch_name("86"), "sm_86");
    assert_string_equal(sm_arch_name("100a"), "sm_100a");
    assert_null(sm_arch_name("75"));
    assert_null(sm_arch_name("sm_90x"));
    assert_null(sm_arch_name(""));
    assert_string_equal(compute_arch_name("sm_90a"), "compute_90a");
    Vec archs = {0};
    const char *bad;
    assert_true(parse_sm_archs("80,90a,sm_80;90", &archs, &bad));
    assert_int_equal(archs.len, 2); /* each once */
    assert_string_equal(archs.items[0], "sm_80");
    assert_string_equal(archs.items[1], "sm_90a");
    Vec more = {0};
    assert_false(parse_sm_archs("80,70", &more, &bad));
    assert_string_equal(bad, "70");
}

static void runs_a_process(void **state)
{
    (void)state;
    const char *argv[] = {"/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL};
    ProcessResult r;
    assert_true(run_process(argv, NULL, &r));
    assert_int_equal(r.status, 3);
    assert_string_equal(r.out, "out\n");
    assert_string_equal(r.err, "err\n");
    /* More than a pipe holds on both streams at once: no deadlock. */
    const char *big[] = {"/bin/sh", "-c",
                         "i=0; while [ $i -lt 3000 ]; do echo 0123456789012345678901234567890123456789; "
                         "echo abcdefghijabcdefghijabcdefghijabcdefghij >&2; i=$((i+1)); done",
                         NULL};
    assert_true(run_process(big, NULL, &r));
    assert_int_equal(r.status, 0);
    assert_int_equal(strlen(r.out), 3000 * 41);
    assert_int_equal(strlen(r.err), 3000 * 41);
    /* PATH for the child, with a directory in front. */
    const char *path[] = {"/bin/sh", "-c", "echo $PATH", NULL};
    assert_true(run_process(path, "/opt/first", &r));
    assert_true(str_starts_with(r.out, "/opt/first:"));
    const char *missing[] = {"/no/such/program", NULL};
    assert_false(run_process(missing, NULL, &r));
    assert_non_null(strstr(r.err, "cannot run '/no/such/program'"));
}

static void command_lines_and_paths(void **state)
{
    (void)state;
    const char *argv[] = {"nvcc", "-I/a b", "it's", "-arch=sm_90a", NULL};
    assert_string_equal(command_text(argv), "nvcc '-I/a b' 'it'\\''s' -arch=sm_90a");
    assert_string_equal(dir_of("/usr/local/cuda/bin/nvcc"), "/usr/local/cuda/bin");
    assert_string_equal(dir_of("nvcc"), ".");
    assert_string_equal(dir_of("/nvcc"), "/");
    assert_string_equal(find_in_dirs("sh", "/no/such/dir:/bin"), "/bin/sh");
    assert_null(find_in_dirs("no-such-program-here", "/bin:/usr/bin"));
    char *tmp = make_temp_dir();
    assert_non_null(tmp);
    FILE *f = fopen(aprintf("%s/x.ptx", tmp), "w");
    assert_non_null(f);
    fclose(f);
    remove_temp_dir(tmp);
    assert_null(find_in_dirs("x.ptx", tmp));
    assert_int_equal(access(tmp, F_OK), -1);
}

static void tool_settings(void **state)
{
    (void)state;
    /* A variable that names a missing program is an error, not a fallback. */
    setenv("CUDACXX", "/no/such/nvcc", 1);
    Tool t = find_nvcc();
    assert_null(t.path);
    assert_true(t.bad_setting);
    assert_string_equal(t.why, "CUDACXX is '/no/such/nvcc', which is not an executable");
    setenv("CUDACXX", "sh", 1); /* a name: looked up in PATH */
    t = find_nvcc();
    assert_non_null(t.path);
    unsetenv("CUDACXX");
    setenv("TILEPP_CUOBJDUMP", "/no/such/cuobjdump", 1);
    t = find_cuobjdump(NULL);
    assert_true(t.bad_setting);
    unsetenv("TILEPP_CUOBJDUMP");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(sass_from_cuobjdump_fatbin),
        UNIT_TEST(sass_from_nvdisasm),
        UNIT_TEST(sass_arch_from_listing),
        UNIT_TEST(ptx_entries),
        UNIT_TEST(res_usage_of_fatbin),
        UNIT_TEST(res_usage_of_cubin),
        UNIT_TEST(ptxas_spills),
        UNIT_TEST(ptxas_two_archs_and_smem),
        UNIT_TEST(ptxas_device_function),
        UNIT_TEST(sass_families),
        UNIT_TEST(ptx_families),
        UNIT_TEST(demangled_names),
        UNIT_TEST(origins),
        UNIT_TEST(expectations_from_names),
        UNIT_TEST(expectations_from_source),
        UNIT_TEST(expectations_across_archs),
        UNIT_TEST(truncated_listings),
        UNIT_TEST(arch_names),
        UNIT_TEST(runs_a_process),
        UNIT_TEST(command_lines_and_paths),
        UNIT_TEST(tool_settings),
    };
    return cmocka_run_group_tests_name("inspect", tests, NULL, NULL);
}

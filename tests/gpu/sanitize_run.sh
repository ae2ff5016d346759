#!/usr/bin/env bash
# sanitize_run.sh — every GPU test and sample under compute-sanitizer's four
# tools, on a machine with a GPU, from the programs of a build made elsewhere
# (as device_run.sh).
#
#   tests/gpu/sanitize_run.sh BIN_DIR OUT_DIR [TOOL...] [-- PROGRAM...]
#
# TOOLs: memcheck racecheck synccheck initcheck (default: all four).
# PROGRAMs: names of programs in BIN_DIR (default: the list below).
# Only tilepp's kernels are instrumented (--kernel-name kns=tile_: every
# generated kernel's name starts so); cuBLAS's, which some tests call for a
# reference, are left alone; except under racecheck, whose kernel filter
# breaks the tool where cuBLAS runs (below). Under initcheck the buffers
# cuBLAS wrote look uninitialized when copied (the filter hides its writes).
# Programs that take --small get it: the checked runs are 10-100 times slower. Each run has a
# time limit (STEP_LIMIT seconds, default 300); one log per run in OUT_DIR,
# and a summary: rc=0 and "ERROR SUMMARY: 0 errors" for a clean run.
set -uo pipefail

bin=$(cd "${1:?usage: sanitize_run.sh BIN_DIR OUT_DIR [TOOL...] [-- PROGRAM...]}" && pwd)
out=${2:?usage: sanitize_run.sh BIN_DIR OUT_DIR [TOOL...] [-- PROGRAM...]}
shift 2
mkdir -p "$out"

tools=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    tools+=("$1")
    shift
done
[ $# -gt 0 ] && shift
[ ${#tools[@]} -gt 0 ] || tools=(memcheck racecheck synccheck initcheck)
programs=("$@")
[ ${#programs[@]} -gt 0 ] || programs=(gpu_samples_test gpu_l1_test gemm_test tile_ops_test reduce_test
    attention_test attention_test_d64 attention_test_d256 attention_test_bf16 edge_test profile_test
    helpers_test vector_add_sample bias_gelu_sample gemm_sample rows_sample print_test debug_test tune_test)

# Programs whose checked runs are cut down with --small.
takes_small() {
    case "$1" in
        gemm_test | reduce_test | attention_test* | edge_test | gemm_sample | gemm_bias_gelu_sample | gemm_softmax_sample)
            return 0 ;;
        *) return 1 ;;
    esac
}

# Tuned kernels run the file's own point here (the checked runs would time
# every variant at each new shape), except in tune_test, which tunes on
# purpose: every variant of its kernels and of samples/gemm.c runs checked.
export TILEPP_TUNE=${TILEPP_TUNE:-off}

command -v compute-sanitizer >/dev/null || { echo "sanitize_run.sh: no compute-sanitizer"; exit 1; }

declare -a names=() results=()
for tool in "${tools[@]}"; do
    extra=()
    filter=(--kernel-name kns=tile_)
    serialized=0
    case "$tool" in
        # No kernel filter for racecheck: with one (kns=tile_, or excluding
        # cuBLAS's nvjet kernels) the tool itself fails ("failed to handle a
        # hardware exception") at a program's second cuBLAS GEMM, even in one
        # that runs no tilepp kernel (cublas_racecheck.c); unfiltered it runs,
        # and gemm_test --small shows no hazard in cuBLAS's kernels or ours.
        racecheck) extra=(--racecheck-report hazard) filter=() ;;
        memcheck) extra=(--leak-check full) ;;
        # initcheck makes every launch wait: the tests' asynchrony checks are off
        initcheck) serialized=1 ;;
    esac
    for p in "${programs[@]}"; do
        [ -x "$bin/$p" ] || continue
        args=()
        takes_small "$p" && args=(--small)
        log="$tool-$p.log"
        t0=$SECONDS
        TILEPP_TEST_SERIALIZED=$serialized timeout -k 5 "${STEP_LIMIT:-300}" compute-sanitizer --tool "$tool" \
            "${extra[@]}" "${filter[@]}" --error-exitcode 1 "$bin/$p" "${args[@]}" >"$out/$log" 2>&1
        rc=$?
        summary=$(grep -ho 'ERROR SUMMARY: [0-9]* error[s]*\|RACECHECK SUMMARY: [0-9]* hazard[s]*[^)]*' "$out/$log" | tail -1)
        names+=("$tool $p")
        results+=("rc=$rc $((SECONDS - t0))s ${summary:-no summary}")
    done
done

echo "== summary (rc=124: the time limit)"
for i in "${!names[@]}"; do
    printf '%-36s %s\n' "${names[$i]}" "${results[$i]}"
done

#!/usr/bin/env bash
# device_run.sh — the GPU half of the suite, on a machine with a GPU, from the
# programs of a build made elsewhere (where libclang and nvcc are).
#
#   tests/gpu/device_run.sh BIN_DIR OUT_DIR
#
# Runs the GPU test programs, the samples, compute-sanitizer's memcheck over
# two of the tests, the SASS landmarks of the generated kernels and the
# benchmarks found in BIN_DIR; writes one log per step into OUT_DIR and prints
# a summary. (Runs the programs directly, not through ctest, so only the
# folder of programs has to travel.)
set -uo pipefail

bin=$(cd "${1:?usage: device_run.sh BIN_DIR OUT_DIR}" && pwd)
out=${2:?usage: device_run.sh BIN_DIR OUT_DIR}
mkdir -p "$out"

declare -a names=() results=()
step() { # step NAME LOG COMMAND...
    local name=$1 log=$2
    shift 2
    local t0=$SECONDS
    "$@" >"$out/$log" 2>&1
    local rc=$?
    names+=("$name")
    results+=("rc=$rc $((SECONDS - t0))s $log")
}
have() { [ -x "$bin/$1" ]; }

step device device.txt nvidia-smi
for t in gpu_samples_test gpu_l1_test gemm_test mma_test; do
    have "$t" && step "$t" "$t.log" "$bin/$t"
done
for s in vector_add_sample bias_gelu_sample gemm_sample gemm_schedules_sample; do
    have "$s" && step "$s" "$s.log" "$bin/$s"
done
if command -v compute-sanitizer >/dev/null; then
    for t in gpu_samples_test gemm_test; do
        have "$t" && step "memcheck-$t" "memcheck-$t.log" \
            compute-sanitizer --tool memcheck --error-exitcode 1 "$bin/$t"
    done
fi
if command -v cuobjdump >/dev/null; then
    step sass sass.txt bash -c "for b in vector_add_sample bias_gelu_sample gemm_sample; do
        [ -x '$bin'/\$b ] || continue
        echo \"== \$b\"; cuobjdump -sass '$bin'/\$b |
            grep -oE '(LDG|STG)\.E(\.[A-Z0-9]+)*|HMMA\.[0-9A-Z.]+|LDSM[.A-Z0-9]*|LDGSTS[.A-Z0-9]*|HGMMA[.A-Z0-9]*' |
            sort | uniq -c; done"
fi
for bench in bench_vector_add bench_gemm; do
    have "$bench" && step "$bench" "$bench.md" "$bin/$bench"
done

echo "== summary"
for i in "${!names[@]}"; do
    printf '%-28s %s\n' "${names[$i]}" "${results[$i]}"
done
for t in gpu_samples_test gpu_l1_test gemm_test mma_test; do
    [ ! -f "$out/$t.log" ] || printf '%-20s %s\n' "$t" "$(grep -E 'passed|SKIPPED' "$out/$t.log" | tail -1)"
done

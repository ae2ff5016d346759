#!/usr/bin/env bash
# device_run.sh — the GPU half of the suite, on a machine with a GPU, from a
# build folder configured and built elsewhere (where libclang and nvcc are).
#
#   tests/gpu/device_run.sh BUILD_DIR OUT_DIR
#
# Runs the GPU tests (ctest -L gpu), the samples, compute-sanitizer's memcheck
# over the sample tests, the SASS landmarks of the generated kernels and the
# benchmarks; writes one log per step into OUT_DIR and prints a summary.
set -uo pipefail

build=$(cd "${1:?usage: device_run.sh BUILD_DIR OUT_DIR}" && pwd)
out=${2:?usage: device_run.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"

# ctest's files name the absolute source and build paths of the machine that
# configured them; make those paths lead here when this is another machine.
configured_build=$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$build/CMakeCache.txt")
configured_src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
src=$(cd "$(dirname "$0")/../.." && pwd)
for pair in "$configured_src:$src" "$configured_build:$build"; do
    from=${pair%%:*} to=${pair#*:}
    if [ -n "$from" ] && [ ! -e "$from" ]; then
        mkdir -p "$(dirname "$from")" && ln -s "$to" "$from"
    fi
done

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

step device device.txt nvidia-smi
step gpu-tests gpu-tests.log ctest --test-dir "$build" -L gpu --output-on-failure
step samples samples.log bash -c "'$build/bin/vector_add_sample' && '$build/bin/bias_gelu_sample'"
if command -v compute-sanitizer >/dev/null; then
    step memcheck memcheck.log compute-sanitizer --tool memcheck --error-exitcode 1 "$build/bin/gpu_samples_test"
fi
if command -v cuobjdump >/dev/null; then
    step sass sass.txt bash -c "for b in vector_add_sample bias_gelu_sample gpu_l1_test; do
        echo \"== \$b\"; cuobjdump -sass '$build'/bin/\$b | grep -oE '(LDG|STG)\.E(\.[A-Z0-9]+)*' | sort | uniq -c; done"
fi
for bench in "$build"/bin/bench_*; do
    [ -x "$bench" ] && step "$(basename "$bench")" "$(basename "$bench").md" "$bench"
done

echo "== summary"
for i in "${!names[@]}"; do
    printf '%-20s %s\n' "${names[$i]}" "${results[$i]}"
done
tail -n 5 "$out/gpu-tests.log"
for f in "$out"/bench_*.md; do [ -f "$f" ] && cat "$f"; done

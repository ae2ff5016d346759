#!/usr/bin/env bash
# long_run.sh — the differential test over a range of seeds (README.md).
#
#   tests/difftest/long_run.sh translate BUILD_DIR FIRST LAST [COUNT] [OUT_DIR]
#       per seed: generate COUNT programs (default 500) and translate each with
#       BUILD_DIR/bin/tilepp; keeps OUT_DIR/seed-S/{summary.txt,failures/,refused/}
#   tests/difftest/long_run.sh gpu BUILD_DIR FIRST LAST [COUNT] [OUT_DIR]
#       per seed: reconfigure BUILD_DIR with -DTILEPP_DIFFTEST_SEED=S
#       -DTILEPP_DIFFTEST_GPU_COUNT=COUNT (default 300), build difftest_gpu,
#       run it plain and with TILEPP_PATH=sm80; keeps the build log, the
#       generator's summary and both driver logs in OUT_DIR/seed-S/
#
# Exits 1 when any seed had a failure (a translator failure, a build error,
# a failing kernel).
set -uo pipefail
mode=${1:?usage: long_run.sh translate|gpu BUILD_DIR FIRST LAST [COUNT] [OUT_DIR]}
build=$(cd "${2:?BUILD_DIR}" && pwd)
first=${3:?FIRST}
last=${4:?LAST}
out=${6:-/tmp/difftest-$mode}
mkdir -p "$out"
jobs=$(nproc 2>/dev/null || echo 2)
bad=0
declare -a rows=()

case "$mode" in
translate)
    count=${5:-500}
    ninja -C "$build" tilepp difftest_gen >/dev/null || exit 1
    for s in $(seq "$first" "$last"); do
        dir="$out/seed-$s"
        rm -rf "$dir"
        "$build/bin/difftest_gen" --seed "$s" --count "$count" --out "$dir" --tilepp "$build/bin/tilepp" \
            --jobs "$jobs" >"$dir.log" 2>&1
        rc=$?
        total=$(grep -E '^total ' "$dir/summary.txt" 2>/dev/null | tr -s ' ')
        rows+=("seed $s: rc=$rc ${total:-no summary}")
        [ "$rc" -eq 0 ] || bad=1
        # keep what matters: the summary, the refused and failing programs
        rm -rf "$dir/single" "$dir/work" "$dir"/dt_group_*.c "$dir/difftest_table.c"
    done
    ;;
gpu)
    count=${5:-300}
    src=$(cd "$(dirname "$0")/../.." && pwd)
    for s in $(seq "$first" "$last"); do
        dir="$out/seed-$s"
        mkdir -p "$dir"
        cmake -S "$src" -B "$build" -DTILEPP_DIFFTEST_SEED="$s" -DTILEPP_DIFFTEST_GPU_COUNT="$count" >/dev/null
        if ! ninja -C "$build" difftest_gpu >"$dir/build.log" 2>&1; then
            rows+=("seed $s: build failed (see $dir/build.log)")
            bad=1
            continue
        fi
        cp "$build/tests/difftest/gpu/summary.txt" "$dir/"
        "$build/bin/difftest_gpu" >"$dir/run.log" 2>&1
        rc1=$?
        TILEPP_PATH=sm80 "$build/bin/difftest_gpu" >"$dir/run_sm80.log" 2>&1
        rc2=$?
        [ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ] || bad=1
        [ "$rc1" -eq 77 ] && bad=1 # no GPU: nothing was tested
        warnings=$(grep -c 'warning' "$dir/build.log")
        rows+=("seed $s: $(tail -1 "$dir/run.log") | sm80: $(tail -1 "$dir/run_sm80.log") | nvcc warnings: $warnings")
        grep -h '^FAIL' "$dir/run.log" "$dir/run_sm80.log" | sed "s/^/  seed $s: /"
    done
    ;;
*)
    echo "long_run.sh: unknown mode '$mode' (translate or gpu)" >&2
    exit 2
    ;;
esac
echo "== $mode, seeds $first..$last (logs in $out)"
printf '%s\n' "${rows[@]}"
exit $bad

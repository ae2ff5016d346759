#!/bin/bash
# run_device.sh — the mma test, the bench and one profile on a GPU machine, in
# one go (the device machine of this workplace is lent by the call).
#
#   tests/mma/run_device.sh [BUILD_DIR]     (from the repository root)
#
# BUILD_DIR holds mma_test and mma_bench (built by tests/mma/build.sh, or by
# CMake); when they do not start there (missing libraries), they are rebuilt
# in place with the nvcc found there. Logs go to $OUT (or BUILD_DIR/logs).
set -u
B=${1:-build-mma}
O=${OUT:-$B/logs}
mkdir -p "$O"
here=$(cd "$(dirname "$0")" && pwd)

{ nvidia-smi; nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv; } \
    > "$O/gpu.txt" 2>&1

if [ ! -x "$B/mma_test" ] || ldd "$B/mma_test" "$B/mma_bench" 2>&1 | grep -q "not found"; then
    echo "prebuilt binaries missing or do not load here; rebuilding"
    bash "$here/build.sh" "$B" > "$O/build.log" 2>&1 || { tail -30 "$O/build.log"; exit 1; }
fi

echo "== mma_test"
"$B/mma_test" > "$O/mma_test.log" 2>&1
rc=$?
grep -E "^FAIL|cases passed|PASSED|FAILED|SKIPPED|device:" "$O/mma_test.log" | head -40
echo "mma_test exit $rc"

echo "== mma_bench"
MMA_BENCH_CSV="$O/bench.csv" "$B/mma_bench" > "$O/mma_bench.log" 2>&1
echo "mma_bench exit $?"

# MMA_PROFILE=<configuration name>: ncu on one of its launches at 4096.
if [ -n "${MMA_PROFILE:-}" ] && command -v ncu > /dev/null; then
    echo "== ncu: $MMA_PROFILE at 4096"
    ncu_one() {
        MMA_BENCH_ONLY="$MMA_PROFILE" timeout 120 ncu --clock-control none --kernel-name regex:gemm_ref_kernel \
            --launch-skip 3 --launch-count 1 "$@" "$B/mma_bench" 4096
    }
    ncu_one --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
        --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats \
        > "$O/ncu.txt" 2>&1
    echo "ncu sections exit $?"
    stalls=""
    for r in barrier long_scoreboard short_scoreboard wait math_pipe_throttle mio_throttle lg_throttle \
        not_selected selected dispatch_stall no_instruction branch_resolving membar drain sleeping misc; do
        stalls="$stalls,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"
    done
    ncu_one --metrics "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed.avg.per_cycle_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum$stalls" \
        > "$O/ncu_stalls.txt" 2>&1
    echo "ncu metrics exit $?"
    grep -E "stalled|hmma|inst_executed|bank|wavefronts" "$O/ncu_stalls.txt" | sed 's/  */ /g' | head -30
fi
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >> "$O/gpu.txt" 2>&1
grep -v "^$" "$O/mma_bench.log"

#!/usr/bin/env bash
# device_run.sh — the GPU half of the suite, on a machine with a GPU, from the
# programs of a build made elsewhere (where libclang and nvcc are).
#
#   tests/gpu/device_run.sh BIN_DIR OUT_DIR
#
# Runs the GPU test programs, the samples, compute-sanitizer's memcheck over
# three of the tests (and racecheck over tile_ops_test, whose element-wise
# operations place their own barriers), the SASS landmarks of the generated kernels and the
# benchmarks found in BIN_DIR (with their CSV records, and charts of them
# where matplotlib is); writes one log per step into OUT_DIR and prints
# a summary. NO_MEMCHECK=1 skips the memory checker, NO_BENCH=1 the benchmarks. (Runs the programs directly, not through ctest, so only the
# folder of programs has to travel.)
set -uo pipefail

bin=$(cd "${1:?usage: device_run.sh BIN_DIR OUT_DIR}" && pwd)
out=${2:?usage: device_run.sh BIN_DIR OUT_DIR}
mkdir -p "$out"

# Tuned kernels keep their choices here, so every run starts from an empty
# cache and leaves it to look at.
export TILEPP_TUNE_CACHE=${TILEPP_TUNE_CACHE:-$out/tune_cache}

declare -a names=() results=()
# Each step has a time limit (STEP_LIMIT seconds, default 240, 400 for the
# benchmarks), so that a hung kernel costs one step, not the whole run:
# rc=124 in the summary.
step() { # step NAME LOG COMMAND...
    local name=$1 log=$2
    shift 2
    local t0=$SECONDS
    timeout -k 5 "${STEP_LIMIT:-240}" "$@" >"$out/$log" 2>&1
    local rc=$?
    names+=("$name")
    results+=("rc=$rc $((SECONDS - t0))s $log")
}
have() { [ -x "$bin/$1" ]; }

step device device.txt nvidia-smi
for t in gpu_samples_test gpu_l1_test gemm_test tile_ops_test reduce_test layers_test attention_test attention_test_d64 attention_test_d96 attention_test_d256 attention_test_bf16 mma_test mma90_test helpers_test profile_test edge_test debug_test tune_test; do
    have "$t" && step "$t" "$t.log" "$bin/$t"
done
have print_test && step print_test print_test.log "$bin/print_test"
# On Hopper the grids with an sm_90a variant run it; run the GEMM test again
# on the sm_80 kernels, which Hopper runs too.
have gemm_test && step "gemm_test (TILEPP_PATH=sm80)" gemm_test_sm80.log env TILEPP_PATH=sm80 "$bin/gemm_test"
have gemm_test && step "gemm_test (TILEPP_PATH=sm90)" gemm_test_sm90.log env TILEPP_PATH=sm90 "$bin/gemm_test"
have reduce_test && step "reduce_test (TILEPP_PATH=sm80)" reduce_test_sm80.log env TILEPP_PATH=sm80 "$bin/reduce_test"
have layers_test && step "layers_test (TILEPP_PATH=sm80)" layers_test_sm80.log env TILEPP_PATH=sm80 "$bin/layers_test"
have attention_test && step "attention_test (TILEPP_PATH=sm80)" attention_test_sm80.log env TILEPP_PATH=sm80 "$bin/attention_test"
have attention_test_d64 && step "attention_test_d64 (TILEPP_PATH=sm80)" attention_test_d64_sm80.log env TILEPP_PATH=sm80 "$bin/attention_test_d64"
have attention_test_d96 && step "attention_test_d96 (TILEPP_PATH=sm80)" attention_test_d96_sm80.log env TILEPP_PATH=sm80 "$bin/attention_test_d96"
have attention_test_d256 && step "attention_test_d256 (TILEPP_PATH=sm80)" attention_test_d256_sm80.log env TILEPP_PATH=sm80 "$bin/attention_test_d256"
have attention_test_bf16 && step "attention_test_bf16 (TILEPP_PATH=sm80)" attention_test_bf16_sm80.log env TILEPP_PATH=sm80 "$bin/attention_test_bf16"
# The tuner keeps a point only where it matches the first (TILEPP_TUNE_CHECK),
# so a wrong point would be passed over, not fail: the points only Hopper
# takes run pinned, each against the CPU run (samples/flash_attention.c).
have attention_test_d64 && step "attention_test_d64 (BM=192,BN=64)" attention_test_d64_bm192.log env TILEPP_TUNE_PIN=flash_attention:BM=192,BN=64 "$bin/attention_test_d64"
have attention_test && step "attention_test (BN=64,BM=192)" attention_test_bm192.log env TILEPP_TUNE_PIN=flash_attention:BN=64,BM=192 "$bin/attention_test"
have attention_test && step "attention_test (BN=128,BM=128)" attention_test_bn128.log env TILEPP_TUNE_PIN=flash_attention:BN=128,BM=128 "$bin/attention_test"
have attention_test_d256 && step "attention_test_d256 (BN=48)" attention_test_d256_bn48.log env TILEPP_TUNE_PIN=flash_attention:BN=48 "$bin/attention_test_d256"
have attention_test_d256 && step "attention_test_d256 (BN=64)" attention_test_d256_bn64.log env TILEPP_TUNE_PIN=flash_attention:BN=64 "$bin/attention_test_d256"
# (the cases past 2^31 elements ran above: only their GEMM has an sm_90a variant)
have edge_test && step "edge_test (TILEPP_PATH=sm80)" edge_test_sm80.log env TILEPP_PATH=sm80 "$bin/edge_test" --small
have tile_ops_test && step "tile_ops_test (TILEPP_PATH=sm80)" tile_ops_test_sm80.log env TILEPP_PATH=sm80 "$bin/tile_ops_test"
have tile_ops_test && step "tile_ops_test (TILEPP_PATH=sm90)" tile_ops_test_sm90.log env TILEPP_PATH=sm90 "$bin/tile_ops_test"
# Random programs (tests/difftest): every kernel against its CPU reference, on
# the device's own path and on the sm_80 kernels.
have difftest_gpu && step difftest_gpu difftest_gpu.log "$bin/difftest_gpu"
have difftest_gpu && step "difftest_gpu (TILEPP_PATH=sm80)" difftest_gpu_sm80.log env TILEPP_PATH=sm80 "$bin/difftest_gpu"
for s in vector_add_sample bias_gelu_sample gemm_sample gemm_schedules_sample rows_sample gemm_bias_gelu_sample gemm_softmax_sample flash_attention_sample; do
    have "$s" && step "$s" "$s.log" "$bin/$s"
done
# The embedded compute_80 PTX, as a GPU the build has no machine code for
# (a newer one) runs it: the driver ignores the SASS and JIT-compiles the PTX
# (tests that need cuBLAS cannot run so: cuBLAS ships no PTX for its kernels)
have tile_ops_test && step "tile_ops_test (PTX JIT)" tile_ops_test_jit.log env CUDA_FORCE_PTX_JIT=1 "$bin/tile_ops_test"
have reduce_test && step "reduce_test (PTX JIT)" reduce_test_jit.log env CUDA_FORCE_PTX_JIT=1 "$bin/reduce_test" --small
# tests/consumer's app, where a kept consumer build put it here
# (TILEPP_CONSUMER_KEEP=1): CUDA and C++ files calling generated launchers
# with CUDA's __half and __nv_bfloat16
have consumer_app && step consumer_app consumer_app.log "$bin/consumer_app"
if command -v compute-sanitizer >/dev/null && [ -z "${NO_MEMCHECK:-}" ]; then
    for t in gpu_samples_test gemm_test tile_ops_test; do
        have "$t" && step "memcheck-$t" "memcheck-$t.log" \
            compute-sanitizer --tool memcheck --error-exitcode 1 "$bin/$t"
    done
    for t in attention_test attention_test_d64 attention_test_d256 attention_test_bf16 edge_test; do # without the cuBLAS reference; edge_test without its 40 GB cases
        have "$t" && step "memcheck-$t" "memcheck-$t.log" \
            compute-sanitizer --tool memcheck --error-exitcode 1 "$bin/$t" --small
    done
    # the element-wise operations put their own barriers around shared tiles,
    # and the planner its own between a block's statements
    have tile_ops_test && step "racecheck-tile_ops_test" racecheck-tile_ops_test.log \
        compute-sanitizer --tool racecheck --racecheck-report hazard --error-exitcode 1 "$bin/tile_ops_test"
    have attention_test && step "racecheck-attention_test" racecheck-attention_test.log \
        compute-sanitizer --tool racecheck --racecheck-report hazard --error-exitcode 1 "$bin/attention_test" --small
    for tool in memcheck racecheck synccheck; do
        have reduce_test && step "$tool-reduce_test" "$tool-reduce_test.log" \
            compute-sanitizer --tool $tool --error-exitcode 1 "$bin/reduce_test" --small
    done
fi
if command -v cuobjdump >/dev/null; then
    step sass sass.txt bash -c "for b in vector_add_sample bias_gelu_sample gemm_sample; do
        [ -x '$bin'/\$b ] || continue
        echo \"== \$b\"; cuobjdump -sass '$bin'/\$b |
            grep -oE '(LDG|STG)\.E(\.[A-Z0-9]+)*|HMMA\.[0-9A-Z.]+|LDSM[.A-Z0-9]*|LDGSTS[.A-Z0-9]*|HGMMA\.[0-9A-Zx.]+|UTMALDG[.A-Z0-9]*|UTMASTG[.A-Z0-9]*|SYNCS[.A-Z0-9]*' |
            sort | uniq -c; done"
fi
[ -n "${NO_BENCH:-}" ] || for bench in bench_launch bench_vector_add bench_rows bench_gemm bench_epilogue bench_epilogue_fast bench_gemm_softmax; do
    have "$bench" && STEP_LIMIT=${STEP_LIMIT:-400} step "$bench" "$bench.md" "$bin/$bench" --csv "$out/$bench.csv"
done
# The fused epilogue with every kernel pinned to 128 x 128 ping-pong blocks
# (one consumer warpgroup's GELU under the other's products): with the
# epilogue's cycles hidden, what fused still loses to plain in the sustained
# table is the clock, i.e. the energy of the epilogue's arithmetic.
[ -n "${NO_BENCH:-}" ] || { have bench_epilogue && STEP_LIMIT=${STEP_LIMIT:-400} step "bench_epilogue (ping-pong pinned)" bench_epilogue_pingpong.md env TILEPP_TUNE_PIN="gemm_bias_gelu:BN=128,BK=64,STAGES=4;gemm_bias_gelu_erf:BN=128,BK=64,STAGES=4;gemm_schedule:BM=128,BN=128,BK=64,STAGES=4,THREADS=256" "$bin/bench_epilogue"; }
[ -n "${NO_BENCH:-}" ] || { have bench_gemm && step "bench_gemm (TILEPP_PATH=sm80)" bench_gemm_sm80.md env TILEPP_PATH=sm80 "$bin/bench_gemm" --csv "$out/bench_gemm_sm80.csv"; }
[ -n "${NO_BENCH:-}" ] || { have mma90_test && step "mma90_test bench" mma90_bench.md "$bin/mma90_test" bench; }
# FlashAttention against PyTorch SDPA, where the folder has the library and PyTorch is there
if [ -z "${NO_BENCH:-}" ] && [ -f "$bin/libbench_attention_d128.so" ] && python3 -c "import torch" 2>/dev/null; then
    step bench_attention bench_attention.md python3 "$(dirname "$0")/../../bench/bench_attention.py" "$bin/libbench_attention_d128.so" "$bin/libbench_attention_d64.so" "$bin/libbench_attention_d256.so" --csv "$out/bench_attention.csv" --schedule-ab
fi
# The benchmarks' CSV records as charts (bench/plot.py), where matplotlib is
# there; elsewhere, later: python3 bench/plot.py -o OUT_DIR/charts OUT_DIR
if ls "$out"/*.csv >/dev/null 2>&1 && python3 -c "import matplotlib" 2>/dev/null; then
    step charts charts.log python3 "$(dirname "$0")/../../bench/plot.py" -o "$out/charts" "$out"
fi

echo "== summary"
for i in "${!names[@]}"; do
    printf '%-28s %s\n' "${names[$i]}" "${results[$i]}"
done
for t in gpu_samples_test gpu_l1_test gemm_test gemm_test_sm80 gemm_test_sm90 tile_ops_test tile_ops_test_sm80 \
    tile_ops_test_sm90 reduce_test reduce_test_sm80 attention_test attention_test_sm80 attention_test_d64 \
    attention_test_d64_sm80 attention_test_d256 attention_test_d256_sm80 attention_test_bf16 attention_test_bf16_sm80 mma_test mma90_test \
    tile_ops_test_jit reduce_test_jit consumer_app helpers_test profile_test edge_test edge_test_sm80 tune_test; do
    [ ! -f "$out/$t.log" ] || printf '%-20s %s\n' "$t" "$(grep -E 'passed|SKIPPED' "$out/$t.log" | tail -1)"
done
for t in difftest_gpu difftest_gpu_sm80; do
    [ ! -f "$out/$t.log" ] || printf '%-20s %s\n' "$t" "$(grep -E 'passed|SKIPPED|TIMEOUT' "$out/$t.log" | tail -1)"
done

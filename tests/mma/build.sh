#!/bin/bash
# build.sh — builds mma_test and mma_bench with nvcc alone (no CMake), for a
# quick run on a GPU machine; CMakeLists.txt builds the same for the project.
#
#   tests/mma/build.sh [BUILD_DIR] [ARCH...]     default: build-mma 90a
#
# Each ARCH is 80 or 90a. ptxas's register and spill report for each source
# goes to BUILD_DIR/<source>.ptxas.log.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
B=${1:-build-mma}
shift || true
archs=${*:-90a}
gencode=""
for a in $archs; do gencode="$gencode -gencode=arch=compute_$a,code=sm_$a"; done
mkdir -p "$B"
flags="-std=c++17 -O3 -Werror all-warnings -Xcompiler=-Wall,-Wextra -I$here/../../tilepp/runtime -I$here -Xptxas -v"

sources="mma_test.cu mma_test_variants.cu mma_test_pipeline.cu mma_bench.cu"
for src in $sources; do
    nvcc $flags $gencode -c "$here/$src" -o "$B/${src%.cu}.o" > "$B/${src%.cu}.ptxas.log" 2>&1 &
done
fail=0
for job in $(jobs -p); do wait "$job" || fail=1; done
if [ $fail != 0 ]; then
    grep -h -E "error|warning" "$B"/*.ptxas.log | head -20
    exit 1
fi
nvcc $gencode "$B/mma_test.o" "$B/mma_test_variants.o" "$B/mma_test_pipeline.o" -o "$B/mma_test" -lcublas
nvcc $gencode "$B/mma_bench.o" -o "$B/mma_bench" -lcublas
echo "built $B/mma_test $B/mma_bench for $archs"

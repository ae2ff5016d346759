#!/usr/bin/env bash
# run_consumer_test.sh — the installed tilepp, used as a user would use it.
#
#   run_consumer_test.sh --build-dir <tilepp build> [--cmake <cmake>]
#       [--generator <G>] [--c-compiler <cc>] [--cuda-compiler <nvcc>]
#       [--cuda-host-compiler <c++>]
#
# 1. cmake --install <tilepp build> --prefix <tmp>/prefix, and checks the layout;
# 2. for each generator (the build's own, then the other of Ninja and
#    Unix Makefiles when it is installed; TILEPP_CONSUMER_GENERATORS="G1;G2"
#    overrides): configures tests/consumer against the prefix
#    (find_package(tilepp) + tile_add_kernels), builds it, runs it (the CPU
#    reference always; the GPU launchers when there is a device, else the GPU
#    part is reported as skipped), then checks that a no-op rebuild translates
#    nothing and that touching a header the kernel file includes
#    (vadd_config.h) translates it again (the depfile).
# The project is copied into the temporary directory first, so the test
# touches nothing in the source tree.
# Exit: 0 passed, 1 failed, 77 skipped (no CUDA compiler).
# TILEPP_CONSUMER_KEEP=1 keeps the temporary directory.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cmake_cmd=cmake
build_dir=
generator=
c_compiler=
cuda_compiler=
cuda_host_compiler=
while [ $# -gt 0 ]; do
    case "$1" in
        --cmake) cmake_cmd=$2; shift 2 ;;
        --build-dir) build_dir=$2; shift 2 ;;
        --generator) generator=$2; shift 2 ;;
        --c-compiler) c_compiler=$2; shift 2 ;;
        --cuda-compiler) cuda_compiler=$2; shift 2 ;;
        --cuda-host-compiler) cuda_host_compiler=$2; shift 2 ;;
        *) echo "run_consumer_test.sh: unknown argument '$1'" >&2; exit 1 ;;
    esac
done
if [ -z "$build_dir" ] || [ ! -f "$build_dir/CMakeCache.txt" ]; then
    echo "run_consumer_test.sh: --build-dir must name a configured tilepp build" >&2
    exit 1
fi
build_dir=$(cd "$build_dir" && pwd)

if [ -z "$cuda_compiler" ]; then
    cuda_compiler=$(command -v nvcc || true)
fi
if [ -z "$cuda_compiler" ] || [ ! -x "$cuda_compiler" ]; then
    echo "SKIPPED: no CUDA compiler (nvcc) found; the consumer project compiles the generated CUDA"
    exit 77
fi

step() { printf '\n== consumer: %s\n' "$*"; }
fail() { printf 'consumer: FAILED: %s\n' "$*"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tilepp-consumer.XXXXXX")
cleanup() {
    if [ "${TILEPP_CONSUMER_KEEP:-0}" = 1 ]; then
        echo "consumer: kept $work"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
prefix=$work/prefix
src=$work/src
mkdir -p "$src"
cp "$here/CMakeLists.txt" "$here/main.c" "$here/vadd.c" "$here/vadd_config.h" "$src/"

step "install the tilepp build into a temporary prefix"
"$cmake_cmd" --install "$build_dir" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; fail "cmake --install"; }
for f in bin/tilepp include/tilepp/tile.h \
         lib/cmake/tilepp/tileppConfig.cmake lib/cmake/tilepp/tileppConfigVersion.cmake \
         lib/cmake/tilepp/tileppTargets.cmake lib/cmake/tilepp/tilepp.cmake; do
    [ -e "$prefix/$f" ] || fail "the install has no $f"
    echo "  $f"
done
ls "$prefix/include/tilepp"/*.cuh >/dev/null 2>&1 || fail "the install has no include/tilepp/*.cuh"
echo "  include/tilepp/*.cuh"
"$prefix/bin/tilepp" --version || fail "the installed translator does not run"

# Generators: the build's own first, then the other one if it is there.
if [ -n "${TILEPP_CONSUMER_GENERATORS:-}" ]; then
    IFS=';' read -r -a generators <<<"$TILEPP_CONSUMER_GENERATORS"
else
    generators=("${generator:-Ninja}")
    case "${generator:-Ninja}" in
        Ninja) command -v make >/dev/null && generators+=("Unix Makefiles") ;;
        "Unix Makefiles") command -v ninja >/dev/null && generators+=("Ninja") ;;
    esac
fi

cmake_args=(-DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
            -DCMAKE_CUDA_COMPILER="$cuda_compiler")
[ -n "$c_compiler" ] && cmake_args+=(-DCMAKE_C_COMPILER="$c_compiler")
[ -n "$cuda_host_compiler" ] && cmake_args+=(-DCMAKE_CUDA_HOST_COMPILER="$cuda_host_compiler")

translated() { grep -c "tilepp: translating" "$1" || true; }

n=0
for gen in "${generators[@]}"; do
    n=$((n + 1))
    bdir=$work/build$n
    step "configure with '$gen' (find_package(tilepp) from the prefix)"
    "$cmake_cmd" -S "$src" -B "$bdir" -G "$gen" "${cmake_args[@]}" >"$work/configure$n.log" 2>&1 ||
        { cat "$work/configure$n.log"; fail "configure ($gen)"; }
    grep -q "^tilepp_DIR:PATH=$prefix/lib/cmake/tilepp" "$bdir/CMakeCache.txt" ||
        fail "find_package(tilepp) did not use the installed package"

    step "build ($gen)"
    "$cmake_cmd" --build "$bdir" -j 2 2>&1 | tee "$work/build$n.log" ||
        fail "build ($gen)"
    [ "$(translated "$work/build$n.log")" -ge 1 ] || fail "the build did not run the translator"
    [ -f "$bdir/tilepp/app/vadd.tile.cu" ] && [ -f "$bdir/tilepp/app/vadd.tile.h" ] ||
        fail "no tilepp/app/vadd.tile.cu and .tile.h in the build directory"

    step "run ($gen)"
    "$bdir/app" || fail "app exited with status $?"

    step "rebuild with nothing changed ($gen): no translation"
    "$cmake_cmd" --build "$bdir" -j 2 >"$work/noop$n.log" 2>&1 || { cat "$work/noop$n.log"; fail "rebuild"; }
    [ "$(translated "$work/noop$n.log")" -eq 0 ] || { cat "$work/noop$n.log"; fail "a no-op rebuild translated again"; }
    echo "  ok"

    step "touch an included header ($gen): the depfile makes it translate again"
    sleep 1 # coarse file times on some file systems
    touch "$src/vadd_config.h"
    "$cmake_cmd" --build "$bdir" -j 2 >"$work/touch$n.log" 2>&1 || { cat "$work/touch$n.log"; fail "rebuild"; }
    [ "$(translated "$work/touch$n.log")" -ge 1 ] || { cat "$work/touch$n.log"; fail "changing vadd_config.h did not translate vadd.c again"; }
    echo "  ok"
done

printf '\nconsumer: passed (%s)\n' "$(IFS=,; echo "${generators[*]}")"

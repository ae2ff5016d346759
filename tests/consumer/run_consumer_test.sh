#!/usr/bin/env bash
# run_consumer_test.sh — tilepp used as a user would use it.
#
#   run_consumer_test.sh --build-dir <tilepp build> [--cmake <cmake>]
#       [--generator <G>] [--c-compiler <cc>] [--cuda-compiler <nvcc>]
#       [--cuda-host-compiler <c++>]
#
# 1. cmake --install <tilepp build> into a temporary prefix, checks the
#    layout, then moves the prefix elsewhere: everything after uses the
#    moved tree (a relocatable install), which must not name the old path;
# 2. pkg-config: the .pc file of the moved prefix gives the include flags
#    and the translator, and a Make-style build (translate, nvcc -c) works;
# 3. for each generator (the build's own, then the other of Ninja and
#    Unix Makefiles when it is installed; TILEPP_CONSUMER_GENERATORS="G1;G2"
#    overrides): configures tests/consumer against the prefix
#    (find_package(tilepp) + tile_add_kernels), builds it, runs it (the CPU
#    references always; the GPU launchers when there is a device, else the
#    GPU part is reported as skipped), checks the nvcc flags that the
#    target's CUDA_ARCHITECTURES gave, then checks that a no-op rebuild
#    translates nothing, that touching the kernel file translates it again
#    but compiles nothing (the output is unchanged, so it is not rewritten),
#    and that touching a header the kernel file includes translates it
#    again (the depfile);
# 4. the same project with tilepp taken through FetchContent from the
#    source tree (first generator only).
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
cp -r "$here/CMakeLists.txt" "$here/main.c" "$here/vadd.c" "$here/vadd_config.h" "$here/hscale.c" "$here/bscale.c" \
    "$here/fp16_user.cu" "$here/bf16_user.cpp" "$here/cpu_only.c" "$here/include" \
    "$here/libscale.c" "$here/libinc" "$src/"

step "install the tilepp build into a temporary prefix, then move the prefix"
first_prefix=$work/first-prefix
"$cmake_cmd" --install "$build_dir" --prefix "$first_prefix" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; fail "cmake --install"; }
for f in bin/tilepp include/tilepp/tile.h \
         lib/cmake/tilepp/tileppConfig.cmake lib/cmake/tilepp/tileppConfigVersion.cmake \
         lib/cmake/tilepp/tileppTargets.cmake lib/cmake/tilepp/tilepp.cmake lib/pkgconfig/tilepp.pc; do
    [ -e "$first_prefix/$f" ] || fail "the install has no $f"
    echo "  $f"
done
ls "$first_prefix/include/tilepp"/*.cuh >/dev/null 2>&1 || fail "the install has no include/tilepp/*.cuh"
echo "  include/tilepp/*.cuh"
mv "$first_prefix" "$prefix"
if grep -rl "$first_prefix" "$prefix"; then
    fail "the files above name the prefix they were installed into"
fi
echo "  moved; no file names the old prefix"
"$prefix/bin/tilepp" --version || fail "the installed translator does not run"

step "pkg-config: a build without CMake"
if command -v pkg-config >/dev/null; then
    export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
    pc_tilepp=$(pkg-config --variable=tilepp tilepp) || fail "pkg-config --variable=tilepp tilepp"
    pc_cflags=$(pkg-config --cflags tilepp) || fail "pkg-config --cflags tilepp"
    [ -x "$pc_tilepp" ] || fail "pkg-config's translator '$pc_tilepp' is not an executable"
    [ "$(cd "$(dirname "$pc_tilepp")/.." && pwd)" = "$(cd "$prefix" && pwd)" ] ||
        fail "pkg-config's translator '$pc_tilepp' is not in the moved prefix"
    mkdir -p "$work/make"
    (cd "$work/make" &&
        "$pc_tilepp" -I"$src" -I"$src/include" -DVADD_OFFSET=0.25f -DVADD_GENEX_SCALE=2.0f \
            -MD -o vadd.tile.cu "$src/vadd.c" &&
        [ -f vadd.tile.d ] &&
        # shellcheck disable=SC2086 # the flags are words
        "$cuda_compiler" $pc_cflags -I"$src" -I"$src/include" -std=c++17 \
            -gencode=arch=compute_80,code=sm_80 -c vadd.tile.cu -o vadd.tile.o) >"$work/make.log" 2>&1 ||
        { cat "$work/make.log"; fail "translate and compile with pkg-config's flags"; }
    echo "  $pc_cflags; translated and compiled vadd.c"
else
    echo "  SKIPPED: pkg-config is not installed"
fi

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
    "$bdir/cpu_only" || fail "cpu_only exited with status $?"

    step "install the library with its generated header ($gen)"
    "$cmake_cmd" --install "$bdir" --prefix "$work/app-prefix$n" >"$work/app-install$n.log" 2>&1 ||
        { cat "$work/app-install$n.log"; fail "cmake --install of the consumer"; }
    [ -f "$work/app-prefix$n/include/libscale/libscale.tile.h" ] && [ -f "$work/app-prefix$n/lib/liblibscale.a" ] ||
        fail "HEADERS_DESTINATION: no include/libscale/libscale.tile.h (or lib/liblibscale.a) installed"
    echo "  include/libscale/libscale.tile.h, lib/liblibscale.a"

    step "nvcc flags from CUDA_ARCHITECTURES 80-real;90 ($gen)"
    flags=$(find "$bdir" \( -name build.ninja -o -name flags.make \) -exec cat {} +)
    for want in "compute_80,code=[sm_80,compute_80]" "compute_90a,code=sm_90a" "-lineinfo"; do
        grep -qF -- "$want" <<<"$flags" || fail "the kernels are not compiled with $want"
        echo "  $want"
    done
    grep -q -- "--arch 80,90a" "$bdir/tilepp/app/vadd.tile.cu" ||
        grep -q "(--arch 80 90a)" "$bdir/tilepp/app/vadd.tile.cu" ||
        fail "vadd.c was not translated for 80 and 90a"

    step "rebuild with nothing changed ($gen): no translation"
    "$cmake_cmd" --build "$bdir" -j 2 >"$work/noop$n.log" 2>&1 || { cat "$work/noop$n.log"; fail "rebuild"; }
    [ "$(translated "$work/noop$n.log")" -eq 0 ] || { cat "$work/noop$n.log"; fail "a no-op rebuild translated again"; }
    echo "  ok"

    step "touch the kernel file ($gen): translated again, the same output, nothing compiled"
    sleep 1 # coarse file times on some file systems
    touch "$src/vadd.c"
    "$cmake_cmd" --build "$bdir" -j 2 >"$work/same$n.log" 2>&1 || { cat "$work/same$n.log"; fail "rebuild"; }
    [ "$(translated "$work/same$n.log")" -ge 1 ] || { cat "$work/same$n.log"; fail "touching vadd.c did not translate it"; }
    if grep -q "Building CUDA object.*vadd.tile.cu" "$work/same$n.log"; then
        cat "$work/same$n.log"
        fail "an unchanged translation was rewritten: nvcc compiled vadd.tile.cu again"
    fi
    echo "  ok"

    step "touch an included header ($gen): the depfile makes it translate again"
    sleep 1 # coarse file times on some file systems
    touch "$src/vadd_config.h"
    "$cmake_cmd" --build "$bdir" -j 2 >"$work/touch$n.log" 2>&1 || { cat "$work/touch$n.log"; fail "rebuild"; }
    [ "$(translated "$work/touch$n.log")" -ge 1 ] || { cat "$work/touch$n.log"; fail "changing vadd_config.h did not translate vadd.c again"; }
    echo "  ok"
done

step "FetchContent: tilepp built from its source tree inside the project (${generators[0]})"
fdir=$work/build-fetch
tilepp_src=$(cd "$here/../.." && pwd)
"$cmake_cmd" -S "$src" -B "$fdir" -G "${generators[0]}" "${cmake_args[@]/-DCMAKE_PREFIX_PATH=*/}" \
    -DTILEPP_CONSUMER_FETCH="$tilepp_src" >"$work/configure-fetch.log" 2>&1 ||
    { cat "$work/configure-fetch.log"; fail "configure with FetchContent"; }
grep -q "^tilepp_DIR:PATH=$prefix" "$fdir/CMakeCache.txt" && fail "FetchContent used the installed package"
"$cmake_cmd" --build "$fdir" -j 2 >"$work/build-fetch.log" 2>&1 ||
    { tail -50 "$work/build-fetch.log"; fail "build with FetchContent"; }
[ -z "$(find "$fdir" -name 'CTestTestfile.cmake' -path '*_deps*' -newer "$src/CMakeLists.txt" -exec grep -l add_test {} +)" ] ||
    fail "tilepp's tests were added to the project that fetched it"
"$fdir/app" || fail "app (FetchContent) exited with status $?"
echo "  ok"

printf '\nconsumer: passed (%s, FetchContent)\n' "$(IFS=,; echo "${generators[*]}")"

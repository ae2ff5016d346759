#!/usr/bin/env bash
# tour.sh <build-dir> — a guided tour of tilepp on its samples.
#
# For each sample: the annotated C source, the translator run by hand on it,
# excerpts of the CUDA it generated (the __global__ kernel and the launcher)
# and the header, then the built sample driver (CPU reference, and the GPU
# when there is one). A landmarks section greps the compiled SASS for the
# 16-byte memory accesses the samples promise (needs cuobjdump). The GEMM
# section does the same for gemm.c (against cuBLAS too), runs the schedule
# exploration of gemm_schedules.c (one tuned kernel: its valid points run by
# name, its pruned ones listed, its tuned launcher) and shows the
# tensor-core landmarks (HMMA, LDSM, LDGSTS) of gemm.c's SASS. The fused
# samples follow, each source and its run: gemm_bias_gelu.c (epilogue,
# epilogue-run), the row samples (softmax, rows), gemm_softmax.c
# (gemm-softmax, gemm-softmax-run) and flash_attention.c (attention,
# attention-run: causal and non-causal); their
# drivers check the GPU against the CPU run, then time the kernel next to
# cuBLAS and an unfused pair of kernels.
#
# Fault tolerant: every section runs in its own subshell; a failing section
# is reported and the tour goes on. At the end: a summary table (section,
# status, seconds) and a compact language reference. Exit status 1 when any
# section FAILED; SKIPPED sections (no GPU, no cuobjdump) are fine, each says
# why. A driver that finds no GPU runs its CPU part, prints "SKIPPED: ..."
# and exits 77, or prints "GPU: skipped" and exits 0 (the older ones).
#
# Sections have ids (`tour.sh BUILD --list`); `tour.sh BUILD ID...` runs
# only those (`./run tour ID...` too). Colour only on a terminal (NO_COLOR
# turns it off); on a terminal, while a program runs and prints nothing, a
# progress line counts its seconds (erased when it prints or ends).
#
# Example:  cmake -S . -B build -G Ninja && cmake --build build
#           samples/tour.sh build
#           samples/tour.sh build gemm-run profiler

set -u

if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
    echo "usage: $0 <build-dir> [SECTION...]   (a configured and built tilepp build tree;" >&2
    echo "       sections: $0 <build-dir> --list; default: all)" >&2
    exit 2
fi
if [ ! -d "$1" ]; then
    echo "tour: build directory '$1' does not exist; build first:" >&2
    echo "  cmake -S . -B $1 -G Ninja && cmake --build $1" >&2
    exit 2
fi

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "$1" && pwd)
shift
WANTED=("$@") # section ids to run; none: all
BIN="$BUILD/bin"
TILEPP="$BIN/tilepp"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tilepp-tour.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

SKIP=77 # a section returns this to say SKIPPED

# Colour only on a terminal, and never with NO_COLOR set.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
    C_OK=$'\e[32m' C_FAIL=$'\e[1;31m' C_SKIP=$'\e[33m' C_HEAD=$'\e[1m' C_END=$'\e[0m'
else
    C_OK='' C_FAIL='' C_SKIP='' C_HEAD='' C_END=''
fi
paint() { # paint STATUS: the word in its colour
    case $1 in
        OK) printf '%s%s%s' "$C_OK" "$1" "$C_END" ;;
        FAILED) printf '%s%s%s' "$C_FAIL" "$1" "$C_END" ;;
        *) printf '%s%s%s' "$C_SKIP" "$1" "$C_END" ;;
    esac
}

# ---- the runner ------------------------------------------------------------

NAMES=() STATUSES=() SECONDS_TAKEN=()

now() {
    if [ -n "${EPOCHREALTIME:-}" ]; then echo "$EPOCHREALTIME"; else date +%s.%N; fi
}

rule() { printf '%*s\n' 78 '' | tr ' ' "${1:--}"; }

IDS=() # every section's id, in order, for --list

# Whether section `id` was asked for (all are, when none was named).
wanted() {
    [ ${#WANTED[@]} -eq 0 ] && return 0
    local w
    for w in "${WANTED[@]}"; do [ "$w" = "$1" ] && return 0; done
    return 1
}

# section id "title" function [args...]
section() {
    local id=$1 title=$2
    shift 2
    IDS+=("$id")
    [ "${LISTING:-0}" = 1 ] && { printf '  %-16s %s\n' "$id" "$title"; return 0; }
    wanted "$id" || return 0
    echo
    rule '='
    echo "${C_HEAD}== $title${C_END}   [$id]"
    rule '='
    local start end rc status
    start=$(now)
    ( set -e -o pipefail; "$@" )
    rc=$?
    end=$(now)
    case $rc in
        0) status=OK ;;
        "$SKIP") status=SKIPPED ;;
        *) status=FAILED ;;
    esac
    local secs
    secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
    echo "-- $title: $(paint "$status") ($secs s)"
    NAMES+=("$title")
    STATUSES+=("$status")
    SECONDS_TAKEN+=("$secs")
}

# ---- helpers -----------------------------------------------------------------

# Prints the functions of a C/CUDA file whose first line matches the ERE $2
# (a definition, not a declaration ending in ';'), up to the brace closing
# each; `#line` directives are left out. At most $3 lines and $4 functions.
excerpt() {
    local file=$1 re=$2 max=${3:-80} functions=${4:-100}
    awk -v re="$re" -v functions="$functions" '
        !on && $0 ~ re && $0 !~ /;[ \t]*$/ { on = 1; depth = 0; seen = 0 }
        on {
            if ($0 !~ /^[ \t]*#line /) print
            opens = gsub(/[{]/, "{"); closes = gsub(/[}]/, "}")
            depth += opens - closes
            if (opens > 0) seen = 1
            if (seen && depth <= 0) { on = 0; print ""; if (++done == functions) exit }
        }' "$file" >"$TMP/excerpt"
    if [ ! -s "$TMP/excerpt" ]; then
        echo "(nothing in $(basename "$file") matches /$re/)"
        return 1
    fi
    head -n "$max" "$TMP/excerpt"
    local total
    total=$(wc -l <"$TMP/excerpt")
    if [ "$total" -gt "$max" ]; then echo "    ... ($((total - max)) more lines)"; fi
}

# The kernels (functions annotated `#pragma tile kernel`) of a sample.
kernel_names() {
    awk '/^#pragma tile kernel/ { want = 1; next }
         want && /^#pragma/ { next }
         want && match($0, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/) {
             s = substr($0, RSTART, RLENGTH); sub(/[ \t]*\($/, "", s); print s; want = 0 }' "$1"
}

# shown LOG LABEL COMMAND...: runs COMMAND, its output (stdout and stderr
# together) on stdout and in LOG; returns its exit status. On a terminal,
# while the command has printed no whole line for a second, a progress line
# below its output counts the seconds ("LABEL: running, N s"); the next line
# of output, or the end, erases it. Not on a terminal: the plain output.
shown() {
    local log=$1 label=$2 rc=0
    shift 2
    : >"$log"
    if [ -t 1 ]; then
        "$@" 2>&1 | progress_lines "$log" "$label" || rc=${PIPESTATUS[0]}
    else
        "$@" 2>&1 | tee "$log" || rc=${PIPESTATUS[0]}
    fi
    return "$rc"
}

# progress_lines LOG LABEL: copies stdin to stdout and LOG line by line; each
# second without a whole line, redraws "  | LABEL: running, N s" in place.
progress_lines() {
    local log=$1 label=$2 line partial='' status start=$SECONDS ticks=0 spin='|/-\'
    while :; do
        IFS= read -r -t 1 line && status=0 || status=$?
        if [ "$status" -eq 0 ]; then
            printf '\r\033[K%s\n' "$partial$line"
            printf '%s\n' "$partial$line" >>"$log"
            partial=''
            continue
        fi
        if [ "$status" -le 128 ]; then # the end of the output (a last line without a newline too)
            if [ -n "$partial$line" ]; then
                printf '\r\033[K%s\n' "$partial$line"
                printf '%s\n' "$partial$line" >>"$log"
            fi
            printf '\r\033[K'
            return 0
        fi
        partial+=$line # a second went by: read keeps what it got of a line
        printf '\r\033[K  %s %s: running, %d s' "${spin:$((ticks++ % 4)):1}" "$label" $((SECONDS - start))
    done
}

# into OUT ERR COMMAND...: COMMAND with its stdout in OUT and its stderr in ERR.
into() {
    local out=$1 err=$2
    shift 2
    "$@" >"$out" 2>"$err"
}

cuda_in_build() {
    # Whether CMake found nvcc for this build (TILEPP_HAVE_CUDA).
    grep -Eq '^CMAKE_CUDA_COMPILER:[A-Z]+=.+' "$BUILD/CMakeCache.txt" 2>/dev/null &&
        ! grep -Eq '^CMAKE_CUDA_COMPILER:[A-Z]+=.*NOTFOUND' "$BUILD/CMakeCache.txt"
}

find_cuobjdump() {
    local c
    for c in "$(command -v cuobjdump 2>/dev/null)" \
             "$(dirname "$(command -v nvcc 2>/dev/null || echo .)")/cuobjdump" \
             "${CUDA_HOME:-/nonexistent}/bin/cuobjdump" \
             "${CUDA_PATH:-/nonexistent}/bin/cuobjdump"; do
        if [ -n "$c" ] && [ -x "$c" ]; then echo "$c"; return 0; fi
    done
    return 1
}

# ---- sections ------------------------------------------------------------

sec_translator() {
    if [ ! -x "$TILEPP" ]; then
        echo "no translator at $TILEPP: build it with 'cmake --build $BUILD --target tilepp'"
        return 1
    fi
    echo "\$ tilepp --version"
    "$TILEPP" --version
    echo
    echo "\$ tilepp --help"
    "$TILEPP" --help 2>&1 | head -n 30 || true
}

# The annotated source, the translator by hand, excerpts of what it wrote.
sec_translate() {
    local name=$1 src="$REPO/samples/$1.c"
    echo "The annotated C file, samples/$name.c (plain C: a C compiler ignores the pragmas):"
    echo
    nl -ba "$src"
    echo
    [ -x "$TILEPP" ] || { echo "no translator at $TILEPP"; return 1; }

    local cu="$TMP/$name.tile.cu" hdr="$TMP/$name.tile.h" start end ms
    echo "\$ tilepp samples/$name.c -o $name.tile.cu      (the header goes beside it: $name.tile.h)"
    start=$(now)
    "$TILEPP" "$src" -o "$cu"
    end=$(now)
    ms=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", (b - a) * 1000 }')
    echo "translated in $ms ms: $name.tile.cu $(wc -l <"$cu") lines, $name.tile.h $(wc -l <"$hdr") lines"

    echo
    rule
    echo "The generated kernel(s), the __global__ functions of $name.tile.cu (#line directives omitted):"
    rule
    excerpt "$cu" "__global__" 90
    local k
    for k in $(kernel_names "$src"); do
        rule
        echo "Its launcher, ${k}_gpu_stream (${k}_gpu calls it on the default stream):"
        rule
        excerpt "$cu" "^[A-Za-z_].*${k}_gpu_stream[ \t]*\\(" 60 1
    done
    rule
    echo "The header, $name.tile.h (plain C, for the program that calls the launchers):"
    rule
    grep -v '^[ \t]*#line ' "$hdr"
}

# The built driver: CPU reference, then the GPU when present.
sec_run() {
    local name=$1 exe="$BIN/$1_sample"
    if [ ! -x "$exe" ]; then
        if ! cuda_in_build; then
            echo "not built: this build found no CUDA compiler (nvcc), so samples are skipped"
            return $SKIP
        fi
        echo "no sample driver at $exe: build it with 'cmake --build $BUILD --target ${name}_sample'"
        return 1
    fi
    echo "\$ $(basename "$exe")"
    local rc=0
    shown "$TMP/run.out" "$(basename "$exe")" "$exe" || rc=$?
    if [ "$rc" -eq "$SKIP" ]; then
        echo "(CPU part only: the driver skipped its GPU part, exit status $SKIP)"
        return $SKIP
    fi
    if [ "$rc" -ne 0 ]; then
        echo "$(basename "$exe") exited with status $rc (1: a wrong result or a CUDA error; see above)"
        return "$rc"
    fi
    if grep -q '^GPU: skipped' "$TMP/run.out"; then
        echo "(CPU part only: no CUDA device here)"
        return $SKIP
    fi
}

# 16-byte global loads and stores in the SASS of the sample drivers.
sec_landmarks() {
    local cuobjdump
    if ! cuobjdump=$(find_cuobjdump); then
        echo "cuobjdump not found (it comes with the CUDA toolkit): landmarks skipped"
        return $SKIP
    fi
    local name exe status=0
    for name in vector_add bias_gelu; do
        exe="$BIN/${name}_sample"
        if [ ! -x "$exe" ]; then
            echo "$name: no sample driver at $exe"
            status=1
            continue
        fi
        echo
        echo "$name: SASS landmarks per arch and kernel (16-byte = the vector path)"
        "$cuobjdump" -sass "$exe" >"$TMP/sass"
        awk '
            /^[ \t]*arch = / { arch = $3 }
            /Function : / { fn = $NF; key = arch " " fn; if (!(key in seen)) { seen[key] = 1; order[n++] = key } }
            fn != "" && /LDG\.E[^ ;]*\.128/ { ldg128[key]++ }
            fn != "" && /STG\.E[^ ;]*\.128/ { stg128[key]++ }
            fn != "" && /[^A-Z]LDG\./ { ldg[key]++ }
            fn != "" && /[^A-Z]STG\./ { stg[key]++ }
            END {
                printf "  %-8s %-44s %8s %8s %6s %6s\n", "arch", "kernel", "LDG.128", "STG.128", "LDG", "STG"
                for (i = 0; i < n; i++) {
                    k = order[i]; split(k, p, " ")
                    printf "  %-8s %-44s %8d %8d %6d %6d\n", p[1], p[2], ldg128[k], stg128[k], ldg[k], stg[k]
                    if (ldg128[k] == 0 || stg128[k] == 0) missing++
                }
                if (n == 0) { print "  (no device code found)"; exit 1 }
                exit missing > 0
            }' "$TMP/sass" || {
            echo "  FAILED: a kernel of $name has no 16-byte load or store (LDG.E.128 / STG.E.128)"
            status=1
        }
        echo "  resources:"
        { "$cuobjdump" -res-usage "$exe" 2>/dev/null | grep -E 'Function|REG' | sed 's/^/  /' | head -n 20; } || true
    done
    return $status
}

# Tensor-core landmarks of the GEMM sample: per arch and kernel, the mma.sync
# (HMMA), ldmatrix (LDSM), cp.async (LDGSTS) and barrier (BAR.SYNC)
# instructions of the sm_80 kernel, and the wgmma (HGMMA) and TMA load/store
# (UTMALDG, UTMASTG) instructions of its sm_90a variant (`..._sm90`, empty
# outside sm_90a), then registers and spills (needs cuobjdump).
sec_gemm_landmarks() {
    local cuobjdump exe="$BIN/gemm_sample"
    if ! cuobjdump=$(find_cuobjdump); then
        echo "cuobjdump not found (it comes with the CUDA toolkit): landmarks skipped"
        return $SKIP
    fi
    if [ ! -x "$exe" ]; then
        if ! cuda_in_build; then
            echo "not built: this build found no CUDA compiler (nvcc), so samples are skipped"
            return $SKIP
        fi
        echo "no sample driver at $exe: build it with 'cmake --build $BUILD --target gemm_sample'"
        return 1
    fi
    echo "gemm: SASS landmarks per arch and kernel (mma.sync = HMMA, ldmatrix = LDSM, cp.async = LDGSTS;"
    echo "      sm_90a variant: wgmma = HGMMA, TMA = UTMALDG / UTMASTG)"
    "$cuobjdump" -sass "$exe" >"$TMP/sass"
    awk '
        /^[ \t]*arch = / { arch = $3 }
        /Function : / {
            fn = $NF
            # _Z<len><name>...: the kernel name alone, not its mangled parameters;
            # _ZN<len><ns><len><name>...: a tuned variant, ns::name
            if (fn ~ /^_ZN[0-9]/) {
                rest = substr(fn, 4); name = ""
                while (match(rest, /^[0-9]+/)) {
                    len = substr(rest, 1, RLENGTH) + 0
                    name = name (name == "" ? "" : "::") substr(rest, RLENGTH + 1, len)
                    rest = substr(rest, RLENGTH + 1 + len)
                }
                fn = name
            } else if (match(fn, /^_Z[0-9]+/)) fn = substr(fn, RLENGTH + 1, substr(fn, 3, RLENGTH - 2) + 0)
            key = arch " " fn; if (!(key in seen)) { seen[key] = 1; order[n++] = key }
        }
        fn != "" && /[^A-Z]HMMA\./ { hmma[key]++ }
        fn != "" && /[^A-Z]LDSM\./ { ldsm[key]++ }
        fn != "" && /[^A-Z]LDGSTS\./ { ldgsts[key]++ }
        fn != "" && /[^A-Z]BAR\.SYNC/ { bar[key]++ }
        fn != "" && /[^A-Z]HGMMA\./ { hgmma[key]++ }
        fn != "" && /[^A-Z]UTMALDG/ { tmald[key]++ }
        fn != "" && /[^A-Z]UTMASTG/ { tmast[key]++ }
        END {
            printf "  %-8s %-42s %6s %6s %7s %9s %6s %8s %8s\n", "arch", "kernel", "HMMA", "LDSM", "LDGSTS",
                "BAR.SYNC", "HGMMA", "UTMALDG", "UTMASTG"
            for (i = 0; i < n; i++) {
                k = order[i]; split(k, p, " ")
                variant = p[2] ~ /_sm90$/
                if (variant && p[1] != "sm_90a") continue  # empty outside sm_90a
                printf "  %-8s %-42s %6d %6d %7d %9d %6d %8d %8d\n", p[1], p[2], hmma[k], ldsm[k], ldgsts[k],
                    bar[k], hgmma[k], tmald[k], tmast[k]
                if (variant && (hgmma[k] == 0 || tmald[k] == 0)) missing++
                if (!variant && (hmma[k] == 0 || ldsm[k] == 0 || ldgsts[k] == 0)) missing++
            }
            if (n == 0) { print "  (no device code found)"; exit 1 }
            exit missing > 0
        }' "$TMP/sass" || {
        echo "  FAILED: a GEMM kernel lacks its landmarks (sm_80: HMMA, LDSM, LDGSTS; sm_90a variant: HGMMA, UTMALDG)"
        return 1
    }
    echo "  resources (registers, spills):"
    { "$cuobjdump" -res-usage "$exe" 2>/dev/null | grep -E 'Function|REG' | sed 's/^/  /' | head -n 20; } || true
}

# What this machine has: the GPU, the driver, the CUDA toolkit, libclang,
# the host compilers; what is missing only skips the sections that need it.
sec_environment() {
    echo "tilepp:       $("$TILEPP" --version 2>/dev/null | head -n 1 || echo "not built ($TILEPP)")"
    "$TILEPP" --version 2>/dev/null | sed -n '2,$p' | sed 's/^/              /'
    local nvcc
    nvcc=$(command -v nvcc || true)
    [ -n "$nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc=/usr/local/cuda/bin/nvcc
    if [ -n "$nvcc" ]; then
        echo "CUDA toolkit: $("$nvcc" --version | grep -o 'release [0-9.]*, V[0-9.]*' || echo '?') ($nvcc)"
    else
        echo "CUDA toolkit: no nvcc found (samples and GPU tests are not built)"
    fi
    echo "C compiler:   $(${CC:-cc} --version 2>/dev/null | head -n 1 || echo 'none')"
    if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
        nvidia-smi --query-gpu=index,name,compute_cap,driver_version,memory.total \
            --format=csv,noheader 2>/dev/null | while IFS=, read -r i name cc driver mem; do
            echo "GPU $i:        $name, compute capability$cc, driver$driver,$mem"
        done
    else
        echo "GPU:          none visible (nvidia-smi absent or no device): GPU runs are skipped"
    fi
    local cuobjdump
    if cuobjdump=$(find_cuobjdump); then echo "cuobjdump:    $cuobjdump"; else echo "cuobjdump:    not found (SASS landmarks are skipped)"; fi
}

# The launchers' profiler on the GEMM sample: TILEPP_PROFILE=1 times every
# call with CUDA events and prints a table per kernel at exit.
sec_profiler() {
    local exe="$BIN/gemm_sample"
    if [ ! -x "$exe" ]; then
        cuda_in_build || { echo "not built: this build found no CUDA compiler (nvcc)"; return $SKIP; }
        echo "no sample driver at $exe"
        return 1
    fi
    echo "\$ TILEPP_PROFILE=1 $(basename "$exe")     (the table is printed on stderr at exit)"
    shown "$TMP/prof.log" "$(basename "$exe") (profiled)" into "$TMP/prof.out" "$TMP/prof.err" env TILEPP_PROFILE=1 "$exe" ||
        { cat "$TMP/prof.out" "$TMP/prof.err"; return 1; }
    if grep -q '^GPU: skipped' "$TMP/prof.out"; then
        echo "(no CUDA device here: nothing to time)"
        return $SKIP
    fi
    sed -n '/^tilepp profile/,$p' "$TMP/prof.err"
    grep -q '^tilepp profile' "$TMP/prof.err" || { echo "FAILED: no profile table on stderr"; return 1; }
    echo
    echo "TILEPP_PROFILE=nvtx gives only NVTX ranges (named 'kernel (file.c:LINE)') for Nsight Systems;"
    echo "TILEPP_DEBUG=1 makes every call wait for its kernels, so a fault is returned by the call that caused it."
}

# tilepp inspect: per kernel and architecture, the instructions that say the
# code is what it should be (tensor cores, async copies, barriers, matrix
# loads) and its registers, shared memory and spills; SASS when nvdisasm or
# cuobjdump is found, PTX and ptxas otherwise.
sec_inspect() {
    cuda_in_build || { echo "no CUDA compiler (nvcc) in this build: nothing to compile and inspect"; return $SKIP; }
    echo "\$ tilepp inspect samples/gemm_softmax.c --arch 90a     (one schedule; the tuned gemm.c has 18 variants)"
    shown "$TMP/inspect.out" "tilepp inspect" "$TILEPP" inspect "$REPO/samples/gemm_softmax.c" --arch 90a
}

# tile_print on the GPU: a kernel of the tests (print_kernels.c) printing
# scalars and a shared tile, run on the CPU and on the GPU (one block, picked
# with TILEPP_PRINT_BLOCK); the GPU's lines after its "-- block" header are
# the CPU's lines for that block.
sec_print() {
    local src="$REPO/tests/gpu/print_kernels.c" exe="$BIN/print_test"
    echo "print_shared() of tests/gpu/print_kernels.c:"
    sed -n '/^void print_shared/,/^}/p' "$src"
    if [ ! -x "$exe" ]; then
        cuda_in_build || { echo "not built: this build found no CUDA compiler (nvcc)"; return $SKIP; }
        echo "no test program at $exe"
        return 1
    fi
    echo
    echo "\$ print_test --run cpu shared | head -n 12 | cut -c1-100     (the CPU run: every block, in order)"
    "$exe" --run cpu shared >"$TMP/print_cpu.out"
    head -n 12 "$TMP/print_cpu.out" | cut -c1-100
    echo
    echo "\$ TILEPP_PRINT_BLOCK=1,1 print_test --run gpu shared | head -n 12 | cut -c1-100"
    local rc=0
    TILEPP_PRINT_BLOCK=1,1 "$exe" --run gpu shared >"$TMP/print.out" 2>&1 || rc=$?
    [ "$rc" -ne 77 ] || { echo "(no CUDA device here)"; return $SKIP; }
    head -n 12 "$TMP/print.out" | cut -c1-100
    [ "$rc" -eq 0 ] || { echo "FAILED: print_test exited with $rc"; return 1; }
    echo
    echo "(print_test checks that the GPU's prints are the CPU's, block by block, for every kernel)"
}

# Autotuning: the points of the GEMM's tune space (tilepp prunes those it
# refuses, with the reason), then the sample run twice on a cache of the
# tour's own: the first run tunes (the table on stderr), the second finds
# the choice in the cache and does not.
sec_tune() {
    if [ -x "$TILEPP" ]; then
        echo "\$ tilepp --list-variants samples/gemm.c"
        "$TILEPP" --list-variants "$REPO/samples/gemm.c"
    else # a machine that runs a build made elsewhere
        echo "(no translator at $TILEPP: the list of points is skipped; the runs below need none)"
    fi
    local exe="$BIN/gemm_sample"
    if [ ! -x "$exe" ]; then
        cuda_in_build || { echo "not built: this build found no CUDA compiler (nvcc)"; return $SKIP; }
        echo "no sample driver at $exe"
        return 1
    fi
    local cache="$TMP/tune-cache"
    rm -rf "$cache"
    echo
    echo "\$ TILEPP_TUNE_VERBOSE=1 TILEPP_TUNE_CACHE=$cache $(basename "$exe")     (first run: tunes)"
    shown "$TMP/tune1.log" "$(basename "$exe") (tuning)" env TILEPP_TUNE_VERBOSE=1 TILEPP_TUNE_CACHE="$cache" "$exe" ||
        return 1
    if grep -q '^GPU: skipped' "$TMP/tune1.log"; then
        echo "(no CUDA device here: nothing to tune)"
        return $SKIP
    fi
    echo
    echo "\$ ls $cache"
    ls "$cache"
    echo
    echo "\$ TILEPP_TUNE_VERBOSE=1 TILEPP_TUNE_CACHE=$cache $(basename "$exe")     (second run: from the cache)"
    shown "$TMP/tune2.log" "$(basename "$exe") (cached)" env TILEPP_TUNE_VERBOSE=1 TILEPP_TUNE_CACHE="$cache" "$exe" ||
        return 1
    if grep -q '^tilepp tune:' "$TMP/tune2.log"; then
        echo "FAILED: the second run tuned again"
        return 1
    fi
    echo "(no table: every choice came from the cache)"
}

reference() {
    cat <<'EOF'
tilepp language reference (compact; the manual is pragmas/README.md)

Pragmas (each applies to the next statement or declaration):
  tile kernel [threads(N)]             function -> __global__ kernel + launchers
                                       NAME_gpu(...), NAME_gpu_stream(..., stream)
     [flops(E)] [bytes(E)]             work per call over scalar parameters, for
                                       the profiler's TFLOP/s and GB/s
  tile parallel [vector(V)]            for nest -> iterations over the whole grid
                                       (in a grid block: over the block's threads);
                                       a perfect nest is collapsed; V consecutive
                                       iterations per thread (16-byte accesses)
  tile parallel reduce(op: var, ...)   OpenMP reductions (+ * max min & | ^ && ||),
                                       in blocks and over the whole grid
  tile grid [swizzle(P)]               1-3 loops -> one thread block per iteration;
                                       P: L2 panel of the block order
  tile shared | fragment               tiles in shared memory / spread over registers
  tile local                           per-thread arrays in parallel loop bodies
  tile pipelined stages(S)             loads of iteration k+S-1 overlap compute of k
  tile gemm [policy(square|row|col)]   tensor-core product; also on the user's own
                                       C[i][j] += A[i][k]*B[k][j] loop or function
  tile tune NAME(v1, v2, ...) ...      autotuning space over the file's constants:
                                       one variant per point (tilepp --list-variants),
                                       timed and checked on first use per GPU and
                                       shape class, the choice cached; NAME_gpu_point
                                       runs one point; TILEPP_TUNE=off|on|force,
                                       TILEPP_TUNE_PIN, TILEPP_TUNE_VERBOSE=1

From <tilepp/tile.h> (real CPU implementations):
  half, bfloat16                       storage types; arithmetic is float
  tile_cdiv(a, b), tile_min, tile_max
  tile_load / tile_store (6 arguments: zero past the edge; 4: in bounds;
  1-D tiles: (tile, vector, i0 [, n])), tile_copy (any spaces, converting),
  tile_clear, tile_fill, tile_gemm[_nt|_tn|_tt]
  tile_reduce_max|min|sum|absmax|abssum (GPU: a fragment's rows, shared
  tiles along either dim), tile_print (a scalar or a whole tile; in a grid
  block on the GPU: one block prints, TILEPP_PRINT_BLOCK=i,j|all picks)
Math in kernel bodies is plain C: expf, tanhf, erff, fmaxf, sqrtf, ternaries,
locals, if/else, inner sequential loops, static helper functions, macros and
enum constants. In a grid block, statements between loops run on every
thread alike (one thread when they write memory); barriers are placed for you.
A parallel loop over a 2-D fragment's indices runs in registers, each thread
on its own elements (fused GEMM epilogues: samples/gemm_bias_gelu.c; a row
softmax after the product: samples/gemm_softmax.c); a GEMM takes its A
operand from a fragment, and a pipelined loop may hold two GEMMs with
fragment work between them (samples/flash_attention.c). The samples' drivers
(samples/*_main.c; tour sections ...-run): CPU run, GPU check, timing.

Code paths: sm_80 (mma.sync, ldmatrix, cp.async; runs on Hopper too) and, for
GEMM-shaped grids, sm_90a (TMA + mbarrier pipeline, wgmma, warp-specialized,
persistent), picked at launch; TILEPP_PATH=sm80|sm90 overrides.
Run time: TILEPP_PROFILE=1 (a table per kernel at exit; =nvtx: NVTX ranges
only), TILEPP_DEBUG=1 (each call waits, so a fault names its kernel).
Debug translation: tilepp -g / tile_add_kernels(... DEBUG): tile loads and
stores check their windows, a violation is reported with its file:line.

Usage: tilepp x.c -o x.tile.cu [--header x.tile.h] [--arch 80,90a]; in CMake:
  tile_add_kernels(<target> SOURCES x.c ARCH 80 90a), then #include "x.tile.h".
EOF
}

# ---- the tour ------------------------------------------------------------

all_sections() {
    section environment "environment: GPU, driver, toolkit, libclang" sec_environment
    section translator "translator" sec_translator
    local sample
    for sample in vector_add bias_gelu; do
        section "$sample" "$sample: source and generated code" sec_translate "$sample"
        section "$sample-run" "$sample: run" sec_run "$sample"
    done
    section landmarks "landmarks (SASS)" sec_landmarks
    section gemm "gemm: source and generated code" sec_translate gemm
    section gemm-run "gemm: run (CPU reference, GPU, cuBLAS)" sec_run gemm
    section schedules "gemm: schedules" sec_run gemm_schedules
    section gemm-landmarks "gemm: tensor-core landmarks (SASS)" sec_gemm_landmarks
    section epilogue "gemm_bias_gelu (a fused epilogue in registers): source and generated code" sec_translate gemm_bias_gelu
    section epilogue-run "gemm_bias_gelu: run (CPU reference, GPU; cuBLAS + bias_gelu, cuBLAS alone)" sec_run gemm_bias_gelu
    section softmax "softmax: source and generated code" sec_translate softmax
    section rows "softmax, layernorm, normalize: run" sec_run rows
    section gemm-softmax "gemm_softmax (a row softmax in a GEMM's epilogue): source and generated code" sec_translate gemm_softmax
    section gemm-softmax-run "gemm_softmax: run (CPU reference, GPU; cuBLAS + softmax_f16, cuBLAS alone)" sec_run gemm_softmax
    section attention "flash_attention (two products and the online softmax in one pipelined loop): source and generated code" sec_translate flash_attention
    section attention-run "flash_attention: run, causal and non-causal (CPU reference, double loop, unfused cuBLAS attention)" sec_run flash_attention
    section inspect "inspect: landmarks and resources of a GEMM's kernels (gemm_softmax.c)" sec_inspect
    section profiler "profiler: TILEPP_PROFILE=1 on the GEMM sample" sec_profiler
    section print "tile_print on the GPU: a grid block's scalars and tiles, as the CPU prints them" sec_print
    section tune "autotuning: the GEMM's tune space, a first run that tunes, a second from the cache" sec_tune
}

if [ "${WANTED[0]:-}" = "--list" ]; then
    echo "tour sections (run some with: $0 <build-dir> ID...):"
    LISTING=1 all_sections
    exit 0
fi
for w in "${WANTED[@]}"; do
    LISTING=1 all_sections >"$TMP/ids"
    grep -q "^  $w " "$TMP/ids" || { echo "tour: no section '$w' (see --list)" >&2; exit 2; }
done

echo "tilepp tour: repository $REPO, build $BUILD"
all_sections

echo
rule '='
echo "== summary"
rule '='
failed=0
printf '%-60s %-8s %8s\n' "section" "status" "seconds"
for i in "${!NAMES[@]}"; do
    title=${NAMES[$i]}
    [ ${#title} -le 60 ] || title="${title:0:57}..."
    printf '%-60s %s%*s %8s\n' "$title" "$(paint "${STATUSES[$i]}")" $((8 - ${#STATUSES[$i]})) '' "${SECONDS_TAKEN[$i]}"
    [ "${STATUSES[$i]}" != FAILED ] || failed=$((failed + 1))
done
echo
[ ${#WANTED[@]} -gt 0 ] || { reference; echo; }
if [ "$failed" -gt 0 ]; then
    echo "tour: $failed section(s) FAILED"
    exit 1
fi
echo "tour: all sections OK or SKIPPED"

#!/bin/sh
# check_sass.sh — SASS landmarks of a compiled object, per GPU architecture.
#
#   check_sass.sh <cuobjdump or ""> <object> <pattern>...
#
# Disassembles <object> (cuobjdump -sass, which needs nvdisasm beside it or
# on PATH) and checks that the code of every architecture in it contains each
# pattern (an extended regular expression), e.g. 'LDG\.E\.128'; a pattern
# written 'sm_90a:HGMMA' is checked in that architecture's code only. A
# pattern 'A >> B >> C' checks an order: some instruction matching A is
# followed by one matching B before the next one matching C (work that
# runs under products in flight: 'DEPBAR.LE gsb0, 0x1 >> MUFU.EX2 >>
# DEPBAR.LE gsb0, 0x0'). Exits 77
# (ctest: skipped) when cuobjdump or nvdisasm is missing: install them with
# `pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm` and point
# TILEPP_CUOBJDUMP at the cuobjdump, or put both on PATH.
set -u
tool=$1
object=$2
shift 2

if [ -z "$tool" ]; then
    tool=$(command -v cuobjdump 2>/dev/null || true)
fi
if [ -z "$tool" ] || [ ! -x "$tool" ]; then
    echo "SKIPPED: cuobjdump not found (pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)"
    exit 77
fi
# nvdisasm usually sits beside cuobjdump.
PATH="$(dirname "$tool"):$PATH"
export PATH
if [ ! -f "$object" ]; then
    echo "FAILED: $object does not exist (did the compile test run?)"
    exit 1
fi

sass=$("$tool" -sass "$object" 2>&1)
status=$?
case $sass in
*"Could not find executable file 'nvdisasm'"*)
    echo "SKIPPED: nvdisasm not found (pip install nvidia-cuda-nvdisasm)"
    exit 77 ;;
esac
if [ $status -ne 0 ]; then
    echo "FAILED: $tool -sass $object:"
    echo "$sass"
    exit 1
fi

archs=$(printf '%s\n' "$sass" | sed -n 's/.*arch = \(sm_[0-9a-z]*\).*/\1/p' | sort -u)
if [ -z "$archs" ]; then
    echo "FAILED: no SASS in $object"
    exit 1
fi
failed=0
for arch in $archs; do
    # The listing of one architecture: from its "arch = " line to the next.
    code=$(printf '%s\n' "$sass" | awk -v a="arch = $arch" '
        /arch = sm_/ { on = index($0, a) > 0 }
        on')
    for pattern in "$@"; do
        case $pattern in # "sm_90a:PATTERN" applies to that architecture only
        sm_*:*)
            [ "${pattern%%:*}" = "$arch" ] || continue
            pattern=${pattern#*:} ;;
        esac
        case $pattern in
        *" >> "*" >> "*) # A >> B >> C: the Bs between an A and the next C
            first=${pattern%% >> *}
            rest=${pattern#* >> }
            middle=${rest%% >> *}
            last=${rest#* >> }
            count=$(printf '%s\n' "$code" | awk -v a="$first" -v b="$middle" -v c="$last" '
                $0 ~ a { on = 1; next }
                on && $0 ~ c { on = 0 }
                on && $0 ~ b { n++ }
                END { print n + 0 }') ;;
        *) count=$(printf '%s\n' "$code" | grep -cE "$pattern") ;;
        esac
        if [ "$count" -eq 0 ]; then
            echo "FAILED: $arch: no instruction matches '$pattern'"
            failed=1
        else
            echo "ok: $arch: $count x '$pattern'"
        fi
    done
done
exit $failed

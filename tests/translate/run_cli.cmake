# run_cli.cmake — the translator's command line, one case per test.
#
#   cmake -DTILEPP=<tilepp> -DWORK_DIR=<dir> -DVERSION=<x.y.z> -DCASE=<case> -P run_cli.cmake
#
# Each case starts in an empty WORK_DIR, writes the small inputs it needs and
# runs the translator there with relative paths. Cases:
#   version help depfile depfile_default emit_ir emit_ir_to_file output_paths
#   output_only default_names include_define arch all_or_nothing
#   joined_separate double_dash depfile_targets depfile_mmd forwarded_flags
#   ignored_flags color error_count werror clang_warnings syntax_only
#   unchanged_outputs debug_flag no_tune list_variants
#   error_unknown_option error_missing_input error_bad_arch error_bad_emit
#   error_two_inputs error_missing_value error_unreadable_input error_undefined_macro

cmake_minimum_required(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/translate_common.cmake)
tt_require(TILEPP WORK_DIR VERSION CASE)

tt_fresh_dir("${WORK_DIR}")
set(failures "")

# A kernel that includes a local header, which includes another one.
set(kernel_c [=[
#include <tilepp/tile.h>
#include "local.h"
#include "my header.h"

#pragma tile kernel
void scale(int n, float s, const float *x, float *y)
{
#pragma tile parallel vector(4)
    for (int i = 0; i < n; i++)
        y[i] = s * x[i] + LOCAL_BIAS + SPACED;
}
]=])
function(write_kernel dir)
  file(WRITE "${dir}/kern.c" "${kernel_c}")
  file(WRITE "${dir}/local.h" "#include \"sub/nested.h\"\n#define LOCAL_BIAS NESTED_BIAS\n")
  file(WRITE "${dir}/sub/nested.h" "#define NESTED_BIAS 1.0f\n")
  file(WRITE "${dir}/my header.h" "#define SPACED 0.0f\n")
endfunction()

# run(<args>...): runs tilepp in WORK_DIR; sets rc, out, err.
macro(run)
  execute_process(COMMAND "${TILEPP}" ${ARGN}
    WORKING_DIRECTORY "${WORK_DIR}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REPLACE ";" " " last_command "tilepp ${ARGN}")
endmacro()

# The checks are functions, not macros: a macro would evaluate the escapes in
# the text it is given a second time. Each adds to `failures` in the caller.
function(fail text)
  set(failures "${failures}[${last_command}] ${text}\n" PARENT_SCOPE)
endfunction()

function(expect_rc want)
  if(NOT rc STREQUAL want)
    fail("exit code '${rc}', expected ${want}; stderr:\n${err}")
  endif()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

# expect_has(<variable> <text>): the variable's value contains text.
function(expect_has var text)
  string(FIND "${${var}}" "${text}" at)
  if(at EQUAL -1)
    fail("${var} lacks '${text}'; it is:\n${${var}}")
  endif()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

function(expect_lacks var text)
  string(FIND "${${var}}" "${text}" at)
  if(NOT at EQUAL -1)
    fail("${var} has '${text}', which it must not; it is:\n${${var}}")
  endif()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

function(expect_empty var)
  if(NOT "${${var}}" STREQUAL "")
    fail("${var} is not empty:\n${${var}}")
  endif()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

# expect_files(<file>...): WORK_DIR holds exactly these files.
function(expect_files)
  set(want "${ARGN}")
  list(SORT want)
  tt_dir_files(got "${WORK_DIR}")
  if(NOT got STREQUAL want)
    fail("files are '${got}', expected '${want}'")
  endif()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

set(inputs kern.c local.h sub/nested.h "my header.h")

# A usage error: exit 1, `tilepp: error: <text>` on stderr, nothing else.
function(expect_usage_error text)
  expect_rc(1)
  expect_has(err "tilepp: error: ${text}")
  expect_empty(out)
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

# run_env(<NAME=VALUE;...> <args>...): run() with those environment variables.
macro(run_env env)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env ${env} "${TILEPP}" ${ARGN}
    WORKING_DIRECTORY "${WORK_DIR}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REPLACE ";" " " last_command "${env} tilepp ${ARGN}")
endmacro()

# read_work(<var> <file>): the content of WORK_DIR/<file>, or "<missing>".
function(read_work var name)
  set(text "<missing>")
  if(EXISTS "${WORK_DIR}/${name}")
    file(READ "${WORK_DIR}/${name}" text)
  endif()
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

# A kernel with a tilepp warning (swizzle on a grid of one loop).
set(warning_c [=[
#include <tilepp/tile.h>

#pragma tile kernel
void f(int n, float *x)
{
#pragma tile grid swizzle(8)
    for (int b = 0; b < n; b++)
        x[b] = 0.0f;
}
]=])
set(swizzle_warning "swizzle(8) has no effect on a grid of one loop: its blocks have one order")

# A kernel file with a warning of clang's own on line 4 (a helper function).
set(clang_warning_c [=[
#include <tilepp/tile.h>

static int unused_shift(void) {
    return 1 << 40;
}

#pragma tile kernel
void g(int n, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = 1.0f + (float)unused_shift();
}
]=])

string(ASCII 27 esc)

# --------------------------------------------------------------------------
if(CASE STREQUAL "version")
  # tilepp's version first (CMake scripts read it), then libclang's and the
  # builtin headers it is given.
  run(--version)
  expect_rc(0)
  tt_lines(version_lines "${out}")
  list(GET version_lines 0 first)
  if(NOT first STREQUAL "tilepp ${VERSION}")
    fail("the first line is '${first}', expected 'tilepp ${VERSION}'")
  endif()
  if(NOT out MATCHES "\nlibclang: [^\n]*clang version [0-9]+\\.[0-9]")
    fail("no 'libclang: ... clang version N.M' line:\n${out}")
  endif()
  if(NOT out MATCHES "\nclang resource directory: [^\n]+")
    fail("no 'clang resource directory:' line:\n${out}")
  endif()
  expect_has(out "tilepp/tile.h from: ")
  expect_empty(err)
  expect_files()

elseif(CASE STREQUAL "help")
  foreach(flag --help -h)
    run(${flag})
    expect_rc(0)
    expect_has(out "usage: tilepp")
    foreach(option -o --header -I -D -U -std= --arch --emit -MD -MMD -MF -MT -MQ -MP
        -isystem -iquote -idirafter -include --sysroot --target -fsyntax-only -w -Werror
        -fcolor-diagnostics -fno-color-diagnostics NO_COLOR "  --  " --version --help "  -g  ")
      expect_has(out "${option}")
    endforeach()
    expect_empty(err)
  endforeach()
  expect_files()

elseif(CASE STREQUAL "depfile")
  write_kernel("${WORK_DIR}")
  run(-MD -MF deps.d kern.c)
  expect_rc(0)
  expect_empty(err)
  expect_files(${inputs} kern.tile.cu kern.tile.h deps.d)
  if(EXISTS "${WORK_DIR}/deps.d")
    file(READ "${WORK_DIR}/deps.d" dep)
    # Make syntax: the target, then every file the parse read, spaces escaped.
    if(NOT dep MATCHES "^kern\\.tile\\.cu:")
      fail("the depfile does not start with 'kern.tile.cu:':\n${dep}")
    endif()
    foreach(file " kern.c" "local.h" "sub/nested.h" "my\\ header.h" "tilepp/tile.h")
      expect_has(dep "${file}")
    endforeach()
    # Every line but the last continues.
    tt_lines(dep_lines "${dep}")
    list(LENGTH dep_lines n)
    set(i 1)
    foreach(line IN LISTS dep_lines)
      tt_decode(line)
      if(i LESS n AND NOT line MATCHES " \\\\$")
        fail("depfile line ${i} does not end in ' \\': '${line}'")
      endif()
      math(EXPR i "${i} + 1")
    endforeach()
  endif()

elseif(CASE STREQUAL "depfile_default")
  # -MD alone names the depfile as gcc does for `-o foo.o -MD`: the output
  # with its suffix replaced by .d; the rule's target is the output.
  write_kernel("${WORK_DIR}")
  file(MAKE_DIRECTORY "${WORK_DIR}/gen")
  foreach(pair "gen/k.cu|gen/k.d" "gen/k.tile.cu|gen/k.tile.d" "gen/k|gen/k.d" "|kern.tile.d")
    string(REPLACE "|" ";" pair "${pair}")
    list(GET pair 0 output)
    list(GET pair 1 depfile)
    if(output STREQUAL "")
      set(output kern.tile.cu)
      run(-MD kern.c)
    else()
      run(-MD -o ${output} kern.c)
    endif()
    expect_rc(0)
    if(NOT EXISTS "${WORK_DIR}/${depfile}")
      fail("no depfile ${depfile}")
      continue()
    endif()
    file(READ "${WORK_DIR}/${depfile}" dep)
    file(REMOVE "${WORK_DIR}/${depfile}")
    string(REPLACE "." "\\." target_regex "${output}")
    if(NOT dep MATCHES "^${target_regex}:")
      fail("the depfile does not start with '${output}:':\n${dep}")
    endif()
    expect_has(dep "local.h")
  endforeach()
  expect_files(${inputs} gen/k.cu gen/k.h gen/k.tile.cu gen/k.tile.h gen/k kern.tile.cu kern.tile.h)

elseif(CASE STREQUAL "emit_ir")
  write_kernel("${WORK_DIR}")
  run(--emit ir kern.c)
  expect_rc(0)
  expect_empty(err)
  if(NOT out MATCHES "^module kern\\.c\n")
    fail("stdout does not start with 'module kern.c':\n${out}")
  endif()
  expect_has(out "kernel scale")
  expect_has(out "parallel vector(4)")
  expect_files(${inputs})

elseif(CASE STREQUAL "emit_ir_to_file")
  write_kernel("${WORK_DIR}")
  run(--emit ir -o kern.ir kern.c)
  expect_rc(0)
  expect_empty(out)
  expect_files(${inputs} kern.ir)
  if(EXISTS "${WORK_DIR}/kern.ir")
    file(READ "${WORK_DIR}/kern.ir" ir)
    if(NOT ir MATCHES "^module kern\\.c\n")
      fail("kern.ir does not start with 'module kern.c':\n${ir}")
    endif()
  endif()

elseif(CASE STREQUAL "output_paths")
  write_kernel("${WORK_DIR}")
  file(MAKE_DIRECTORY "${WORK_DIR}/gen" "${WORK_DIR}/inc")
  run(-o gen/k.cu --header inc/k_launch.h kern.c)
  expect_rc(0)
  expect_empty(out)
  expect_empty(err)
  expect_files(${inputs} gen/k.cu inc/k_launch.h)
  if(EXISTS "${WORK_DIR}/gen/k.cu" AND EXISTS "${WORK_DIR}/inc/k_launch.h")
    file(READ "${WORK_DIR}/gen/k.cu" cu)
    file(READ "${WORK_DIR}/inc/k_launch.h" h)
    expect_has(cu "#include \"k_launch.h\"")
    expect_has(cu "scale_gpu_stream(")
    expect_has(h "cudaError_t scale_gpu(")
    expect_has(h "#ifndef TILEPP_GENERATED_K_LAUNCH_H")
  endif()

elseif(CASE STREQUAL "output_only")
  # -o alone: the header is the output with .cu replaced by .h.
  write_kernel("${WORK_DIR}")
  file(MAKE_DIRECTORY "${WORK_DIR}/gen")
  run(-o gen/k.cu kern.c)
  expect_rc(0)
  expect_files(${inputs} gen/k.cu gen/k.h)
  if(EXISTS "${WORK_DIR}/gen/k.cu")
    file(READ "${WORK_DIR}/gen/k.cu" cu)
    expect_has(cu "#include \"k.h\"")
  endif()

elseif(CASE STREQUAL "default_names")
  # sub/kern.c -> kern.tile.cu and kern.tile.h in the current directory.
  write_kernel("${WORK_DIR}/src")
  run(src/kern.c)
  expect_rc(0)
  expect_empty(out)
  expect_empty(err)
  set(src_inputs "")
  foreach(f IN LISTS inputs)
    list(APPEND src_inputs "src/${f}")
  endforeach()
  expect_files(${src_inputs} kern.tile.cu kern.tile.h)
  if(EXISTS "${WORK_DIR}/kern.tile.cu")
    file(READ "${WORK_DIR}/kern.tile.cu" cu)
    # #line names the source as the user named it.
    expect_has(cu "#line 10 \"src/kern.c\"")
    expect_has(cu "#include \"kern.tile.h\"")
    expect_lacks(cu "${WORK_DIR}")
  endif()

elseif(CASE STREQUAL "include_define")
  # -I and -D, joined and separate, reach the parse (WIDTH sizes the vector).
  file(WRITE "${WORK_DIR}/cfg/config.h" "#define BIAS 2.0f\n")
  file(WRITE "${WORK_DIR}/k.c" [=[
#include <tilepp/tile.h>
#include "config.h"
#pragma tile kernel
void add_bias(int n, float *x)
{
#pragma tile parallel vector(WIDTH)
    for (int i = 0; i < n; i++)
        x[i] += BIAS;
}
]=])
  foreach(form "-Icfg;-DWIDTH=8" "-I;cfg;-D;WIDTH=8" "-std=c11;-Icfg;-DWIDTH=8")
    file(REMOVE "${WORK_DIR}/k.tile.cu" "${WORK_DIR}/k.tile.h")
    run(${form} k.c)
    expect_rc(0)
    expect_empty(err)
    expect_files(cfg/config.h k.c k.tile.cu k.tile.h)
    if(EXISTS "${WORK_DIR}/k.tile.cu")
      file(READ "${WORK_DIR}/k.tile.cu" cu)
      expect_has(cu "each thread takes 8 consecutive iterations")
    endif()
  endforeach()
  # -U takes the definition away again: vector(WIDTH) is then refused.
  file(REMOVE "${WORK_DIR}/k.tile.cu" "${WORK_DIR}/k.tile.h")
  run(-Icfg -DWIDTH=8 -UWIDTH k.c)
  expect_rc(1)
  expect_has(err "k.c:6:30: error: 'WIDTH' is not an integer constant")
  expect_files(cfg/config.h k.c)

elseif(CASE STREQUAL "arch")
  write_kernel("${WORK_DIR}")
  # nvcc's and CMake's spellings: sm_, compute_, 90 for Hopper, and the
  # sm_8x and newer numbers, which run the sm_80 path.
  foreach(pair "80|80" "sm_80|80" "compute_80|80" "86|80" "sm_89|80" "100a|80" "120|80"
               "90a|90a" "sm_90a|90a" "compute_90a|90a" "90|90a" "sm_90|90a"
               "80,90a|80 90a" "90a,80|80 90a" "compute_80,sm_90a|80 90a")
    string(REPLACE "|" ";" pair "${pair}")
    list(GET pair 0 arg)
    list(GET pair 1 shown)
    run(--arch ${arg} kern.c)
    expect_rc(0)
    if(EXISTS "${WORK_DIR}/kern.tile.cu")
      file(READ "${WORK_DIR}/kern.tile.cu" cu)
      expect_has(cu "(--arch ${shown})")
    endif()
  endforeach()

elseif(CASE STREQUAL "all_or_nothing")
  # The header cannot be written: no file at all, not even the .cu or a temporary.
  write_kernel("${WORK_DIR}")
  run(-MD -o ok.cu --header no_such_dir/k.h kern.c)
  expect_rc(1)
  expect_has(err "no_such_dir/k.h")
  expect_empty(out)
  expect_files(${inputs})

elseif(CASE STREQUAL "joined_separate")
  # Every option with a value, joined (-ofile, --arch=90a) and separate:
  # the same files, byte for byte. Each option changes the result.
  file(WRITE "${WORK_DIR}/cfg/config.h" "#define BIAS 2.0f\n")
  file(WRITE "${WORK_DIR}/sysinc/sysdefs.h" "#define SYS_SCALE 3.0f\n")
  file(WRITE "${WORK_DIR}/pre.h" "#define PRE_BIAS 4.0f\n")
  file(WRITE "${WORK_DIR}/k.c" [=[
#include <tilepp/tile.h>
#include "config.h"
#include <sysdefs.h>
#ifdef DROPPED
#error "-U did not undefine DROPPED"
#endif
#pragma tile kernel
void add_bias(int n, float *x)
{
#pragma tile parallel vector(WIDTH)
    for (int i = 0; i < n; i++)
        x[i] = x[i] * SYS_SCALE + BIAS + PRE_BIAS;
}
]=])
  set(joined -ogen.cu --header=gen_launch.h --arch=90a -DWIDTH=8 -DDROPPED -UDROPPED -Icfg
    -isystemsysinc -includepre.h -MD -MFgen.d -MTfirst "-MQsecond target")
  set(separate -o gen.cu --header gen_launch.h --arch 90a -D WIDTH=8 -D DROPPED -U DROPPED -I cfg
    -isystem sysinc -include pre.h -MD -MF gen.d -MT first -MQ "second target")
  set(produced gen.cu gen_launch.h gen.d)
  foreach(form joined separate)
    run(${${form}} k.c)
    expect_rc(0)
    expect_empty(err)
    expect_files(cfg/config.h sysinc/sysdefs.h pre.h k.c ${produced})
    foreach(f IN LISTS produced)
      read_work(${form}_${f} ${f})
    endforeach()
    file(REMOVE_RECURSE "${WORK_DIR}/gen.cu" "${WORK_DIR}/gen_launch.h" "${WORK_DIR}/gen.d")
  endforeach()
  foreach(f IN LISTS produced)
    if(NOT joined_${f} STREQUAL separate_${f})
      fail("${f} differs between the joined and the separate forms")
    endif()
  endforeach()
  expect_has(joined_gen.cu "each thread takes 8 consecutive iterations")
  expect_has(joined_gen.cu "(--arch 90a)")
  expect_has(joined_gen.cu "#include \"gen_launch.h\"")
  if(NOT joined_gen.d MATCHES "^first second\\\\ target: ")
    fail("gen.d does not start with 'first second\\ target:':\n${joined_gen.d}")
  endif()
  expect_has(joined_gen.d "pre.h")
  # --emit=ir and --emit ir.
  run(--emit=ir -DWIDTH=8 -Icfg -isystem sysinc -include pre.h k.c)
  set(ir_joined "${out}")
  run(--emit ir -DWIDTH=8 -Icfg -isystem sysinc -include pre.h k.c)
  expect_rc(0)
  if(NOT ir_joined STREQUAL out OR NOT out MATCHES "^module k\\.c\n")
    fail("--emit=ir and --emit ir differ, or are no IR:\n${ir_joined}\n----\n${out}")
  endif()

elseif(CASE STREQUAL "double_dash")
  # After "--" every argument is an input, even one that starts with '-'.
  write_kernel("${WORK_DIR}")
  file(RENAME "${WORK_DIR}/kern.c" "${WORK_DIR}/-x.c")
  run(-x.c)
  expect_usage_error("unknown option '-x.c'")
  expect_files(-x.c local.h sub/nested.h "my header.h")
  run(-MD -- -x.c)
  expect_rc(0)
  expect_empty(err)
  expect_files(-x.c local.h sub/nested.h "my header.h" -x.tile.cu -x.tile.h -x.tile.d)
  read_work(cu -x.tile.cu)
  expect_has(cu "#include \"-x.tile.h\"")
  run(-- -x.c kern.c)
  expect_usage_error("one input file at a time ('kern.c' is a second one)")
  # "--help" after "--" is a file name, not the option.
  run(-- --help)
  expect_rc(1)
  expect_has(err "cannot read '--help'")
  expect_empty(out)

elseif(CASE STREQUAL "depfile_targets")
  # -MT names the rule's target as written, -MQ quotes it for Make (as gcc);
  # several add up; -MP adds an empty rule for each header.
  write_kernel("${WORK_DIR}")
  run(-MD -MF one.d -MT "my target" kern.c)
  expect_rc(0)
  read_work(dep one.d)
  if(NOT dep MATCHES "^my target: ")
    fail("one.d does not start with 'my target: ':\n${dep}")
  endif()
  run(-MD -MF two.d -MQ "my target" -MT "$(OUT)/k.o" kern.c)
  expect_rc(0)
  read_work(dep two.d)
  if(NOT dep MATCHES "^my\\\\ target \\$\\(OUT\\)/k\\.o: ")
    fail("two.d does not start with 'my\\ target $(OUT)/k.o: ':\n${dep}")
  endif()
  expect_lacks(dep "\nlocal.h:\n")
  run(-MD -MF three.d -MP kern.c)
  expect_rc(0)
  read_work(dep three.d)
  foreach(rule "\nlocal.h:\n" "\nsub/nested.h:\n" "\nmy\\ header.h:\n" "/tilepp/tile.h:\n")
    expect_has(dep "${rule}")
  endforeach()
  expect_lacks(dep "\nkern.c:")
  if(NOT dep MATCHES "^kern\\.tile\\.cu: ")
    fail("three.d does not start with 'kern.tile.cu: ':\n${dep}")
  endif()

elseif(CASE STREQUAL "depfile_mmd")
  # -MMD: as -MD, without the system headers (-isystem, /usr/include).
  write_kernel("${WORK_DIR}")
  file(WRITE "${WORK_DIR}/sysinc/sysdefs.h" "#define SYS_BIAS 0.0f\n")
  file(READ "${WORK_DIR}/kern.c" text)
  file(WRITE "${WORK_DIR}/kern.c" "#include <sysdefs.h>\n#include <math.h>\n${text}")
  run(-MMD -isystem sysinc kern.c)
  expect_rc(0)
  expect_empty(err)
  read_work(dep kern.tile.d)
  foreach(file " kern.c" "local.h" "sub/nested.h" "tilepp/tile.h")
    expect_has(dep "${file}")
  endforeach()
  expect_lacks(dep "sysdefs.h")
  expect_lacks(dep "math.h")
  run(-MD -isystem sysinc kern.c)
  expect_rc(0)
  read_work(dep kern.tile.d)
  expect_has(dep "sysinc/sysdefs.h")
  expect_has(dep "math.h")
  expect_has(dep "local.h")

elseif(CASE STREQUAL "forwarded_flags")
  # A compile_commands.json line's include and language flags reach the
  # parse: each header below is found only through its flag.
  file(WRITE "${WORK_DIR}/sysinc/sysdefs.h" "#define SYS_WIDTH 8\n")
  file(WRITE "${WORK_DIR}/qinc/quoted.h" "#define QUOTED_BIAS 1.0f\n")
  file(WRITE "${WORK_DIR}/late/after.h" "#define AFTER_SCALE 2.0f\n")
  file(WRITE "${WORK_DIR}/pre.h" "#define PRE_BIAS 3.0f\n")
  file(WRITE "${WORK_DIR}/k.c" [=[
#include <tilepp/tile.h>
#include <sysdefs.h>
#include "quoted.h"
#include <after.h>
#pragma tile kernel
void f(int n, float *x)
{
#pragma tile parallel vector(SYS_WIDTH)
    for (int i = 0; i < n; i++)
        x[i] = x[i] * AFTER_SCALE + QUOTED_BIAS + PRE_BIAS;
}
]=])
  set(flags -isystem sysinc -iquote qinc -idirafter late -include pre.h)
  foreach(form "${flags}" "-isystemsysinc;-iquoteqinc;-idirafterlate;-includepre.h"
      "${flags};-std=gnu11;--sysroot=/" "${flags};--sysroot;/")
    file(REMOVE "${WORK_DIR}/k.tile.cu" "${WORK_DIR}/k.tile.h")
    run(${form} k.c)
    expect_rc(0)
    expect_empty(err)
    read_work(cu k.tile.cu)
    expect_has(cu "each thread takes 8 consecutive iterations")
  endforeach()
  # Without -include, PRE_BIAS is undefined: the flag did the work.
  run(-isystem sysinc -iquote qinc -idirafter late k.c)
  expect_rc(1)
  expect_has(err "k.c:10:51: error: use of undeclared identifier 'PRE_BIAS'")

elseif(CASE STREQUAL "debug_flag")
  # -g, the debug translation: accepted without a note; the launchers check
  # (the kernel here has no tile operations: its launcher waits and reads
  # the record all the same); -g0 after it, and no flag, give the plain
  # translation.
  write_kernel("${WORK_DIR}")
  run(kern.c)
  expect_rc(0)
  read_work(plain kern.tile.cu)
  run(-g kern.c)
  expect_rc(0)
  expect_empty(err)
  read_work(debug kern.tile.cu)
  if(debug STREQUAL plain)
    fail("-g: kern.tile.cu is the plain translation")
  endif()
  expect_has(debug "#include <tilepp/tile_debug.cuh>")
  expect_has(debug "tile_err = tile_debug_collect(tile_prof, &tile_dev, tile_stream, nullptr, 0);")
  run(-g -g0 kern.c)
  expect_rc(0)
  read_work(off kern.tile.cu)
  if(NOT off STREQUAL plain)
    fail("-g -g0: kern.tile.cu differs from the plain translation")
  endif()

elseif(CASE STREQUAL "ignored_flags")
  # Code generation and warning flags of the C compiler: a note each, exit 0,
  # and the same output as without them.
  write_kernel("${WORK_DIR}")
  run(kern.c)
  read_work(plain kern.tile.cu)
  file(REMOVE "${WORK_DIR}/kern.tile.cu")
  set(ignored -O2 -Os -g3 -ggdb3 -Wall -Wextra -Wno-unused -Werror=format -fPIC -fno-strict-aliasing
    -march=native -m64 -pipe -c)
  run(${ignored} kern.c)
  expect_rc(0)
  expect_empty(out)
  read_work(cu kern.tile.cu)
  if(NOT cu STREQUAL plain)
    fail("kern.tile.cu differs from the run without the ignored flags")
  endif()
  foreach(flag IN LISTS ignored)
    expect_has(err "tilepp: note: ignoring '${flag}' (")
  endforeach()
  expect_has(err "ignoring '-O2' (a code generation flag of the C compiler)")
  expect_lacks(err ": error:")
  # Not in those families: still a usage error.
  run(-q kern.c)
  expect_usage_error("unknown option '-q'")

elseif(CASE STREQUAL "color")
  # Clang's colours when forced; none when turned off, nor by default when
  # stderr is not a terminal (as here); NO_COLOR and a terminal, with script(1).
  file(WRITE "${WORK_DIR}/bad.c" [=[
int f(void);
long f(void);
int g(void) { return 1 << 40; }
]=])
  # (CMake lists do not hold '[', so each escape sequence is checked on its own.)
  foreach(flags "-fcolor-diagnostics" "-fdiagnostics-color" "-fdiagnostics-color=always"
      "-fno-color-diagnostics;-fcolor-diagnostics")
    run_env("NO_COLOR=1" ${flags} bad.c)
    expect_rc(1)
    expect_has(err "${esc}[1mbad.c:2:6: ${esc}[0m${esc}[0;1;31merror: ${esc}[0m${esc}[1mconflicting types for 'f'${esc}[0m\n")
    expect_has(err "${esc}[0;1;36mnote: ${esc}[0mprevious declaration is here")
    expect_has(err "${esc}[0;1;35mwarning: ${esc}[0m${esc}[1mshift count >= width of type")
    expect_has(err "      | ${esc}[0;1;32m     ^${esc}[0m\n")
    expect_has(err "\n1 warning and 1 error generated.\n")
  endforeach()
  foreach(flags "" "-fno-color-diagnostics" "-fdiagnostics-color=never" "-fcolor-diagnostics;-fno-color-diagnostics")
    run(${flags} bad.c)
    expect_rc(1)
    expect_has(err "bad.c:2:6: error: conflicting types for 'f'")
    expect_lacks(err "${esc}")
  endforeach()
  find_program(SCRIPT script)
  if(SCRIPT)
    # script(1) runs the command on a terminal; its output comes on stdout.
    set(command "'${TILEPP}' bad.c")
    foreach(pair "TERM=xterm|1" "TERM=xterm;NO_COLOR=|1" "TERM=xterm;NO_COLOR=1|0" "TERM=dumb|0")
      string(REPLACE "|" ";" pair "${pair}")
      list(GET pair -1 want)
      list(REMOVE_AT pair -1)
      execute_process(COMMAND "${CMAKE_COMMAND}" -E env ${pair} "${SCRIPT}" -qec "${command}" /dev/null
        WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
      set(last_command "${pair} script tilepp bad.c")
      expect_rc(1)
      expect_has(out "conflicting types for 'f'")
      if(want)
        expect_has(out "${esc}[0;1;31merror: ")
      else()
        expect_lacks(out "${esc}")
      endif()
    endforeach()
  else()
    message(STATUS "no script(1): the terminal checks are skipped")
  endif()

elseif(CASE STREQUAL "error_count")
  # Clang's closing line, in its words, after errors.
  write_kernel("${WORK_DIR}")
  file(WRITE "${WORK_DIR}/local.h" "/* LOCAL_BIAS left undefined */\n")
  run(kern.c)
  expect_rc(1)
  if(NOT err MATCHES "\n1 error generated\\.\n$")
    fail("stderr does not end in '1 error generated.':\n${err}")
  endif()
  file(WRITE "${WORK_DIR}/two.c" [=[
#pragma tile kernel thread(128)
void a(int n, float *x) { (void)n; (void)x; }
#pragma tile kernel thread(64)
void b(int n, float *x) { (void)n; (void)x; }
]=])
  run(two.c)
  expect_rc(1)
  if(NOT err MATCHES "\n2 errors generated\\.\n$")
    fail("stderr does not end in '2 errors generated.':\n${err}")
  endif()
  file(WRITE "${WORK_DIR}/mixed.c" "int f(void);\nlong f(void);\nint g(void) { return 1 << 40; }\n")
  run(mixed.c)
  expect_rc(1)
  if(NOT err MATCHES "\n1 warning and 1 error generated\\.\n$")
    fail("stderr does not end in '1 warning and 1 error generated.':\n${err}")
  endif()
  # A translation that succeeds with warnings counts them, as clang does.
  file(WRITE "${WORK_DIR}/w.c" "${warning_c}")
  run(w.c)
  expect_rc(0)
  expect_has(err "warning: ${swizzle_warning}")
  if(NOT err MATCHES "\n1 warning generated\\.\n$")
    fail("stderr does not end in '1 warning generated.':\n${err}")
  endif()

elseif(CASE STREQUAL "werror")
  # -Werror: a tilepp warning is an error, and nothing is written; -w drops
  # warnings (and wins over -Werror, as in gcc); -Wno-error undoes -Werror.
  file(WRITE "${WORK_DIR}/w.c" "${warning_c}")
  run(-MD -Werror w.c)
  expect_rc(1)
  expect_has(err "w.c:6:19: error: ${swizzle_warning} [-Werror]\n    6 | #pragma tile grid swizzle(8)\n")
  expect_has(err "\n1 error generated.\n")
  expect_lacks(err "warning")
  expect_empty(out)
  expect_files(w.c)
  run(-Werror -Wno-error w.c)
  expect_rc(0)
  expect_has(err "w.c:6:19: warning: ${swizzle_warning}")
  expect_files(w.c w.tile.cu w.tile.h)
  file(REMOVE "${WORK_DIR}/w.tile.cu" "${WORK_DIR}/w.tile.h")
  foreach(flags "-w" "-w;-Werror" "-Werror;-w")
    run(${flags} w.c)
    expect_rc(0)
    expect_empty(err)
    expect_files(w.c w.tile.cu w.tile.h)
  endforeach()

elseif(CASE STREQUAL "clang_warnings")
  # Clang's own warnings on the parse are printed; -w and -Werror apply.
  file(WRITE "${WORK_DIR}/k.c" "${clang_warning_c}")
  run(k.c)
  expect_rc(0)
  expect_has(err "k.c:4:14: warning: shift count >= width of type\n    4 |     return 1 << 40;\n")
  expect_files(k.c k.tile.cu k.tile.h)
  run(-w k.c)
  expect_rc(0)
  expect_empty(err)
  file(REMOVE "${WORK_DIR}/k.tile.cu" "${WORK_DIR}/k.tile.h")
  run(-Werror k.c)
  expect_rc(1)
  expect_has(err "k.c:4:14: error: shift count >= width of type [-Werror]")
  expect_files(k.c)
  # An error's notes come with it.
  file(WRITE "${WORK_DIR}/notes.c" "int f(void);\nlong f(void);\n")
  run(notes.c)
  expect_rc(1)
  expect_has(err "notes.c:2:6: error: conflicting types for 'f'")
  expect_has(err "notes.c:1:5: note: previous declaration is here\n    1 | int f(void);\n")

elseif(CASE STREQUAL "syntax_only")
  # -fsyntax-only: every check, lowering included, and no file, no stdout.
  write_kernel("${WORK_DIR}")
  run(-fsyntax-only -MD -o gen.cu kern.c)
  expect_rc(0)
  expect_empty(out)
  expect_empty(err)
  run(-fsyntax-only --emit ir kern.c)
  expect_rc(0)
  expect_empty(out)
  expect_files(${inputs})
  # This block needs more shared memory than sm_80 has: found when lowering,
  # which --emit ir alone skips and -fsyntax-only does not.
  file(COPY "${CMAKE_CURRENT_LIST_DIR}/golden/gemm_smem_sm90a.c" DESTINATION "${WORK_DIR}")
  run(--emit ir gemm_smem_sm90a.c)
  expect_rc(0)
  foreach(flags "-fsyntax-only" "-fsyntax-only;--emit;ir")
    run(${flags} gemm_smem_sm90a.c)
    expect_rc(1)
    expect_empty(out)
    expect_has(err "gemm_smem_sm90a.c:11:1: error: this block needs 204800 bytes of shared memory")
  endforeach()
  file(WRITE "${WORK_DIR}/w.c" "${warning_c}")
  run(-fsyntax-only w.c)
  expect_rc(0)
  expect_has(err "warning: ${swizzle_warning}")
  expect_files(${inputs} gemm_smem_sm90a.c w.c)

elseif(CASE STREQUAL "no_tune")
  # --no-tune: a tuned kernel becomes one kernel at the file's values (no
  # variants, no tuning launcher, no _gpu_point), as without its tune line;
  # its space is still checked.
  file(COPY "${CMAKE_CURRENT_LIST_DIR}/golden/tune_space.c" DESTINATION "${WORK_DIR}")
  run(tune_space.c -o tuned.cu)
  expect_rc(0)
  read_work(cu tuned.cu)
  read_work(h tuned.h)
  expect_has(cu "namespace tile_tune_")
  expect_has(h "_gpu_point(")
  run(--no-tune tune_space.c -o plain.cu)
  expect_rc(0)
  expect_empty(err)
  read_work(cu plain.cu)
  read_work(h plain.h)
  expect_lacks(cu "tile_tune")
  expect_lacks(h "_gpu_point(")
  expect_has(h "_gpu(")
  file(WRITE "${WORK_DIR}/bad.c" [=[
#include <tilepp/tile.h>
#pragma tile kernel
#pragma tile tune NOWHERE(1, 2)
void k(int n, float y[n])
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        y[i] = 0;
}
]=])
  run(--no-tune bad.c)
  expect_rc(1)
  expect_has(err "bad.c:3:")
  expect_files(tune_space.c tuned.cu tuned.h plain.cu plain.h bad.c)

elseif(CASE STREQUAL "list_variants")
  # --list-variants: every point, ok or pruned with its reason, and writes
  # nothing. With both paths asked for, a point that only Hopper's shared
  # memory takes (192 KB: over sm_80's 163 KB, within sm_90a's 227 KB) is
  # "ok on sm_90a only" with sm_80's reason; one too large for both is
  # pruned; with --arch 90a alone the 192 KB point is plainly ok.
  file(WRITE "${WORK_DIR}/rows.c" [=[
#include <tilepp/tile.h>
enum { R = 256 };
#pragma tile kernel threads(256)
#pragma tile tune R(256, 384, 512)
void rows(int n, const half x[n][256], half y[n][256])
{
#pragma tile grid
    for (int b = 0; b < tile_cdiv(n, R); b++) {
#pragma tile shared
        half Ts[R][256];
        tile_load(Ts, x, b * R, 0, n, 256);
        tile_store(y, Ts, b * R, 0, n, 256);
    }
}
]=])
  run(--list-variants rows.c)
  expect_rc(0)
  expect_has(out "rows R=256  ok  (the file's values)\n")
  expect_has(out "rows R=384  ok on sm_90a only: rows.c:7:1: this block needs 196608 bytes of shared memory")
  expect_has(out "rows R=512  pruned: rows.c:7:1: this block needs 262144 bytes")
  run(--list-variants --arch 90a rows.c)
  expect_rc(0)
  expect_has(out "rows R=384  ok\n")
  expect_files(rows.c)

elseif(CASE STREQUAL "unchanged_outputs")
  # An output whose content would not change is not written again: same
  # inode, same mtime (Ninja's restat then skips nvcc). One that changes is
  # replaced (a new inode, from the rename).
  write_kernel("${WORK_DIR}")
  find_program(STAT stat)
  if(NOT STAT)
    message(FATAL_ERROR "this case needs stat(1)")
  endif()
  set(produced kern.tile.cu kern.tile.h kern.tile.d)
  function(stamp var)
    execute_process(COMMAND "${STAT}" -c "%i %y" ${produced}
      WORKING_DIRECTORY "${WORK_DIR}" OUTPUT_VARIABLE text RESULT_VARIABLE code)
    if(NOT code EQUAL 0)
      set(text "<stat failed>")
    endif()
    tt_lines(lines "${text}")
    set(${var} "${lines}" PARENT_SCOPE)
  endfunction()
  run(-MD kern.c)
  expect_rc(0)
  stamp(first)
  file(TOUCH "${WORK_DIR}/kern.c")
  run(-MD kern.c)
  expect_rc(0)
  expect_files(${inputs} ${produced})
  stamp(second)
  if(NOT first STREQUAL second)
    fail("a run that changes nothing rewrote outputs: '${first}' became '${second}'")
  endif()
  # A change to the kernel's body changes the .cu alone.
  file(READ "${WORK_DIR}/kern.c" text)
  string(REPLACE "+ SPACED;" "+ SPACED + 5.0f;" text "${text}")
  file(WRITE "${WORK_DIR}/kern.c" "${text}")
  run(-MD kern.c)
  expect_rc(0)
  expect_files(${inputs} ${produced})
  stamp(third)
  list(GET second 0 cu_before)
  list(GET third 0 cu_after)
  if(cu_before STREQUAL cu_after)
    fail("kern.tile.cu was not written again after a change")
  endif()
  list(SUBLIST second 1 2 rest_before)
  list(SUBLIST third 1 2 rest_after)
  if(NOT rest_before STREQUAL rest_after)
    fail("the header or the depfile was rewritten with the same content: '${rest_before}' became '${rest_after}'")
  endif()
  read_work(cu kern.tile.cu)
  expect_has(cu "5.0f")

# --- usage errors --------------------------------------------------------------
elseif(CASE STREQUAL "error_unknown_option")
  write_kernel("${WORK_DIR}")
  run(--frobnicate kern.c)
  expect_usage_error("unknown option '--frobnicate'")
  expect_files(${inputs})

elseif(CASE STREQUAL "error_missing_input")
  run()
  expect_usage_error("no input file")
  run(-DX=1 --arch 80)
  expect_usage_error("no input file")
  expect_files()

elseif(CASE STREQUAL "error_bad_arch")
  write_kernel("${WORK_DIR}")
  foreach(arch 75 sm_75 compute_70 80,75 "," 90b sm_ abc 80x)
    run(--arch "${arch}" kern.c)
    expect_usage_error("--arch")
  endforeach()
  expect_files(${inputs})

elseif(CASE STREQUAL "error_bad_emit")
  write_kernel("${WORK_DIR}")
  run(--emit asm kern.c)
  expect_usage_error("--emit takes")
  expect_has(err "'asm'")
  expect_files(${inputs})

elseif(CASE STREQUAL "error_two_inputs")
  write_kernel("${WORK_DIR}")
  file(COPY "${WORK_DIR}/kern.c" DESTINATION "${WORK_DIR}/two")
  run(kern.c two/kern.c)
  expect_usage_error("one input file at a time")
  expect_files(${inputs} two/kern.c)

elseif(CASE STREQUAL "error_missing_value")
  write_kernel("${WORK_DIR}")
  foreach(flag -o --header -MF -MT -MQ --emit --arch -I -D -U -isystem -iquote -idirafter
      -include --sysroot --target -target)
    run(kern.c ${flag})
    expect_usage_error("option '${flag}' needs a value")
  endforeach()
  expect_files(${inputs})

elseif(CASE STREQUAL "error_unreadable_input")
  run(no_such_file.c)
  expect_rc(1)
  expect_has(err "no_such_file.c")
  expect_empty(out)
  expect_files()
  file(MAKE_DIRECTORY "${WORK_DIR}/a_directory.c")
  run(a_directory.c)
  expect_rc(1)
  expect_has(err "a_directory.c")
  expect_empty(out)

elseif(CASE STREQUAL "error_undefined_macro")
  # The translator's own errors give exit code 1 as well (not 2, not a signal).
  write_kernel("${WORK_DIR}")
  file(WRITE "${WORK_DIR}/local.h" "/* LOCAL_BIAS left undefined */\n")
  run(-MD kern.c)
  expect_rc(1)
  expect_has(err "kern.c:10:27: error: use of undeclared identifier 'LOCAL_BIAS'")
  expect_files(${inputs})

else()
  message(FATAL_ERROR "unknown CASE '${CASE}'")
endif()

if(failures)
  message("${failures}")   # plain message(): FATAL_ERROR would re-wrap it
  message(FATAL_ERROR "CLI case ${CASE} failed")
endif()
message(STATUS "CLI case ${CASE}: ok")

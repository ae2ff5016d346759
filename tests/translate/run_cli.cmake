# run_cli.cmake — the translator's command line, one case per test.
#
#   cmake -DTILEPP=<tilepp> -DWORK_DIR=<dir> -DVERSION=<x.y.z> -DCASE=<case> -P run_cli.cmake
#
# Each case starts in an empty WORK_DIR, writes the small inputs it needs and
# runs the translator there with relative paths. Cases:
#   version help depfile depfile_default emit_ir emit_ir_to_file output_paths
#   output_only default_names include_define arch all_or_nothing
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
    foreach(option -o --header -I -D --arch --emit -MD -MF --version --help)
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
  foreach(pair "80|80" "sm_80|80" "90a|90a" "sm_90a|90a" "80,90a|80 90a" "90a,80|80 90a")
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
  foreach(arch 75 sm_75 80,75 ",")
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
  foreach(flag -o --header -MF --emit --arch -I -D)
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

# run_inspect_cli.cmake — the command line of `tilepp inspect` and of
# `tilepp --emit ptx`, where no CUDA tool is needed: help, usage errors, and
# a CUDA tool that the environment names but that is not there (a clear
# error, exit 1, no file written). One case per test.
#
#   cmake -DTILEPP=<tilepp> -DWORK_DIR=<dir> -DCASE=<case> -P run_inspect_cli.cmake
#
# Cases: help no_file missing_file directory bad_arch unknown_option
#   two_files no_nvcc no_cuobjdump emit_ptx_no_nvcc
# (tilepp inspect itself, with nvcc: tests/compile/run_inspect.cmake)

cmake_minimum_required(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/translate_common.cmake)
tt_require(TILEPP WORK_DIR CASE)

tt_fresh_dir("${WORK_DIR}")
set(failures "")

set(kernel_c [=[
#include <tilepp/tile.h>

#pragma tile kernel
void scale(int n, float s, float *x)
{
#pragma tile parallel
    for (int i = 0; i < n; i++)
        x[i] = s * x[i];
}
]=])

# run(<NAME=VALUE;...> <args>...): tilepp in WORK_DIR with those variables
# in its environment ("" for none); sets rc, out, err.
macro(run env)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env ${env} "${TILEPP}" ${ARGN}
    WORKING_DIRECTORY "${WORK_DIR}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REPLACE ";" " " last_command "${env} tilepp ${ARGN}")
endmacro()

function(fail text)
  set(failures "${failures}[${last_command}] ${text}\n" PARENT_SCOPE)
endfunction()

function(expect_has var text)
  string(FIND "${${var}}" "${text}" at)
  if(at EQUAL -1)
    fail("${var} lacks '${text}'; it is:\n${${var}}")
  endif()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

# expect_error(<text>): exit 1, `tilepp: error: <text>` on stderr, nothing on stdout.
function(expect_error text)
  if(NOT rc STREQUAL "1")
    fail("exit code '${rc}', expected 1; stderr:\n${err}")
  endif()
  expect_has(err "tilepp: error: ${text}")
  if(NOT out STREQUAL "")
    fail("stdout is not empty:\n${out}")
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

# --------------------------------------------------------------------------
if(CASE STREQUAL "help")
  run("" inspect --help)
  if(NOT rc STREQUAL "0")
    fail("exit code '${rc}'")
  endif()
  foreach(text "usage: tilepp inspect" --arch --json --ptx -Werror TILEPP_CUOBJDUMP nvidia-cuda-nvdisasm)
    expect_has(out "${text}")
  endforeach()
  run("" --help)
  expect_has(out "--emit cuda|ptx|ir")
  expect_has(out "tilepp inspect")
  expect_files()

elseif(CASE STREQUAL "no_file")
  run("" inspect)
  expect_error("no file to inspect")
  expect_has(err "tilepp inspect --help")
  run("" inspect --json)
  expect_error("no file to inspect")

elseif(CASE STREQUAL "missing_file")
  run("" inspect missing.c)
  expect_error("cannot read 'missing.c': No such file or directory")
  run("" inspect --arch 90a missing_binary)
  expect_error("cannot read 'missing_binary'")
  expect_files()

elseif(CASE STREQUAL "directory")
  file(MAKE_DIRECTORY "${WORK_DIR}/sub")
  run("" inspect sub)
  expect_error("'sub' is a directory")

elseif(CASE STREQUAL "bad_arch")
  file(WRITE "${WORK_DIR}/k.c" "${kernel_c}")
  run("" inspect --arch 70 k.c)
  expect_error("--arch takes architectures of sm_80 and newer")
  expect_has(err "'70'")
  run("" inspect --arch=80,sm_7x k.c)
  expect_has(err "'sm_7x'")
  run("" inspect k.c --arch)
  expect_error("option '--arch' needs a value")
  expect_files(k.c)

elseif(CASE STREQUAL "unknown_option")
  file(WRITE "${WORK_DIR}/k.c" "${kernel_c}")
  run("" inspect --frobnicate k.c)
  expect_error("unknown option '--frobnicate'")
  expect_files(k.c)

elseif(CASE STREQUAL "two_files")
  file(WRITE "${WORK_DIR}/k.c" "${kernel_c}")
  run("" inspect k.c k.c)
  expect_error("one file at a time")

elseif(CASE STREQUAL "no_nvcc")
  # CUDACXX names the compiler: when it is not there, that is the error,
  # before anything is translated.
  file(WRITE "${WORK_DIR}/k.c" "${kernel_c}")
  run("CUDACXX=/no/such/dir/nvcc" inspect k.c)
  expect_error("cannot compile k.c: CUDACXX is '/no/such/dir/nvcc', which is not an executable")
  file(WRITE "${WORK_DIR}/k.tile.cu" "__global__ void k() {}\n")
  run("CUDACXX=/no/such/dir/nvcc" inspect --json k.tile.cu)
  expect_error("cannot compile k.tile.cu: CUDACXX is")
  expect_files(k.c k.tile.cu)

elseif(CASE STREQUAL "no_cuobjdump")
  # Anything that is not a .c or .cu is a binary, read with cuobjdump.
  file(WRITE "${WORK_DIR}/app" "not really a program\n")
  run("TILEPP_CUOBJDUMP=/no/such/dir/cuobjdump" inspect app)
  expect_error("cannot read app: TILEPP_CUOBJDUMP is '/no/such/dir/cuobjdump', which is not an executable")
  expect_files(app)

elseif(CASE STREQUAL "emit_ptx_no_nvcc")
  file(WRITE "${WORK_DIR}/k.c" "${kernel_c}")
  run("CUDACXX=/no/such/dir/nvcc" --emit ptx -MD k.c)
  expect_error("--emit ptx needs nvcc: CUDACXX is '/no/such/dir/nvcc', which is not an executable")
  run("CUDACXX=/no/such/dir/nvcc" --emit=ptx --arch 90a -o out.ptx k.c)
  expect_error("--emit ptx needs nvcc")
  expect_files(k.c) # no .tile.cu, .ptx or .d left behind

else()
  message(FATAL_ERROR "unknown CASE '${CASE}'")
endif()

if(failures)
  message("${failures}")
  message(FATAL_ERROR "inspect CLI case ${CASE} failed")
endif()
message(STATUS "inspect CLI case ${CASE}: ok")

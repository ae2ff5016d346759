# run_compile.cmake — one compile test of generated code (no GPU needed).
#
#   cmake -DTILEPP=<tilepp> -DNVCC=<nvcc> [-DCUDA_HOST_COMPILER=<c++>]
#         -DC_COMPILER=<cc> -DTILEPP_INCLUDE_DIR=<dir> -DCUDA_INCLUDE_DIR=<dir>
#         -DINPUT=<dir/x.c> -DWORK_DIR=<dir>
#         [-DPTX_REQUIRE=<regex@regex...>] [-DPTX_FORBID=<regex@...>]
#         [-DLINK_MAIN=<main.c>] [-DALLOW_REFUSAL=1] [-DREPORT_SPILLS=1] [-DNO_TUNE=1]
#         -P run_compile.cmake
#
# In an empty WORK_DIR (x.c and the *.h beside it copied in):
#  1. `tilepp x.c` (plus the `// tilepp-args:` of x.c, whose -D/-U/-I go to
#     nvcc as well; --no-tune with NO_TUNE) must succeed. With
#     ALLOW_REFUSAL, a refusal with a located diagnostic passes the test
#     instead (honoured or refused, but never code that does not compile).
#  2. nvcc compiles x.tile.cu for sm_80 and sm_90a in one run, C++17,
#     -I<tilepp headers> -I<dir of x.c>, every warning an error (nvcc's
#     -Werror all-warnings, and -Wall -Wextra -Werror for the host compiler).
#     With REPORT_SPILLS, also -Xptxas -v: the kernels that spill registers
#     to local memory are listed (in the output and in x.spills.txt, "none"
#     if none does); a report, not a failure.
#  3. nvcc -ptx for compute_80 and compute_90a; in each PTX every PTX_REQUIRE
#     regex must match (one written "compute_90a:regex" in that PTX only)
#     and no PTX_FORBID regex may.
#  4. x.tile.h compiles as plain C: cc -std=c11 -Wall -Wextra -Werror.
#  5. With LINK_MAIN: x.c (the CPU reference) and LINK_MAIN are compiled by
#     the C compiler and linked with the nvcc object into one program, which
#     is run (it uses the CPU reference only, so no GPU is needed).
# The object stays in WORK_DIR as x.tile.o for the SASS test.

cmake_minimum_required(VERSION 3.20)
foreach(var TILEPP NVCC C_COMPILER TILEPP_INCLUDE_DIR CUDA_INCLUDE_DIR INPUT WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "missing -D${var}=...")
  endif()
endforeach()

get_filename_component(name "${INPUT}" NAME)
get_filename_component(stem "${INPUT}" NAME_WE)
get_filename_component(input_dir "${INPUT}" DIRECTORY)

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
file(GLOB headers "${input_dir}/*.h")
file(COPY "${INPUT}" ${headers} DESTINATION "${WORK_DIR}")

set(ccbin "")
if(CUDA_HOST_COMPILER)
  set(ccbin -ccbin "${CUDA_HOST_COMPILER}")
endif()

# step(<what> <command>...): runs a command in WORK_DIR; stops the test with
# its output if it fails.
function(step what)
  execute_process(COMMAND ${ARGN}
    WORKING_DIRECTORY "${WORK_DIR}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "0")
    string(REPLACE ";" " " command "${ARGN}")
    message("${what} failed (exit '${rc}'):\n  ${command}\n${out}${err}")
    message(FATAL_ERROR "compile test ${name}: ${what} failed")
  endif()
  message(STATUS "${what}: ok")
  set(step_output "${out}${err}" PARENT_SCOPE)
endfunction()

# --- 1. translate ---------------------------------------------------------------
file(STRINGS "${INPUT}" arg_lines REGEX "^// tilepp-args:")
set(args "")
foreach(line IN LISTS arg_lines)
  string(REGEX REPLACE "^// tilepp-args:[ \t]*" "" line "${line}")
  separate_arguments(parts UNIX_COMMAND "${line}")
  list(APPEND args ${parts})
endforeach()
# -D, -U and -I reach nvcc too, as tile_add_kernels() passes them to both.
set(cpp_args "")
foreach(arg IN LISTS args)
  if(arg MATCHES "^-[DUI].")
    list(APPEND cpp_args "${arg}")
  endif()
endforeach()
if(NO_TUNE)
  list(APPEND args --no-tune)
endif()
execute_process(COMMAND "${TILEPP}" ${args} "${name}"
  WORKING_DIRECTORY "${WORK_DIR}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(ALLOW_REFUSAL AND rc STREQUAL "1" AND err MATCHES "(^|\n)[^ \n]+:[0-9]+:[0-9]+: error: ")
  message(STATUS "tilepp refused ${name} with a diagnostic, which is allowed here:\n${err}")
  return()
endif()
if(NOT rc STREQUAL "0")
  message("tilepp ${args} ${name} exited with '${rc}':\n${err}")
  message(FATAL_ERROR "compile test ${name}: translation failed")
endif()

# --- 2. nvcc, both code paths, warnings as errors --------------------------------------
set(nvcc_flags ${ccbin} -std=c++17 -I${TILEPP_INCLUDE_DIR} -I${WORK_DIR} ${cpp_args}
  -Werror all-warnings -Xcompiler=-Wall,-Wextra,-Werror)
set(ptxas_verbose "")
if(REPORT_SPILLS OR FORBID_SPILLS)
  set(ptxas_verbose -Xptxas=-v)
endif()
step("nvcc sm_80 + sm_90a" "${NVCC}" ${nvcc_flags} ${ptxas_verbose} -c
  -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90a,code=sm_90a
  ${stem}.tile.cu -o ${stem}.tile.o)
# ptxas's advisory that it serialized a kernel's wgmma (C7515: the
# epilogue or the operands keep the warpgroup's wgmma from running back to
# back) is a slow kernel: a failure here, for every generated sm_90a kernel.
if(step_output MATCHES "wgmma[^\n]*serialized")
  message(FATAL_ERROR "compile test ${name}: ptxas serialized wgmma:\n${step_output}")
endif()
if(REPORT_SPILLS OR FORBID_SPILLS)
  # ptxas -v prints, per function and architecture:
  #   ptxas info    : Compiling entry function '<mangled>' for 'sm_80'
  #   ...  N bytes stack frame, S bytes spill stores, L bytes spill loads
  string(REPLACE "\n" ";" ptxas_lines "${step_output}")
  set(function "?")
  set(spills "")
  foreach(line IN LISTS ptxas_lines)
    if(line MATCHES "Compiling entry function '([^']+)' for '([^']+)'")
      set(function "${CMAKE_MATCH_1} (${CMAKE_MATCH_2})")
    elseif(line MATCHES "([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads")
      if(NOT CMAKE_MATCH_1 STREQUAL "0" OR NOT CMAKE_MATCH_2 STREQUAL "0")
        string(APPEND spills "${function}: ${CMAKE_MATCH_1} bytes spill stores, ${CMAKE_MATCH_2} bytes spill loads\n")
      endif()
    endif()
  endforeach()
  if(spills AND FORBID_SPILLS)
    file(WRITE "${WORK_DIR}/${stem}.spills.txt" "${spills}")
    message(FATAL_ERROR "register spills (FORBID_SPILLS):\n${spills}")
  elseif(spills)
    message(STATUS "register spills (a report, not a failure):\n${spills}")
    file(WRITE "${WORK_DIR}/${stem}.spills.txt" "${spills}")
  else()
    message(STATUS "register spills: none")
    file(WRITE "${WORK_DIR}/${stem}.spills.txt" "none\n")
  endif()
endif()

# --- 3. PTX landmarks -------------------------------------------------------------------
string(REPLACE "@" ";" PTX_REQUIRE "${PTX_REQUIRE}")
string(REPLACE "@" ";" PTX_FORBID "${PTX_FORBID}")
set(ptx_failures "")
foreach(arch compute_80 compute_90a)
  step("nvcc -ptx ${arch}" "${NVCC}" ${nvcc_flags} -ptx -arch=${arch} ${stem}.tile.cu -o ${stem}.${arch}.ptx)
  file(READ "${WORK_DIR}/${stem}.${arch}.ptx" ptx)
  foreach(regex IN LISTS PTX_REQUIRE)
    # "compute_90a:REGEX" applies to that architecture's PTX only
    if(regex MATCHES "^(compute_[0-9a-z]+):(.*)$")
      if(NOT CMAKE_MATCH_1 STREQUAL arch)
        continue()
      endif()
      set(regex "${CMAKE_MATCH_2}")
    endif()
    if(NOT ptx MATCHES "${regex}")
      string(APPEND ptx_failures "${arch}: nothing matches '${regex}'\n")
    else()
      message(STATUS "${arch} PTX has '${CMAKE_MATCH_0}' (${regex})")
    endif()
  endforeach()
  foreach(regex IN LISTS PTX_FORBID)
    if(ptx MATCHES "${regex}")
      string(APPEND ptx_failures "${arch}: '${CMAKE_MATCH_0}' matches '${regex}', which must not appear\n")
    endif()
  endforeach()
endforeach()
if(ptx_failures)
  message("PTX checks of ${stem}.tile.cu failed (the PTX is in ${WORK_DIR}):\n${ptx_failures}")
  message(FATAL_ERROR "compile test ${name}: PTX checks failed")
endif()

# --- 4. the header is plain C ---------------------------------------------------------------
set(c_flags -std=c11 -Wall -Wextra -Werror -I${WORK_DIR} -I${TILEPP_INCLUDE_DIR} -I${CUDA_INCLUDE_DIR})
file(WRITE "${WORK_DIR}/header_is_c.c" "#include \"${stem}.tile.h\"\n#include \"${stem}.tile.h\" /* guarded */\nint main(void) { return 0; }\n")
step("${stem}.tile.h as C11" "${C_COMPILER}" ${c_flags} -c header_is_c.c -o header_is_c.o)

# --- 5. CPU reference + launchers in one program ------------------------------------------------
if(LINK_MAIN)
  get_filename_component(main_name "${LINK_MAIN}" NAME)
  file(COPY "${LINK_MAIN}" DESTINATION "${WORK_DIR}")
  step("${name} as C (the CPU reference)" "${C_COMPILER}" -std=gnu11 -Wall -Wextra -Werror
    -Wno-unknown-pragmas -I${TILEPP_INCLUDE_DIR} -c ${name} -o ${stem}.cpu.o)
  step("${main_name}" "${C_COMPILER}" ${c_flags} -c ${main_name} -o main.o)
  step("link" "${NVCC}" ${ccbin} -o linked main.o ${stem}.cpu.o ${stem}.tile.o -lm)
  step("run the linked program" "${WORK_DIR}/linked")
endif()

# run_coverage.cmake — nothing the user annotated is dropped (the differential
# check that would have caught grids translated into launchers that launch
# nothing).
#
#   cmake -DTILEPP=<tilepp> -DCC=<C compiler> -DINCLUDE_DIR=<dir of tilepp/tile.h>
#         -DROOT=<repository> -DWORK_DIR=<dir> -P run_coverage.cmake
#
# For every annotated C file under ROOT's tests/, samples/ and bench/ that
# tilepp translates (exit 0), it counts, independently of tilepp, the
# `#pragma tile grid` and `#pragma tile parallel` lines the C preprocessor
# keeps (so `#if 0` regions and macros are seen as the compiler sees them),
# and requires
#   - the same number of grids and of parallel loops in `tilepp --emit ir`,
#   - at least one `__global__` function in the CUDA for each grid and each
#     parallel loop at the top level of a kernel.
# Files tilepp refuses are the diagnostics tests' business; they are listed.

cmake_minimum_required(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/translate_common.cmake)
tt_require(TILEPP CC INCLUDE_DIR ROOT WORK_DIR)

tt_fresh_dir("${WORK_DIR}")
file(GLOB_RECURSE candidates LIST_DIRECTORIES false
  "${ROOT}/tests/*.c" "${ROOT}/samples/*.c" "${ROOT}/bench/*.c")
list(SORT candidates)

# count_matches(<out> <text> <regex>): lines of <text> matching <regex>.
function(count_matches out text regex)
  string(REGEX MATCHALL "${regex}" hits "${text}")
  list(LENGTH hits n)
  set(${out} ${n} PARENT_SCOPE)
endfunction()

set(failures "")
set(checked 0)
set(refused "")
foreach(input IN LISTS candidates)
  file(READ "${input}" source)
  if(NOT source MATCHES "#[ \t]*pragma[ \t]+tile" OR input MATCHES "/tests/unit/"
     OR input MATCHES "/tests/difftest/gen\\.c$" OR input MATCHES "/tests/(translate|cpu)/errors/")
    continue()  # the unit tests and the program generator hold sources in strings; the
  endif()       # diagnostics corpus is refused by design (run_error.cmake checks it)
  file(RELATIVE_PATH rel "${ROOT}" "${input}")
  string(MAKE_C_IDENTIFIER "${rel}" id)
  get_filename_component(input_dir "${input}" DIRECTORY)
  tt_directive_args(args "${input}")
  set(out "${WORK_DIR}/${id}")

  execute_process(COMMAND "${TILEPP}" ${args} -o "${out}.tile.cu" "${input}"
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT rc EQUAL 0)
    list(APPEND refused "${rel}")
    continue()
  endif()
  execute_process(COMMAND "${TILEPP}" ${args} --emit ir -o "${out}.ir" "${input}"
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(APPEND failures "${rel}: translated, but --emit ir failed:\n${err}\n")
    continue()
  endif()
  # -D/-U/-I arguments mean the same to the preprocessor; others are tilepp's.
  set(cpp_args "")
  set(take_next OFF)
  foreach(a IN LISTS args)
    if(take_next) # the value of a separate `-D NAME=VALUE`
      list(APPEND cpp_args "${a}")
      set(take_next OFF)
    elseif(a MATCHES "^-[DUI]$")
      list(APPEND cpp_args "${a}")
      set(take_next ON)
    elseif(a MATCHES "^-[DUI]")
      list(APPEND cpp_args "${a}")
    endif()
  endforeach()
  execute_process(COMMAND "${CC}" -E -P -I "${INCLUDE_DIR}" -I "${input_dir}" ${cpp_args} "${input}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE preprocessed ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(APPEND failures "${rel}: the C preprocessor failed:\n${err}\n")
    continue()
  endif()
  file(READ "${out}.ir" ir)
  file(READ "${out}.tile.cu" cuda)

  count_matches(src_grids "${preprocessed}" "#[ \t]*pragma[ \t]+tile[ \t]+grid")
  count_matches(src_parallels "${preprocessed}" "#[ \t]*pragma[ \t]+tile[ \t]+parallel")
  count_matches(ir_grids "${ir}" "\n    grid swizzle")
  count_matches(ir_parallels "${ir}" "\n +parallel vector")
  count_matches(ir_top_parallels "${ir}" "\n    parallel vector")
  count_matches(globals "${cuda}" "__global__")
  math(EXPR launched "${ir_grids} + ${ir_top_parallels}")

  if(NOT ir_grids EQUAL src_grids)
    string(APPEND failures "${rel}: ${src_grids} '#pragma tile grid' in the source, ${ir_grids} grids in the IR\n")
  endif()
  if(NOT ir_parallels EQUAL src_parallels)
    string(APPEND failures
      "${rel}: ${src_parallels} '#pragma tile parallel' in the source, ${ir_parallels} parallel loops in the IR\n")
  endif()
  if(globals LESS launched)
    string(APPEND failures
      "${rel}: ${launched} grids and top-level parallel loops, only ${globals} __global__ functions\n")
  endif()
  math(EXPR checked "${checked} + 1")
endforeach()

list(LENGTH refused nrefused)
string(REPLACE ";" ", " refused "${refused}")
message(STATUS "${checked} translated files checked; ${nrefused} refused (diagnostics tests): ${refused}")
if(checked LESS 20)
  string(APPEND failures "only ${checked} annotated files translated: the search for inputs is broken\n")
endif()
if(failures)
  message(FATAL_ERROR "dropped constructs:\n${failures}")
endif()

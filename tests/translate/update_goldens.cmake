# update_goldens.cmake — rewrites the expected outputs of every golden test
# from what the translator produces now. Review the result with `git diff`.
#
#   ninja -C <build> tilepp_update_goldens            (builds tilepp first)
#   cmake -DTILEPP=<build>/bin/tilepp [-DONLY=x] -P tests/translate/update_goldens.cmake
#
# ONLY=x updates the golden of x.c alone. To give an input an IR golden as
# well, create an empty golden/x.ir.expected first.

cmake_minimum_required(VERSION 3.20)  # policies: empty list elements are kept
include(${CMAKE_CURRENT_LIST_DIR}/translate_common.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/golden_inputs.cmake)
tt_require(TILEPP)

if(NOT WORK_DIR)
  set(WORK_DIR "${CMAKE_CURRENT_BINARY_DIR}/tilepp-update-goldens")
endif()
execute_process(COMMAND "${TILEPP}" --version OUTPUT_VARIABLE version RESULT_VARIABLE rc)
if(NOT rc STREQUAL "0" OR NOT version MATCHES "^tilepp ([^ \n]+)")
  message(FATAL_ERROR "cannot run '${TILEPP} --version'")
endif()
set(version "${CMAKE_MATCH_1}")

tt_golden_inputs(inputs "${CMAKE_CURRENT_LIST_DIR}/../..")
set(failed "")
foreach(input IN LISTS inputs)
  get_filename_component(stem "${input}" NAME_WE)
  if(ONLY AND NOT stem STREQUAL ONLY)
    continue()
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" -DTILEPP=${TILEPP} -DINPUT=${input}
      -DEXPECTED_DIR=${CMAKE_CURRENT_LIST_DIR}/golden -DWORK_DIR=${WORK_DIR}/${stem}
      -DVERSION=${version} -DUPDATE=1 -P ${CMAKE_CURRENT_LIST_DIR}/run_golden.cmake
    RESULT_VARIABLE rc)
  if(NOT rc STREQUAL "0")
    list(APPEND failed "${stem}")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
if(failed)
  message(FATAL_ERROR "could not update: ${failed} (the translator refused them; see above)")
endif()
message(STATUS "goldens are up to date; review them with `git diff tests/translate/golden`")
